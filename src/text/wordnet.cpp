#include "text/wordnet.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "text/ascii.hpp"
#include "text/wordnet_files.hpp"

namespace probity::text::wordnet {
namespace {

// Parts of speech as numbered by WordNet (NOUN = 1 ... ADV = 4); satellites live in data.adj.
constexpr int kNoun = 1, kVerb = 2, kAdj = 3, kAdv = 4;
constexpr std::size_t kAntonymSenses = 3;

int pos_of(char c) {
  switch (c) {
    case 'n':
      return kNoun;
    case 'v':
      return kVerb;
    case 'a':
    case 's':
      return kAdj;
    case 'r':
      return kAdv;
    default:
      return 0;
  }
}

using text::wordnet_files::fields;
using text::wordnet_files::kPosNames;
using text::wordnet_files::parse_number;

// A read-only memory map of one data file: synsets are parsed on demand at their byte offsets.
class MappedFile {
 public:
  MappedFile() = default;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile() {
    if (data_ != nullptr) munmap(const_cast<char*>(data_), size_);
  }
  bool open(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) return false;
    struct stat st {};
    if (fstat(fd, &st) == 0 && st.st_size > 0) {
      void* p = mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (p != MAP_FAILED) {
        data_ = static_cast<const char*>(p);
        size_ = static_cast<std::size_t>(st.st_size);
      }
    }
    ::close(fd);
    return data_ != nullptr;
  }
  // The line starting at `offset` (without its newline); empty when out of range.
  std::string_view line_at(std::size_t offset) const {
    if (offset >= size_) return {};
    std::string_view rest(data_ + offset, size_ - offset);
    return rest.substr(0, rest.find('\n'));
  }
  std::string_view head(std::size_t n) const { return {data_, std::min(n, size_)}; }

