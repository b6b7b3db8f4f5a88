// The n-gram autoregression mechanism; the model, the cache formula and the cross-fitting are
// described in ngram_predictor.hpp.
#include "predict/ngram_predictor.hpp"

#include <fmt/format.h>
#include <utf8proc.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "probity/error.hpp"
#include "probity/signature.hpp"
#include "probity/text.hpp"
#include "util/byte_io.hpp"
#include "util/hash.hpp"
#include "util/parallel.hpp"
#include "util/random.hpp"

namespace probity::predict {
namespace {

constexpr std::uint32_t kNoClass = 0xFFFFFFFFu;
constexpr std::uint32_t kUnkClass = 0;
constexpr int kMaxFolds = 16;
constexpr int kCorpusFold = -1;  // user-corpus texts: in every model

// True when the token has a letter or a digit (13a keeps punctuation as separate tokens).
bool has_word_character(std::string_view token) {
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(token.data());
  std::size_t i = 0;
  while (i < token.size()) {
    utf8proc_int32_t cp = -1;
    const utf8proc_ssize_t len =
        utf8proc_iterate(bytes + i, static_cast<utf8proc_ssize_t>(token.size() - i), &cp);
    if (len <= 0) {
      ++i;
      continue;
    }
    i += static_cast<std::size_t>(len);
    switch (utf8proc_category(cp)) {
      case UTF8PROC_CATEGORY_LU:
      case UTF8PROC_CATEGORY_LL:
      case UTF8PROC_CATEGORY_LT:
      case UTF8PROC_CATEGORY_LM:
      case UTF8PROC_CATEGORY_LO:
      case UTF8PROC_CATEGORY_ND:
      case UTF8PROC_CATEGORY_NL:
      case UTF8PROC_CATEGORY_NO:
        return true;
      default:
        break;
    }
  }
  return false;
}

// Reads a user corpus: its lines and the FNV-1a hash of its bytes (for the signature).
std::uint64_t read_corpus(const std::string& path, std::vector<std::string>* lines) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw UsageError(
        fmt::format("corpus={}: {}", path,
                    std::filesystem::exists(path, ec) ? "not a regular file" : "no such file"));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot be opened: " + std::string(std::strerror(errno)));
  std::uint64_t hash = util::fnv1a64("");
  std::string line;
  while (std::getline(in, line)) {
    hash = util::fnv1a64(line, hash);
    if (!in.eof()) hash = util::fnv1a64("\n", hash);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (lines) lines->push_back(line);
  }
  if (in.bad()) throw InputError(path, 0, "", "read error: " + std::string(std::strerror(errno)));
  return hash;
}

// log p(w | h, x) of the adapted model, from the cache probability q and p_KN(w | h).
inline double adapted_log(double lambda, double q, double p) {
  return std::log(lambda * q + (1.0 - lambda) * p);
}

}  // namespace

// Per-thread cache counts of one candidate, reset by the touched list (no per-call allocation).
struct NgramPredictor::CacheCounts {
  std::vector<std::uint32_t> count;  // by stem class
  std::vector<std::uint32_t> touched;
  std::uint32_t total = 0;
};

// Models by excluded-fold mask. Readers take the published pointer without locking; the mutex
// only serialises building, so a model is built once and never moves.
struct NgramPredictor::ModelCache {
  explicit ModelCache(std::size_t masks)
      : ready(std::make_unique<std::atomic<const NgramLm*>[]>(masks)), built(masks) {}
  std::unique_ptr<std::atomic<const NgramLm*>[]> ready;
  std::mutex mutex;
  std::vector<std::unique_ptr<const NgramLm>> built;
};

const std::vector<double>& NgramPredictor::cache_weight_grid() {
  static const std::vector<double> grid = {0.0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7};
  return grid;
}