 private:
  const char* data_ = nullptr;
  std::size_t size_ = 0;
};

struct Pointer {
  std::string_view symbol;
  int pos = 0;
  std::size_t offset = 0;
  int source = 0;  // 1-based word number in this synset; 0 for a semantic pointer
  int target = 0;
};

struct Synset {
  std::vector<std::string> words;  // lower-case, adjective markers removed
  std::vector<std::string> forms;  // the same words with their case as written
  std::vector<Pointer> pointers;
};

// Adjective position markers: "(a)", "(p)", "(ip)".
std::string_view strip_marker(std::string_view w) {
  if (const auto paren = w.find('('); paren != std::string_view::npos) w = w.substr(0, paren);
  return w;
}

std::string clean_lemma(std::string_view w) {
  std::string out(strip_marker(w));
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

class Database {
 public:
  Database() {
    dir_ = search_dir();
    for (int p = kNoun; p <= kAdv; ++p) {
      const std::string name(kPosNames[p]);
      load_index(dir_ + "/index." + name, index_[p]);
      load_exceptions(dir_ + "/" + name + ".exc", exceptions_[p], irregular_[p]);
      data_[p].open(dir_ + "/data." + name);
    }
    ok_ = !index_[kNoun].empty() && !index_[kVerb].empty();
    if (ok_) release_ = parse_release(data_[kNoun].head(4096));
  }

  bool ok() const { return ok_; }
  const std::string& release() const { return release_; }
  const std::string& dir() const { return dir_; }

  const std::vector<std::uint32_t>* offsets(const std::string& lemma, int p) const {
    auto it = index_[p].find(lemma);
    return it == index_[p].end() ? nullptr : &it->second;
  }

  const std::vector<std::string>* exception_bases(const std::string& form, int p) const {
    auto it = exceptions_[p].find(form);
    return it == exceptions_[p].end() ? nullptr : &it->second;
  }

  bool is_exception_base(const std::string& lemma, int p) const {
    return irregular_[p].count(lemma) > 0;
  }

  // WordNet's morphy, returning every base form found (exceptions, the word, detachments).
  std::vector<std::string> base_forms(const std::string& word, int p) const {
    std::vector<std::string> out;
    auto add = [&](std::string form) {
      if (offsets(form, p) != nullptr && std::find(out.begin(), out.end(), form) == out.end())
        out.push_back(std::move(form));
    };
    if (auto it = exceptions_[p].find(word); it != exceptions_[p].end())
      for (const auto& base : it->second) add(base);
    add(word);
    for (const auto& [suffix, replacement] : text::wordnet_files::detachment_rules(p)) {
      if (word.size() <= suffix.size() || !word.ends_with(suffix)) continue;
      add(word.substr(0, word.size() - suffix.size()) + std::string(replacement));
    }
    return out;
  }

  bool is_exception_form(const std::string& word, int p) const {
    return exceptions_[p].count(word) > 0;
  }

  Synset synset(int p, std::size_t offset) const {
    Synset s;
    const auto f = fields(data_[p].line_at(offset));
    if (f.size() < 4) return s;
    const long words = parse_number(f[3], 16);
    std::size_t k = 4;
    for (long w = 0; w < words && k + 1 < f.size(); ++w, k += 2) {
      s.words.push_back(clean_lemma(f[k]));
      s.forms.emplace_back(strip_marker(f[k]));
    }
    if (k >= f.size()) return s;
    const long count = parse_number(f[k++], 10);
    for (long i = 0; i < count && k + 3 < f.size(); ++i, k += 4) {
      Pointer ptr;
      ptr.symbol = f[k];
      ptr.offset = static_cast<std::size_t>(std::max(0L, parse_number(f[k + 1], 10)));
      ptr.pos = pos_of(f[k + 2].empty() ? ' ' : f[k + 2][0]);
      const std::string_view st = f[k + 3];
      if (st.size() == 4) {
        ptr.source = static_cast<int>(parse_number(st.substr(0, 2), 16));
        ptr.target = static_cast<int>(parse_number(st.substr(2, 2), 16));
      }
      s.pointers.push_back(ptr);
    }
    return s;
  }

 private:
  static std::string search_dir() {
    // The same precedence as the C library's SetSearchdir(); Debian installs to /usr/share.
    if (const char* env = std::getenv("WNSEARCHDIR"); env != nullptr && *env != '\0') return env;
    if (const char* env = std::getenv("WNHOME"); env != nullptr && *env != '\0')
      return std::string(env) + "/dict";
    return "/usr/share/wordnet";
  }

  static std::string parse_release(std::string_view header) {
    const auto at = header.find("WordNet ");
    if (at == std::string_view::npos) return "unknown";
    const auto rest = header.substr(at + 8);
    const auto end = rest.find(' ');
    return std::string(rest.substr(0, end));
  }

  // Multi-word lemmas are left out: lookups are of single words (Collocations has the others).
  static void load_index(const std::string& path,
                         std::unordered_map<std::string, std::vector<std::uint32_t>>& map) {
    text::wordnet_files::read_index(path,
                                    [&map](std::string_view lemma, std::vector<long>&& offsets) {
                                      if (lemma.find('_') != std::string_view::npos) return;
                                      std::vector<std::uint32_t> ids;
                                      ids.reserve(offsets.size());
                                      for (long offset : offsets)
                                        ids.push_back(static_cast<std::uint32_t>(offset));
                                      map.emplace(std::string(lemma), std::move(ids));
                                    });
  }

  static void load_exceptions(const std::string& path,
                              std::unordered_map<std::string, std::vector<std::string>>& map,
                              std::unordered_set<std::string>& bases) {
    text::wordnet_files::read_exceptions(
        path, [&map, &bases](std::string_view form, std::span<const std::string_view> forms) {
          auto& list = map[std::string(form)];
          for (std::string_view base : forms) {
            list.emplace_back(base);
            bases.emplace(base);
          }
        });
  }

  std::string dir_;
  std::string release_ = "none";
  bool ok_ = false;
  std::unordered_map<std::string, std::vector<std::uint32_t>> index_[5];
  std::unordered_map<std::string, std::vector<std::string>> exceptions_[5];
  std::unordered_set<std::string> irregular_[5];  // the bases in <pos>.exc
  MappedFile data_[5];
};

const Database& database() {
  static const Database db;
  return db;
}

// SemCor's sense counts (cntlist.rev), keyed by "lemma sense" per part of speech. Read on first
// use: only the perturbations' lexicon asks, so the mechanisms do not pay for it.
class TagCounts {
 public:
  explicit TagCounts(const std::string& path) {
    // "lemma%ss_type:lex_filenum:lex_id:head:head_id sense_number tag_count"
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
      const auto f = fields(line);
      if (f.size() < 3) continue;
      const auto percent = f[0].find('%');
      if (percent == std::string_view::npos || percent + 1 >= f[0].size()) continue;
      int p = f[0][percent + 1] - '0';
      if (p == 5) p = kAdj;  // satellite adjectives
      if (p < kNoun || p > kAdv) continue;
      std::string key(f[0].substr(0, percent));
      key += ' ';
      key += f[1];
      counts_[p].emplace(std::move(key), static_cast<int>(std::max(0L, parse_number(f[2], 10))));
    }
  }
  int get(std::string_view lemma, int p, int sense) const {
    std::string key(lemma);
    key += ' ';
    key += std::to_string(sense);
    auto it = counts_[p].find(key);
    return it == counts_[p].end() ? 0 : it->second;
  }

 private:
  std::unordered_map<std::string, int> counts_[5];
};

const TagCounts& tag_counts() {
  static const TagCounts counts(database().dir() + "/cntlist.rev");
  return counts;
}

// The multi-word lemmas of the index files. Read on first use: only the lookups by part of
// speech want them, and only for a word with '_' or an exception list's base ("comic_strip"),
// so the single-word lookups neither pay for them (they double the index) nor see them.
class Collocations {
 public:
  explicit Collocations(const std::string& dir) {
    for (int p = kNoun; p <= kAdv; ++p)
      text::wordnet_files::read_index(
          dir + "/index." + std::string(kPosNames[p]),
          [this, p](std::string_view lemma, std::vector<long>&& offsets) {
            if (lemma.find('_') == std::string_view::npos) return;
            std::vector<std::uint32_t> ids;
            ids.reserve(offsets.size());
            for (long offset : offsets) ids.push_back(static_cast<std::uint32_t>(offset));
            index_[p].emplace(std::string(lemma), std::move(ids));
          });
  }
  const std::vector<std::uint32_t>* offsets(const std::string& lemma, int p) const {
    auto it = index_[p].find(lemma);
    return it == index_[p].end() ? nullptr : &it->second;
  }