NgramPredictor::NgramPredictor(NgramPredictorOptions options) : options_(std::move(options)) {
  if (options_.order < 1 || options_.order > NgramLm::kMaxOrder) {
    throw std::invalid_argument(
        fmt::format("n-gram order must be in 1..{}, got {}", NgramLm::kMaxOrder, options_.order));
  }
  if (options_.folds < 2 || options_.folds > kMaxFolds) {
    throw std::invalid_argument(
        fmt::format("cross-fitting folds must be in 2..{}, got {}", kMaxFolds, options_.folds));
  }
  if (options_.cache_weight != "auto") {
    const std::string& s = options_.cache_weight;
    double v = std::numeric_limits<double>::quiet_NaN();
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || !(v >= 0.0 && v < 1.0)) {
      throw std::invalid_argument("cache weight must be 'auto' or a number in [0, 1), got '" + s +
                                  "'");
    }
    fixed_weight_ = true;
    fixed_lambda_ = v;
  }
  if (!options_.corpus.empty()) corpus_hash_ = read_corpus(options_.corpus, nullptr);
}

NgramPredictor::~NgramPredictor() = default;
NgramPredictor::NgramPredictor(NgramPredictor&&) noexcept = default;
NgramPredictor& NgramPredictor::operator=(NgramPredictor&&) noexcept = default;

std::string NgramPredictor::signature() const {
  std::string train = fmt::format("dataset-cv{}", options_.folds);
  if (!options_.corpus.empty()) {
    train +=
        fmt::format("+corpus:{}@{}", std::filesystem::path(options_.corpus).filename().string(),
                    util::hex64(corpus_hash_));
  }
  const std::string cache =
      fixed_weight_ ? fmt::format("{}", fixed_lambda_) : fmt::format("cv{}", options_.folds);
  return Signature("ar:ngram-kn")
      .field("order", options_.order)
      .field("cache", cache)
      .field("stem", options_.stem ? "yes" : "no")
      .field("norm", options_.normalize ? "yes" : "no")
      .field("train", train)
      .format();
}

std::vector<std::string> NgramPredictor::tokenize(std::string_view text) const {
  if (!options_.normalize) return text::rouge_tokenize(text, false, /*unicode_aware=*/true);
  const std::string tokenized = text::tokenize_13a(text::to_lower(text));
  std::vector<std::string> out;
  for (auto t : text::split_whitespace(tokenized)) {
    if (has_word_character(t)) out.emplace_back(t);
  }
  return out;
}

std::string NgramPredictor::stem_of(std::string_view token) const {
  // rouge-score's rule: only ASCII tokens longer than 3 characters are stemmed.
  const bool ascii = std::all_of(token.begin(), token.end(),
                                 [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  if (options_.stem && token.size() > 3 && ascii) return text::porter_stem(token);
  return std::string(token);
}

NgramLm::Id NgramPredictor::word_id(std::string_view word) const {
  auto it = word_ids_.find(word);
  return it == word_ids_.end() ? NgramLm::kUnk : it->second;
}

void NgramPredictor::count_cache(std::string_view x, CacheCounts& counts) const {
  for (std::uint32_t c : counts.touched) counts.count[c] = 0;
  counts.touched.clear();
  counts.total = 0;
  if (counts.count.size() + 1 < class_begin_.size()) counts.count.resize(class_begin_.size(), 0);
  for (const auto& t : tokenize(x)) {
    // Vocabulary words have their class precomputed; only unseen words are stemmed here.
    std::uint32_t c = class_of_[word_id(t)];
    if (c == kUnkClass) {
      auto it = class_ids_.find(stem_of(t));
      if (it != class_ids_.end()) c = it->second;
    }
    if (counts.count[c]++ == 0) counts.touched.push_back(c);
    ++counts.total;
  }
}

void NgramPredictor::count_cache(std::span<const NgramLm::Id> x, CacheCounts& counts) const {
  for (std::uint32_t c : counts.touched) counts.count[c] = 0;
  counts.touched.clear();
  counts.total = 0;
  if (counts.count.size() + 1 < class_begin_.size()) counts.count.resize(class_begin_.size(), 0);
  for (const NgramLm::Id w : x) {
    const std::uint32_t c = class_of_[w];  // training words: all in the vocabulary
    if (counts.count[c]++ == 0) counts.touched.push_back(c);
    ++counts.total;
  }
}

double NgramPredictor::cache_prob(const NgramLm& lm, const NgramLm::State& state, NgramLm::Id w,
                                  double p_w, const CacheCounts& counts) const {
  const std::uint32_t c = w < class_of_.size() ? class_of_[w] : kUnkClass;
  const std::uint32_t n = c == kNoClass ? 0 : counts.count[c];
  if (n == 0) return 0.0;
  double class_p = p_w;  // Σ p_KN(v | h) over the word forms v of w's stem
  if (class_begin_[c + 1] - class_begin_[c] > 1) {
    class_p = 0.0;
    for (std::uint32_t m = class_begin_[c]; m < class_begin_[c + 1]; ++m) {
      class_p += lm.prob(state, class_members_[m]);
    }
  }
  return static_cast<double>(n) / counts.total * (p_w / class_p);
}

NgramLm NgramPredictor::build_model(std::uint32_t excluded_folds) const {
  // Counts over the n-grams of every text, which all models share.
  NgramLm::Builder builder(table_);
  for (std::size_t i = 0; i < text_fold_.size(); ++i) {
    const int f = text_fold_[i];
    if (f == kCorpusFold || !((excluded_folds >> f) & 1u)) {
      builder.add(std::span<const NgramLm::Id>(text_ids_.data() + text_begin_[i],
                                               text_begin_[i + 1] - text_begin_[i]),
                  text_count_[i]);
    }
  }
  return std::move(builder).build();
}

const NgramLm& NgramPredictor::model(std::uint32_t excluded_folds) const {
  if (!models_) throw std::logic_error("NgramPredictor used before fit()");
  if (excluded_folds >= (1u << num_folds_)) throw std::out_of_range("fold mask out of range");
  if (const NgramLm* lm = models_->ready[excluded_folds].load(std::memory_order_acquire)) {
    return *lm;
  }
  std::lock_guard lock(models_->mutex);
  if (const NgramLm* lm = models_->ready[excluded_folds].load(std::memory_order_relaxed)) {
    return *lm;
  }
  auto& slot = models_->built[excluded_folds];
  slot = std::make_unique<const NgramLm>(build_model(excluded_folds));
  models_->ready[excluded_folds].store(slot.get(), std::memory_order_release);
  return *slot;
}

// What fitting keeps between chunks: which texts each task has (as indices), to compute the
// held-out log-likelihoods once the models exist, without reading the tasks again.
struct NgramPredictor::FitState {
  static constexpr std::uint32_t kNoTokens = 0xFFFFFFFFu;  // a text without tokens
  bool statement_targets = false;
  std::size_t tasks = 0;  // seen so far
  // Distinct training texts by a hash of (fold, ids), to count repeated texts once.
  std::unordered_multimap<std::uint64_t, std::uint32_t> text_index;
  std::vector<NgramLm::Id> ids;  // scratch
  // Per task (CSR): its candidates as training texts, and its targets, which are training
  // texts (its references) or, for statement targets, distinct statements (tokenized once the
  // vocabulary is complete).
  std::vector<std::uint32_t> candidates, targets;
  std::vector<std::size_t> candidates_begin{0}, targets_begin{0};
  std::unordered_map<std::string, std::uint32_t> statement_index;
  std::vector<const std::string*> statements;
};

void NgramPredictor::fit(std::span<const Task> tasks, bool statement_targets) {
  mi::fit_by_passes(*this, tasks, statement_targets);
}

void NgramPredictor::begin_fit(bool statement_targets) {
  fitted_ = false;
  models_.reset();
  table_.reset();
  num_folds_ = 0;
  words_ = {"<s>", "</s>", "<unk>"};
  word_ids_.clear();
  text_ids_.clear();
  text_begin_.assign(1, 0);
  text_fold_.clear();
  text_count_.clear();
  text_folds_.clear();
  task_ll_.clear();
  fit_ = std::make_unique<FitState>();
  fit_->statement_targets = statement_targets;
}

void NgramPredictor::fit_chunk(std::size_t /*pass*/, std::span<const Task> tasks) {
  if (!fit_) throw std::logic_error("NgramPredictor::fit_chunk without begin_fit");
  try {
    count_texts(tasks);
  } catch (...) {
    fit_.reset();
    throw;
  }
}

void NgramPredictor::end_fit_pass(std::size_t /*pass*/) {
  if (!fit_) throw std::logic_error("NgramPredictor::end_fit_pass without begin_fit");
  try {
    build_fold_models();
    if (!fixed_weight_) choose_cache_weights();
    fit_.reset();
    fitted_ = true;
  } catch (...) {
    fit_.reset();
    models_.reset();
    throw;
  }
}

void NgramPredictor::count_texts(std::span<const Task> tasks) {
  FitState& st = *fit_;
  // Task t is in fold t mod K whatever the number of tasks: with fewer than K tasks, t < K.
  const auto folds = static_cast<std::size_t>(options_.folds);
  for (const Task& task : tasks) {
    const int fold = static_cast<int>(st.tasks++ % folds);
    add_training_text(task.source, fold);
    for (const auto& r : task.references) {
      const std::uint32_t text = add_training_text(r.text, fold);
      if (!st.statement_targets) st.targets.push_back(text);
    }
    for (const auto& c : task.candidates) st.candidates.push_back(add_training_text(c.text, fold));
    // The text → folds lookup used at scoring time.
    const std::uint32_t bit = 1u << fold;
    auto mark = [&](const std::string& text) {
      auto it = text_folds_.find(std::string_view(text));
      if (it == text_folds_.end())
        text_folds_.emplace(text, bit);
      else
        it->second |= bit;
    };
    if (!task.source.empty()) mark(task.source);
    for (const auto& c : task.candidates) mark(c.text);
    for (const auto& r : task.references) {
      mark(r.text);
      if (!st.statement_targets) continue;
      for (auto& statement : mi::decompose_statements(r.text)) {
        mark(statement);
        auto [it, added] = st.statement_index.try_emplace(
            std::move(statement), static_cast<std::uint32_t>(st.statements.size()));
        if (added) st.statements.push_back(&it->first);
        st.targets.push_back(it->second);
      }
    }
    st.candidates_begin.push_back(st.candidates.size());
    st.targets_begin.push_back(st.targets.size());
  }
}

std::uint32_t NgramPredictor::add_training_text(std::string_view text, int fold) {
  FitState& st = *fit_;
  st.ids.clear();
  for (auto& t : tokenize(text)) {
    auto [it, inserted] = word_ids_.try_emplace(t, static_cast<NgramLm::Id>(words_.size()));
    if (inserted) words_.push_back(std::move(t));
    st.ids.push_back(it->second);
  }
  if (st.ids.empty()) return FitState::kNoTokens;
  std::uint64_t h = util::mix64(static_cast<std::uint64_t>(fold - kCorpusFold));
  for (NgramLm::Id id : st.ids) h = util::mix64(h ^ id);
  auto [first, last] = st.text_index.equal_range(h);
  for (auto it = first; it != last; ++it) {
    const std::uint32_t i = it->second;
    if (text_fold_[i] == fold &&
        std::equal(text_ids_.begin() + static_cast<std::ptrdiff_t>(text_begin_[i]),
                   text_ids_.begin() + static_cast<std::ptrdiff_t>(text_begin_[i + 1]),
                   st.ids.begin(), st.ids.end())) {
      if (text_count_[i] == std::numeric_limits<std::uint32_t>::max())
        throw std::length_error("n-gram training text repeated too often");
      ++text_count_[i];
      return i;
    }
  }
  if (text_fold_.size() >= FitState::kNoTokens)
    throw std::length_error("too many n-gram training texts");
  const auto i = static_cast<std::uint32_t>(text_fold_.size());
  st.text_index.emplace(h, i);
  text_ids_.insert(text_ids_.end(), st.ids.begin(), st.ids.end());
  text_begin_.push_back(text_ids_.size());
  text_fold_.push_back(fold);
  text_count_.push_back(1);
  return i;
}

void NgramPredictor::build_fold_models() {
  FitState& st = *fit_;
  num_folds_ = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(options_.folds),
                                                      std::max<std::size_t>(st.tasks, 1)));
  if (!options_.corpus.empty()) {
    std::vector<std::string> lines;
    if (read_corpus(options_.corpus, &lines) != corpus_hash_) {
      throw std::runtime_error("n-gram corpus '" + options_.corpus +
                               "' changed since the predictor was configured");
    }
    for (const auto& line : lines) add_training_text(line, kCorpusFold);
  }
  std::unordered_multimap<std::uint64_t, std::uint32_t>().swap(st.text_index);
  build_models();
}