 private:
  std::unordered_map<std::string, std::vector<std::uint32_t>> index_[5];
};

// Any lemma's senses, multi-word ones included.
const std::vector<std::uint32_t>* lemma_offsets(const std::string& lemma, int p) {
  if (lemma.find('_') == std::string::npos) return database().offsets(lemma, p);
  static const Collocations collocations(database().dir());
  return collocations.offsets(lemma, p);
}

// The first base form morphy finds among all lemmas, with stems of two letters or more.
std::string first_base_form(const std::string& word, int p) {
  if (const auto* bases = database().exception_bases(word, p); bases != nullptr)
    for (const auto& base : *bases)
      if (lemma_offsets(base, p) != nullptr) return base;
  if (lemma_offsets(word, p) != nullptr) return word;
  for (const auto& [suffix, replacement] : text::wordnet_files::detachment_rules(p)) {
    if (word.size() <= suffix.size() + 1 || !word.ends_with(suffix)) continue;
    std::string candidate = word.substr(0, word.size() - suffix.size());
    candidate += replacement;
    if (lemma_offsets(candidate, p) != nullptr) return candidate;
  }
  return {};
}

// A grow-only memo: entries are never erased, so references handed out stay valid
// (unordered_map nodes do not move on rehash).
template <class Value>
class Memo {
 public:
  template <class Compute>
  const Value& get(std::string_view key, Compute&& compute) {
    {
      std::shared_lock lock(mutex_);
      if (auto it = map_.find(std::string(key)); it != map_.end()) return it->second;
    }
    Value value = compute(std::string(key));
    std::unique_lock lock(mutex_);
    return map_.emplace(std::string(key), std::move(value)).first->second;
  }