void NgramPredictor::build_models() {
  const std::size_t num_masks = std::size_t{1} << num_folds_;
  // ---- stem classes of the vocabulary
  class_ids_.clear();
  class_of_.assign(words_.size(), kNoClass);
  class_of_[NgramLm::kUnk] = kUnkClass;
  std::uint32_t num_classes = 1;
  for (std::size_t w = NgramLm::kUnk + 1; w < words_.size(); ++w) {
    auto [it, inserted] = class_ids_.try_emplace(stem_of(words_[w]), num_classes);
    if (inserted) ++num_classes;
    class_of_[w] = it->second;
  }
  class_begin_.assign(num_classes + 1, 0);
  for (std::uint32_t c : class_of_) {
    if (c != kNoClass) ++class_begin_[c + 1];
  }
  for (std::uint32_t c = 0; c < num_classes; ++c) class_begin_[c + 1] += class_begin_[c];
  class_members_.assign(class_begin_.back(), 0);
  {
    std::vector<std::uint32_t> fill(class_begin_.begin(), class_begin_.end() - 1);
    for (std::size_t w = 0; w < words_.size(); ++w) {
      if (class_of_[w] != kNoClass) {
        class_members_[fill[class_of_[w]]++] = static_cast<NgramLm::Id>(w);
      }
    }
  }

  // ---- the n-grams of every text (the predictor's vocabulary, whose strings it keeps once),
  // shared by the models, which hold only their counts
  {
    NgramLm::Builder all(options_.order, words_.size());
    for (std::size_t i = 0; i < text_fold_.size(); ++i)
      all.add(std::span<const NgramLm::Id>(text_ids_.data() + text_begin_[i],
                                           text_begin_[i + 1] - text_begin_[i]));
    table_ = std::move(all).table();
  }

  // ---- the models without one fold each (what the fit and the own-task pairs use)
  models_ = std::make_unique<ModelCache>(num_masks);
  std::vector<NgramLm> fold_models(static_cast<std::size_t>(num_folds_));
  util::parallel_for(
      fold_models.size(), 0, [&](std::size_t f) { fold_models[f] = build_model(1u << f); }, 1);
  for (std::size_t f = 0; f < fold_models.size(); ++f) {
    models_->built[1u << f] = std::make_unique<const NgramLm>(std::move(fold_models[f]));
    models_->ready[1u << f].store(models_->built[1u << f].get(), std::memory_order_release);
  }
  lambda_by_mask_.assign(num_masks, fixed_lambda_);
}

// λ for every set of excluded folds: the grid value maximising the held-out log-likelihood
// Σ log p(y | x) of the (candidate, own-task target) pairs of the other folds, each task's pairs
// evaluated with the model without its fold; ties to the smaller λ.
void NgramPredictor::choose_cache_weights() {
  const FitState& st = *fit_;
  using Ids = std::span<const NgramLm::Id>;
  auto training_text = [&](std::uint32_t i) {
    if (i == FitState::kNoTokens) return Ids();
    return Ids(text_ids_.data() + text_begin_[i], text_begin_[i + 1] - text_begin_[i]);
  };
  // Targets as ids: training texts, or statements tokenized over the complete vocabulary.
  std::vector<NgramLm::Id> statement_ids;
  std::vector<std::size_t> statement_begin{0};
  for (const std::string* statement : st.statements) {
    for (const auto& tok : tokenize(*statement)) statement_ids.push_back(word_id(tok));
    statement_begin.push_back(statement_ids.size());
  }
  auto target_ids = [&](std::uint32_t i) {
    if (!st.statement_targets) return training_text(i);
    return Ids(statement_ids.data() + statement_begin[i],
               statement_begin[i + 1] - statement_begin[i]);
  };

  const auto& grid = cache_weight_grid();
  task_ll_.assign(st.tasks, std::vector<double>(grid.size(), 0.0));
  util::parallel_for(
      st.tasks, 0,
      [&](std::size_t t) {
        const NgramLm& lm = model(1u << fold_of_task(t));
        // Per target token: p_KN(w | h), its share of its stem class and the class.
        struct Target {
          std::vector<double> p, share;
          std::vector<std::uint32_t> cls;
        };
        std::vector<Target> prepared(st.targets_begin[t + 1] - st.targets_begin[t]);
        std::vector<NgramLm::Id> padded;
        for (std::size_t k = 0; k < prepared.size(); ++k) {
          const Ids ids = target_ids(st.targets[st.targets_begin[t] + k]);
          padded.assign(1, NgramLm::kBos);
          padded.insert(padded.end(), ids.begin(), ids.end());
          padded.push_back(NgramLm::kEos);
          const auto history = static_cast<std::size_t>(lm.order() - 1);
          for (std::size_t j = 1; j < padded.size(); ++j) {
            const std::size_t begin = j > history ? j - history : 0;
            const auto state =
                lm.state(std::span<const NgramLm::Id>(padded.data() + begin, j - begin));
            const NgramLm::Id w = padded[j];
            const double p = lm.prob(state, w);
            const std::uint32_t c = class_of_[w];
            double class_p = p;
            if (c != kNoClass && class_begin_[c + 1] - class_begin_[c] > 1) {
              class_p = 0.0;
              for (std::uint32_t m = class_begin_[c]; m < class_begin_[c + 1]; ++m) {
                class_p += lm.prob(state, class_members_[m]);
              }
            }
            prepared[k].p.push_back(p);
            prepared[k].share.push_back(p / class_p);
            prepared[k].cls.push_back(c);
          }
        }
        auto& ll = task_ll_[t];
        thread_local CacheCounts counts;
        for (std::size_t c = st.candidates_begin[t]; c < st.candidates_begin[t + 1]; ++c) {
          count_cache(training_text(st.candidates[c]), counts);
          for (const Target& target : prepared) {
            for (std::size_t j = 0; j < target.p.size(); ++j) {
              const double p = target.p[j];
              if (counts.total == 0) {  // an empty candidate leaves the model unadapted
                for (double& v : ll) v += std::log(p);
                continue;
              }
              const std::uint32_t cls = target.cls[j];
              const std::uint32_t n = cls == kNoClass ? 0 : counts.count[cls];
              const double q = static_cast<double>(n) / counts.total * target.share[j];
              for (std::size_t g = 0; g < grid.size(); ++g) ll[g] += adapted_log(grid[g], q, p);
            }
          }
        }
      },
      1);

  const auto k_folds = static_cast<std::size_t>(num_folds_);
  std::vector<std::vector<double>> fold_ll(k_folds, std::vector<double>(grid.size(), 0.0));
  std::vector<bool> fold_has_pairs(k_folds, false);
  for (std::size_t t = 0; t < st.tasks; ++t) {
    if (st.candidates_begin[t + 1] == st.candidates_begin[t] ||
        st.targets_begin[t + 1] == st.targets_begin[t])
      continue;
    const auto f = static_cast<std::size_t>(fold_of_task(t));
    fold_has_pairs[f] = true;
    for (std::size_t g = 0; g < grid.size(); ++g) fold_ll[f][g] += task_ll_[t][g];
  }
  for (std::size_t mask = 0; mask < lambda_by_mask_.size(); ++mask) {
    std::vector<double> sum(grid.size(), 0.0);
    bool any = false;
    for (std::size_t f = 0; f < k_folds; ++f) {
      if (((mask >> f) & 1u) || !fold_has_pairs[f]) continue;
      any = true;
      for (std::size_t g = 0; g < grid.size(); ++g) sum[g] += fold_ll[f][g];
    }
    if (!any) {  // no held-out pairs: the prior λ
      lambda_by_mask_[mask] = kPriorCacheWeight;
      continue;
    }
    std::size_t best = 0;
    for (std::size_t g = 1; g < grid.size(); ++g) {
      if (sum[g] > sum[best]) best = g;
    }
    lambda_by_mask_[mask] = grid[best];
  }
}