 private:
  std::shared_mutex mutex_;
  std::unordered_map<std::string, Value> map_;
};

void sort_unique(std::vector<std::string>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

bool available() {
  return database().ok();
}

std::string version() {
  return database().ok() ? database().release() : "none";
}

const std::vector<std::uint64_t>& synsets(std::string_view word, int max_senses) {
  static Memo<std::vector<std::uint64_t>> memo;
  std::string key = ascii_lower(word);
  key += '\x1f';
  key += std::to_string(std::max(0, max_senses));
  return memo.get(key, [&word, max_senses](const std::string&) {
    std::vector<std::uint64_t> out;
    const auto& db = database();
    if (!db.ok()) return out;
    const std::string w = ascii_lower(word);
    const std::size_t limit = max_senses > 0 ? static_cast<std::size_t>(max_senses) : SIZE_MAX;
    for (int p = kNoun; p <= kAdv; ++p)
      for (const auto& base : db.base_forms(w, p)) {
        const auto& offsets = *db.offsets(base, p);
        for (std::size_t k = 0; k < offsets.size() && k < limit; ++k)
          out.push_back((static_cast<std::uint64_t>(p) << 32) | offsets[k]);
      }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  });
}

const std::vector<std::string>& synonyms(std::string_view word) {
  static Memo<std::vector<std::string>> memo;
  return memo.get(word, [](const std::string& key) {
    std::vector<std::string> out;
    const auto& db = database();
    if (!db.ok()) return out;
    const std::string w = ascii_lower(key);
    for (std::uint64_t id : synsets(w)) {
      const Synset s = db.synset(static_cast<int>(id >> 32), id & 0xFFFFFFFFu);
      for (const auto& lemma : s.words)
        if (lemma != w && lemma.find('_') == std::string::npos) out.push_back(lemma);
    }
    sort_unique(out);
    return out;
  });
}

namespace {

struct AntonymTargets {
  std::vector<std::string> lemmas;
  std::vector<std::uint64_t> synsets;
};

// The "!" pointers of the frequent senses of every base form of `word`.
const AntonymTargets& antonym_targets(std::string_view word) {
  static Memo<AntonymTargets> memo;
  return memo.get(ascii_lower(word), [](const std::string& w) {
    AntonymTargets out;
    const auto& db = database();
    if (!db.ok()) return out;
    for (int p = kNoun; p <= kAdv; ++p) {
      for (const auto& base : db.base_forms(w, p)) {
        const auto& offsets = *db.offsets(base, p);
        for (std::size_t k = 0; k < offsets.size() && k < kAntonymSenses; ++k) {
          const Synset s = db.synset(p, offsets[k]);
          // Antonymy is lexical: the pointer's source must be this lemma's word number.
          int number = 0;
          for (std::size_t i = 0; i < s.words.size(); ++i)
            if (s.words[i] == base) number = static_cast<int>(i) + 1;
          for (const auto& ptr : s.pointers) {
            if (ptr.symbol != "!" || ptr.pos == 0 || (ptr.source != 0 && ptr.source != number))
              continue;
            out.synsets.push_back((static_cast<std::uint64_t>(ptr.pos) << 32) | ptr.offset);
            const Synset target = db.synset(ptr.pos, ptr.offset);
            for (std::size_t i = 0; i < target.words.size(); ++i) {
              if (ptr.target != 0 && static_cast<int>(i) + 1 != ptr.target) continue;
              if (target.words[i].find('_') == std::string::npos)
                out.lemmas.push_back(target.words[i]);
            }
          }
        }
      }
    }
    sort_unique(out.lemmas);
    std::sort(out.synsets.begin(), out.synsets.end());
    out.synsets.erase(std::unique(out.synsets.begin(), out.synsets.end()), out.synsets.end());
    return out;
  });
}

}  // namespace

const std::vector<std::string>& antonyms(std::string_view word) {
  return antonym_targets(word).lemmas;
}

const std::vector<std::uint64_t>& antonym_synsets(std::string_view word) {
  return antonym_targets(word).synsets;
}

bool is_inflected_verb(std::string_view word) {
  const auto& db = database();
  if (!db.ok()) return false;
  const std::string w = ascii_lower(word);
  if (db.is_exception_form(w, kVerb)) return true;
  if (db.offsets(w, kVerb) != nullptr && !w.ends_with("ed") && !w.ends_with("ing")) return false;
  for (const auto& base : db.base_forms(w, kVerb))
    if (base != w) return true;
  return false;
}

bool is_verb_lemma(std::string_view word) {
  const auto& db = database();
  return db.ok() && db.offsets(ascii_lower(word), kVerb) != nullptr;
}

// ---- lookups by part of speech -------------------------------------------------------------

std::string base_form(std::string_view word, Pos pos) {
  const auto& db = database();
  if (!db.ok()) return {};
  return first_base_form(std::string(word), static_cast<int>(pos));
}

const std::vector<std::uint32_t>& senses(std::string_view lemma, Pos pos) {
  static const std::vector<std::uint32_t> none;
  const auto& db = database();
  if (!db.ok()) return none;
  const auto* offsets = lemma_offsets(std::string(lemma), static_cast<int>(pos));
  return offsets == nullptr ? none : *offsets;
}

int tag_count(std::string_view lemma, Pos pos, int sense) {
  if (!database().ok()) return 0;
  return tag_counts().get(lemma, static_cast<int>(pos), sense);
}

std::vector<std::string> synset_words(Pos pos, std::uint32_t offset) {
  const auto& db = database();
  if (!db.ok()) return {};
  return db.synset(static_cast<int>(pos), offset).forms;
}

std::vector<std::string> sense_antonyms(std::string_view lemma, Pos pos, std::uint32_t offset) {
  std::vector<std::string> out;
  const auto& db = database();
  if (!db.ok()) return out;
  const Synset s = db.synset(static_cast<int>(pos), offset);
  // Antonymy is lexical: the pointer's source must be this lemma's word number.
  int number = 0;
  for (std::size_t i = 0; i < s.words.size(); ++i)
    if (s.words[i] == lemma) number = static_cast<int>(i) + 1;
  for (const auto& ptr : s.pointers) {
    if (ptr.symbol != "!" || ptr.pos == 0 || (ptr.source != 0 && ptr.source != number)) continue;
    const Synset target = db.synset(ptr.pos, ptr.offset);
    for (std::size_t i = 0; i < target.forms.size(); ++i)
      if (ptr.target == 0 || static_cast<int>(i) + 1 == ptr.target) out.push_back(target.forms[i]);
  }
  return out;
}

bool has_irregular_forms(std::string_view lemma, Pos pos) {
  const auto& db = database();
  return db.ok() && db.is_exception_base(std::string(lemma), static_cast<int>(pos));
}

}  // namespace probity::text::wordnet