std::string NgramPredictor::fit_method() const {
  return fmt::format("ngram-kn-cv{}", options_.folds);
}

std::pair<std::size_t, std::string> NgramPredictor::fit_minimum() const {
  // Cross-fitting puts task t in fold t mod K; λ of each fold set is chosen on the held-out
  // pairs of the other folds. With fewer than 2K tasks some fold holds one task (or none: the
  // folds shrink), and a fold model or a λ then rests on a single task's texts.
  return {2 * static_cast<std::size_t>(options_.folds),
          fmt::format("cross-fitting over {} folds needs at least two tasks per fold, or a fold "
                      "model and its cache weight rest on one task",
                      options_.folds)};
}

namespace {
constexpr std::uint32_t kStateFormat = 1;
}

// The training texts as word ids (the n-gram counts follow from them), the text -> folds lookup
// (sorted, so equal fits give equal bytes) and the chosen cache weights.
std::string NgramPredictor::save_fit() const {
  check_fitted();
  util::ByteWriter w;
  w.u32(kStateFormat);
  w.u32(static_cast<std::uint32_t>(num_folds_));
  w.u64(words_.size());
  for (const auto& word : words_) w.str(word);
  w.u64(text_fold_.size());
  for (std::size_t i = 0; i < text_fold_.size(); ++i) {
    w.u32(static_cast<std::uint32_t>(text_fold_[i] - kCorpusFold));
    w.u32(text_count_[i]);
    w.u64(text_begin_[i + 1] - text_begin_[i]);
    for (std::size_t k = text_begin_[i]; k < text_begin_[i + 1]; ++k) w.u32(text_ids_[k]);
  }
  std::vector<std::pair<std::string_view, std::uint32_t>> folds(text_folds_.begin(),
                                                                text_folds_.end());
  std::sort(folds.begin(), folds.end());
  w.u64(folds.size());
  for (const auto& [text, mask] : folds) {
    w.str(text);
    w.u32(mask);
  }
  w.u64(lambda_by_mask_.size());
  for (double lambda : lambda_by_mask_) w.f64(lambda);
  return w.take();
}

void NgramPredictor::load_fit(std::string_view state) {
  util::ByteReader r(state);
  if (const std::uint32_t format = r.u32("the state format"); format != kStateFormat)
    throw std::invalid_argument(
        fmt::format("n-gram state format {} (this probity reads {})", format, kStateFormat));
  const auto folds = r.u32("the number of folds");
  if (folds < 1 || folds > static_cast<std::uint32_t>(options_.folds))
    throw std::invalid_argument(
        fmt::format("n-gram state: {} folds, not 1..folds={}", folds, options_.folds));
  std::vector<std::string> words(r.count("the vocabulary", 8));
  for (auto& word : words) word = r.str("a vocabulary word");
  if (words.size() < 3 || words[0] != "<s>" || words[1] != "</s>" || words[2] != "<unk>")
    throw std::invalid_argument("n-gram state: the vocabulary does not start <s> </s> <unk>");
  util::StringMap<NgramLm::Id> word_ids;
  for (std::size_t i = NgramLm::kUnk + 1; i < words.size(); ++i)
    if (!word_ids.try_emplace(words[i], static_cast<NgramLm::Id>(i)).second)
      throw std::invalid_argument("n-gram state: a word twice in the vocabulary");
  const std::size_t texts = r.count("the training texts", 16);
  std::vector<NgramLm::Id> text_ids;
  std::vector<std::size_t> text_begin{0};
  std::vector<int> text_fold;
  std::vector<std::uint32_t> text_count;
  for (std::size_t i = 0; i < texts; ++i) {
    const int fold = static_cast<int>(r.u32("a text's fold")) + kCorpusFold;
    if (fold < kCorpusFold || fold >= static_cast<int>(folds))
      throw std::invalid_argument("n-gram state: a text's fold is out of range");
    text_fold.push_back(fold);
    text_count.push_back(r.u32("a text's count"));
    const std::size_t length = r.count("a text's length", 4);
    for (std::size_t k = 0; k < length; ++k) {
      const NgramLm::Id id = r.u32("a word id");
      if (id <= NgramLm::kUnk || id >= words.size())
        throw std::invalid_argument("n-gram state: a word id outside the vocabulary");
      text_ids.push_back(id);
    }
    text_begin.push_back(text_ids.size());
  }
  util::StringMap<std::uint32_t> text_folds;
  const std::size_t marked = r.count("the text folds", 12);
  for (std::size_t i = 0; i < marked; ++i) {
    std::string text = r.str("a text");
    const std::uint32_t mask = r.u32("a text's folds");
    if (mask == 0 || mask >= (1u << folds))
      throw std::invalid_argument("n-gram state: a text's fold mask is out of range");
    text_folds.emplace(std::move(text), mask);
  }
  std::vector<double> lambdas(r.count("the cache weights", 8));
  for (double& lambda : lambdas) {
    lambda = r.f64("a cache weight");
    if (!(lambda >= 0 && lambda < 1))
      throw std::invalid_argument("n-gram state: a cache weight outside [0, 1)");
  }
  if (lambdas.size() != (std::size_t{1} << folds))
    throw std::invalid_argument("n-gram state: not one cache weight per set of folds");
  r.finish("the n-gram state");

  fit_.reset();
  task_ll_.clear();
  num_folds_ = static_cast<int>(folds);
  words_ = std::move(words);
  word_ids_ = std::move(word_ids);
  text_ids_ = std::move(text_ids);
  text_begin_ = std::move(text_begin);
  text_fold_ = std::move(text_fold);
  text_count_ = std::move(text_count);
  text_folds_ = std::move(text_folds);
  build_models();
  lambda_by_mask_ = std::move(lambdas);
  fitted_ = true;
}

void NgramPredictor::check_fitted() const {
  if (!fitted_) throw std::logic_error("NgramPredictor used before fit()");
}

int NgramPredictor::fold_of_task(std::size_t task_index) const {
  return num_folds_ == 0 ? 0 : static_cast<int>(task_index % static_cast<std::size_t>(num_folds_));
}

std::uint32_t NgramPredictor::fold_mask(std::string_view text) const {
  auto it = text_folds_.find(text);
  return it == text_folds_.end() ? 0 : it->second;
}

double NgramPredictor::cache_weight_without(std::uint32_t excluded_folds) const {
  check_fitted();
  return lambda_by_mask_.at(excluded_folds);
}

NgramPredictor::Score NgramPredictor::score(std::string_view x, std::string_view y) const {
  check_fitted();
  Score out;
  out.excluded_folds = fold_mask(x) | fold_mask(y);
  out.cache_weight = lambda_by_mask_[out.excluded_folds];
  const double lambda = out.cache_weight;
  const NgramLm& lm = model(out.excluded_folds);

  thread_local CacheCounts counts;
  count_cache(x, counts);
  thread_local std::vector<NgramLm::Id> padded;
  padded.assign(1, NgramLm::kBos);
  for (const auto& t : tokenize(y)) padded.push_back(word_id(t));
  padded.push_back(NgramLm::kEos);

  const auto history = static_cast<std::size_t>(lm.order() - 1);
  for (std::size_t i = 1; i < padded.size(); ++i) {
    const std::size_t begin = i > history ? i - history : 0;
    const auto state = lm.state(std::span<const NgramLm::Id>(padded.data() + begin, i - begin));
    const NgramLm::Id w = padded[i];
    const double p = lm.prob(state, w);
    const double log_p = std::log(p);
    // An empty candidate leaves the model unadapted.
    const double log_adapted =
        counts.total == 0 ? log_p : adapted_log(lambda, cache_prob(lm, state, w, p, counts), p);
    out.log_p_y += log_p;
    out.log_p_y_given_x += log_adapted;
    out.pmi += log_adapted - log_p;
  }
  out.tokens = padded.size() - 1;
  return out;
}

double NgramPredictor::adapted_prob(std::string_view x, std::span<const NgramLm::Id> context,
                                    NgramLm::Id w, double lambda,
                                    std::uint32_t excluded_folds) const {
  const NgramLm& lm = model(excluded_folds);
  thread_local CacheCounts counts;
  count_cache(x, counts);
  const auto state = lm.state(context);
  const double p = lm.prob(state, w);
  if (counts.total == 0) return p;
  return lambda * cache_prob(lm, state, w, p, counts) + (1.0 - lambda) * p;
}

double NgramPredictor::log_ratio(std::string_view x, std::string_view y) const {
  return score(x, y).pmi;
}

int NgramPredictor::critic(std::string_view x, std::string_view y) const {
  return log_ratio(x, y) > 0 ? 1 : -1;
}

}  // namespace probity::predict
