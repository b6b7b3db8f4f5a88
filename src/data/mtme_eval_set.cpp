// Reads one test set and language pair of mt-metrics-eval's (MTME's) layout whole, with the
// rules of MTME's data.EvalSet._ReadDataset, ReadScoreFile, ReadDomainScoreFile, CheckScores,
// ParseHumanScoreFilename, ParseMetricFilename and ParseMetricName (data.py at commit
// 68a481aea1a787392d55af8f76ac8ef40c5f4664), each difference said where it is made.
#include "data/mtme_eval_set.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "probity/dataset.hpp"

namespace probity {
namespace {

namespace fs = std::filesystem;
constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
// MTME reads a text line holding exactly this as None.
constexpr std::string_view kNoTranslation = "[No translation supplied]";

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// Lines as Python's text mode gives them (\n, \r\n and \r end a line), each rstrip()ped as
// MTME does. Python's rstrip also strips non-ASCII whitespace; this strips ASCII only.
std::vector<std::string> read_lines(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string(), 0, "", "cannot open file");
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string text = buf.str();
  std::vector<std::string> lines;
  std::size_t b = 0;
  auto push = [&](std::size_t e) {
    std::string_view s(text.data() + b, e - b);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    lines.emplace_back(s);
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n' && text[i] != '\r') continue;
    push(i);
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
    b = i + 1;
  }
  if (b < text.size()) push(text.size());
  return lines;
}

std::vector<std::string> split_ws(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    const std::size_t b = i;
    while (i < s.size() && !is_space(s[i])) ++i;
    if (i > b) out.emplace_back(s.substr(b, i - b));
  }
  return out;
}

// Python's float() on MTME's score text: sign, decimal or exponent notation, inf/infinity/nan
// in any case. (Python also takes '_' between digits; rejected here.)
bool parse_python_float(std::string s, double& out) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.erase(0, 1);
  }
  std::string lower;
  for (char c : s) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (lower == "inf" || lower == "infinity") {
    out = negative ? -HUGE_VAL : HUGE_VAL;
    return true;
  }
  if (lower == "nan") {
    out = kNone;
    return true;
  }
  if (s.empty() || s[0] == '+' || s[0] == '-') return false;
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (end != s.data() + s.size()) return false;
  // Out of range: Python gives inf or 0 like strtod; from_chars reports it.
  if (ec == std::errc::result_out_of_range)
    v = std::strtod(s.c_str(), nullptr);
  else if (ec != std::errc())
    return false;
  out = negative ? -v : v;
  return true;
}

// Regular files of `dir` whose names match prefix*suffix (no hidden files, as glob), sorted.
std::vector<fs::path> glob(const fs::path& dir, const std::string& prefix,
                           const std::string& suffix, std::size_t min_middle = 0) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string f = e.path().filename().string();
    if (!e.is_regular_file() || f.empty() || f[0] == '.') continue;
    if (f.size() < prefix.size() + suffix.size() + min_middle) continue;
    if (f.rfind(prefix, 0) != 0 || !f.ends_with(suffix)) continue;
    out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A text file of MTME: .txt lines, or .jsonl with one object per line holding `field`.
std::vector<std::string> read_texts(const fs::path& path, const std::string& field) {
  const std::string ext = path.extension().string();
  std::vector<std::string> lines = read_lines(path);
  if (ext == ".txt") {
    for (auto& l : lines)
      if (l == kNoTranslation) l.clear();
    return lines;
  }
  if (ext != ".jsonl")
    throw InputError(path.string(), 0, "",
                     fmt::format("unsupported file type '{}' (MTME reads .txt and .jsonl)", ext));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(lines[i]);
    } catch (const nlohmann::json::exception&) {
      throw InputError(path.string(), i + 1, "", "not a JSON object");
    }
    if (!j.is_object() || !j.contains(field) || !j[field].is_string())
      throw InputError(path.string(), i + 1, field, "missing or not a string");
    out.push_back(j[field].get<std::string>());
  }
  return out;
}

const std::vector<std::string>& levels() {
  static const std::vector<std::string> l{"sys", "domain", "doc", "seg"};
  return l;
}

// A score file read: scores by system (in order of appearance within a system) and, per system,
// the line of each score (for messages).
struct ScoreFile {
  MtmeScores scores;
  std::map<std::string, std::vector<std::size_t>> lines;
  std::map<std::string, std::vector<bool>> domain_given;  // domain files: which domains a line gave
};

double score_cell(const std::string& cell, const fs::path& path, std::size_t line, bool human) {
  if (cell == "None") {
    if (!human)
      throw InputError(path.string(), line, "score",
                       "None in a metric score file (only human scores may be missing)");
    return kNone;
  }
  double v = 0;
  if (!parse_python_float(cell, v))
    throw InputError(path.string(), line, "score", fmt::format("'{}' is not a number", cell));
  // NaN stands for None here, so a human file must not hold a literal nan (MTME would keep it
  // as a number and not filter it).
  if (human && std::isnan(v))
    throw InputError(path.string(), line, "score",
                     "'nan' in a human score file (write None for a missing score)");
  return v;
}

// ReadScoreFile: SYSTEM SCORE per line (any whitespace), scores appended per system.
ScoreFile read_score_file(const fs::path& path, bool human) {
  ScoreFile f;
  const auto lines = read_lines(path);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto cols = split_ws(lines[i]);
    if (cols.size() != 2)
      throw InputError(path.string(), i + 1, "",
                       fmt::format("{} column(s), expected 2: SYSTEM SCORE", cols.size()));
    f.scores[cols[0]].push_back(score_cell(cols[1], path, i + 1, human));
    f.lines[cols[0]].push_back(i + 1);
  }
  return f;
}

// ReadDomainScoreFile: DOMAIN SYSTEM SCORE per line; absent (domain, system) pairs are None, a
// repeated pair keeps its last score.
ScoreFile read_domain_score_file(const fs::path& path, const std::vector<std::string>& domains,
                                 bool human) {
  ScoreFile f;
  const auto lines = read_lines(path);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto cols = split_ws(lines[i]);
    if (cols.size() != 3)
      throw InputError(path.string(), i + 1, "",
                       fmt::format("{} column(s), expected 3: DOMAIN SYSTEM SCORE", cols.size()));
    const auto it = std::find(domains.begin(), domains.end(), cols[0]);
    if (it == domains.end())
      throw InputError(path.string(), i + 1, "domain",
                       fmt::format("unknown domain '{}' (domains of the documents file: {})",
                                   cols[0], fmt::join(domains, ", ")));
    auto& s = f.scores[cols[1]];
    auto& given = f.domain_given[cols[1]];
    if (s.empty()) {
      s.assign(domains.size(), kNone);
      given.assign(domains.size(), false);
    }
    const auto d = static_cast<std::size_t>(it - domains.begin());
    s[d] = score_cell(cols[2], path, i + 1, human);
    given[d] = true;
    f.lines[cols[1]].push_back(i + 1);
  }
  return f;
}

// Runs of equal consecutive items: [(item, begin, end)].
std::vector<std::tuple<std::string, std::size_t, std::size_t>> runs(
    const std::vector<std::string>& items) {
  std::vector<std::tuple<std::string, std::size_t, std::size_t>> out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (out.empty() || std::get<0>(out.back()) != items[i]) out.emplace_back(items[i], i, i);
    std::get<2>(out.back()) = i + 1;
  }
  return out;
}

class Reader {
 public:
  Reader(const std::string& dir, const std::string& lp, const MtmeReadOptions& options)
      : root_(dir), options_(options) {
    es_.lp = lp;
    es_.test_set = fs::path(dir).lexically_normal().filename().string();
    if (es_.test_set.empty()) es_.test_set = fs::path(dir).parent_path().filename().string();
  }

  MtmeEvalSet read() {
    if (!fs::is_directory(root_))
      throw InputError(root_.string(), 0, "",
                       "not a directory (expected an mt-metrics-eval test-set directory such "
                       "as mt-metrics-eval-v2/wmt24)");
    read_documents();
    read_sources();
    read_references();
    read_systems();
    read_human_scores();
    if (options_.read_ratings) read_ratings();
    if (options_.read_metric_scores) read_metric_scores();
    return std::move(es_);
  }

 private:
  const std::string& lp() const { return es_.lp; }

  void read_documents() {
    const fs::path path = root_ / "documents" / (lp() + ".docs");
    if (!fs::is_regular_file(path))
      throw InputError(path.string(), 0, "",
                       fmt::format("no such file (every language pair has one; is '{}' a "
                                   "language pair of this test set?)",
                                   lp()));
    const auto lines = read_lines(path);
    std::vector<std::string> domains, docs;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const auto cols = split_ws(lines[i]);
      if (cols.size() < 2) throw InputError(path.string(), i + 1, "", "expected DOMAIN DOCNAME");
      domains.push_back(cols[0]);
      docs.push_back(cols[1]);
    }
    doc_lines_ = lines.size();
    for (const auto& [doc, b, e] : runs(docs)) {
      if (std::find(es_.doc_names.begin(), es_.doc_names.end(), doc) != es_.doc_names.end())
        throw InputError(path.string(), b + 1, "document",
                         fmt::format("document '{}' resumes after another: a document's "
                                     "segments must be contiguous",
                                     doc));
      es_.doc_names.push_back(doc);
      es_.doc_bounds.emplace_back(b, e);
    }
    std::map<std::string, std::vector<std::pair<std::size_t, std::size_t>>> by_domain;
    for (const auto& [dom, b, e] : runs(domains)) by_domain[dom].emplace_back(b, e);
    for (auto& [dom, bounds] : by_domain) {  // sorted by name, as MTME canonicalizes them
      es_.domain_names.push_back(dom);
      es_.domain_bounds.push_back(std::move(bounds));
    }
  }

  void read_sources() {
    const fs::path txt = root_ / "sources" / (lp() + ".txt");
    const fs::path jsonl = root_ / "sources" / (lp() + ".jsonl");
    if (fs::is_regular_file(txt))
      es_.src = read_texts(txt, "source");
    else if (fs::is_regular_file(jsonl))
      es_.src = read_texts(jsonl, "source");
    else
      throw InputError(txt.string(), 0, "", "no such file (nor a .jsonl one)");
    src_path_ = fs::is_regular_file(txt) ? txt : jsonl;
    // MTME does not compare the two; a documents file of another length breaks its doc and
    // domain positions, so it is an error here.
    if (doc_lines_ != es_.src.size())
      throw InputError((root_ / "documents" / (lp() + ".docs")).string(),
                       std::min(doc_lines_, es_.src.size()) + 1, "",
                       fmt::format("{} lines, but '{}' has {} segments: one line per segment",
                                   doc_lines_, src_path_.string(), es_.src.size()));
  }

  void same_length(const std::vector<std::string>& lines, const fs::path& path) const {
    if (lines.size() != es_.src.size())
      throw InputError(path.string(), std::min(lines.size(), es_.src.size()) + 1, "",
                       fmt::format("{} lines, but '{}' has {}: line i of every file is segment i",
                                   lines.size(), src_path_.string(), es_.src.size()));
  }

  void read_references() {
    for (const auto& path : glob(root_ / "references", lp() + ".", "", 3)) {
      // MTME's glob is <lp>.*.*: the name is the second-to-last dotted part.
      const std::string f = path.filename().string();
      const std::string rest = f.substr(lp().size() + 1);
      const std::size_t dot = rest.rfind('.');
      if (dot == std::string::npos || dot == 0) continue;
      const std::string before = rest.substr(0, dot);
      const std::string name = before.substr(before.rfind('.') + 1);
      if (name.find('-') != std::string::npos || name == "all" || name == "src")
        throw InputError(path.string(), 0, "reference",
                         fmt::format("invalid reference name '{}' (names cannot be 'all' or "
                                     "'src' or contain '-')",
                                     name));
      if (es_.refs.count(name))
        throw InputError(path.string(), 0, "reference",
                         fmt::format("duplicate reference name '{}'", name));
      auto lines = read_texts(path, "target");
      same_length(lines, path);
      es_.refs.emplace(name, std::move(lines));
      es_.ref_names.insert(name);
    }
  }

  void read_systems() {
    for (const auto& path : glob(root_ / "system-outputs" / lp(), "", "")) {
      const std::string f = path.filename().string();
      const std::size_t dot = f.rfind('.');
      if (dot == std::string::npos) continue;  // MTME's glob is *.*
      const std::string name = f.substr(0, dot);
      auto lines = read_texts(path, "hypothesis");
      same_length(lines, path);
      es_.sys_outputs[name] = std::move(lines);
      es_.sys_names.insert(name);
      if (es_.ref_names.count(name)) es_.human_systems.insert(name);
    }
  }

  // CheckScores (without the repair, done by the caller for metrics).
  void check_scores(const ScoreFile& f, const fs::path& path, const std::string& level,
                    bool human) const {
    const std::size_t expected = es_.units(level);
    for (const auto& [sys, scores] : f.scores) {
      const auto& lines = f.lines.at(sys);
      if (!es_.sys_names.count(sys))
        throw InputError(
            path.string(), lines.front(), "system",
            fmt::format("unknown system '{}' (no system-outputs/{}/{}.txt)", sys, lp(), sys));
      if (scores.size() != expected)
        throw InputError(
            path.string(), scores.size() > expected ? lines[expected] : lines.back(), "system",
            fmt::format("{} {} score(s) for system '{}', expected {} (one per {})",
                        scores.size() > expected ? "more than" : "only",
                        scores.size() > expected ? expected : scores.size(), sys, expected,
                        level == "sys"   ? "system"
                        : level == "seg" ? "segment"
                                         : level));
      // MTME: "contains None elements"; in a domain file, a domain without a line is None.
      if (!human && level == "domain") {
        const auto& given = f.domain_given.at(sys);
        for (std::size_t d = 0; d < given.size(); ++d)
          if (!given[d])
            throw InputError(path.string(), lines.back(), "domain",
                             fmt::format("no score for system '{}' in domain '{}' (metric "
                                         "files score every domain)",
                                         sys, es_.domain_names[d]));
      }
    }
  }

  void read_human_scores() {
    for (const auto& path : glob(root_ / "human-scores", lp() + ".", ".score", 1)) {
      // ParseHumanScoreFilename: LP.NAME.LEVEL.score, NAME may hold dots.
      const std::string f = path.filename().string();
      std::vector<std::string> toks;
      std::size_t b = 0;
      for (std::size_t i = 0; i <= f.size(); ++i)
        if (i == f.size() || f[i] == '.') {
          toks.push_back(f.substr(b, i - b));
          b = i + 1;
        }
      if (toks.size() < 4)
        throw InputError(path.string(), 0, "",
                         "bad name for human scores (expected LP.NAME.LEVEL.score)");
      std::string name = toks[1];
      for (std::size_t i = 2; i + 2 < toks.size(); ++i) name += "." + toks[i];
      const std::string& level = toks[toks.size() - 2];
      if (std::find(levels().begin(), levels().end(), level) == levels().end())
        throw InputError(path.string(), 0, "level",
                         fmt::format("unknown level '{}' (sys, domain, doc or seg)", level));
      ScoreFile sf = level == "domain" ? read_domain_score_file(path, es_.domain_names, true)
                                       : read_score_file(path, true);
      check_scores(sf, path, level, true);
      es_.human_score_names.insert(name);
      es_.human_scores[level][name] = std::move(sf.scores);
    }
  }

  void read_ratings() {
    for (const auto& path : glob(root_ / "human-scores", lp() + ".", ".rating", 1)) {
      // ParseHumanScoreFilename(rating_file=True); MTME asserts the level is seg.
      const std::string f = path.filename().string();
      const std::string stem = f.substr(0, f.size() - std::string(".rating").size());
      const std::size_t dot = stem.rfind('.');
      if (dot == std::string::npos || dot <= lp().size() || stem.substr(dot + 1) != "seg")
        throw InputError(path.string(), 0, "level",
                         "bad name for ratings (expected LP.NAME.seg.rating)");
      const std::string name = stem.substr(lp().size() + 1, dot - lp().size() - 1);
      auto r = read_mtme_rating_file(path.string(), name);
      // MTME checks neither; a rating must belong to a system and a segment.
      for (const auto& [sys, segs] : r) {
        if (!es_.sys_names.count(sys))
          throw InputError(path.string(), 0, "system", fmt::format("unknown system '{}'", sys));
        if (segs.size() != es_.src.size())
          throw InputError(path.string(), 0, "system",
                           fmt::format("{} ratings for system '{}', expected one per segment "
                                       "({})",
                                       segs.size(), sys, es_.src.size()));
      }
      es_.ratings[name] = std::move(r);
    }
  }

  void read_metric_scores() {
    for (const auto& path : glob(root_ / "metric-scores" / lp(), "", ".score", 1)) {
      // ParseMetricFilename: NAME.LEVEL.score.
      const std::string f = path.filename().string();
      const std::string stem = f.substr(0, f.size() - std::string(".score").size());
      const std::size_t dot = stem.rfind('.');
      const std::string level = dot == std::string::npos ? "" : stem.substr(dot + 1);
      if (dot == std::string::npos ||
          std::find(levels().begin(), levels().end(), level) == levels().end())
        throw InputError(path.string(), 0, "level",
                         "metric file not in NAME-REF.LEVEL.score format (LEVEL: sys, domain, "
                         "doc or seg)");
      auto [basename, refs] =
          parse_mtme_metric_name(stem.substr(0, dot), es_.ref_names, path.string());
      // AddMetric.
      for (const auto& r : refs)
        if (!es_.ref_names.count(r))
          throw InputError(path.string(), 0, "reference",
                           fmt::format("unknown reference '{}' in the metric name (references: "
                                       "{}; 'src' for none, 'all' for all)",
                                       r, fmt::join(es_.ref_names, ", ")));
      std::string ref_string;
      if (refs == es_.ref_names && refs.size() >= 3)
        ref_string = "all";
      else if (refs.empty())
        ref_string = "src";
      else
        ref_string = fmt::format("{}", fmt::join(refs, "."));
      const std::string name = basename + "-" + ref_string;
      auto& at_level = es_.metric_scores[level];
      if (at_level.count(name) ||
          (es_.human_scores.count(level) && es_.human_scores.at(level).count(name)))
        throw InputError(path.string(), 0, "name",
                         fmt::format("duplicate metric name {} at {} level", name, level));
      ScoreFile sf = level == "domain" ? read_domain_score_file(path, es_.domain_names, false)
                                       : read_score_file(path, false);
      check_scores(sf, path, level, false);
      for (const auto& sys : es_.sys_names) {
        if (sf.scores.count(sys) || refs.count(sys)) continue;
        if (options_.strict)
          throw InputError(path.string(), 0, "system",
                           fmt::format("no scores for system '{}' (a metric file scores every "
                                       "system but the references it uses)",
                                       sys));
        sf.scores[sys].assign(es_.units(level), 0.0);
        es_.padded[name + "." + level].push_back(sys);
      }
      at_level[name] = std::move(sf.scores);
      es_.metric_names.insert(name);
      es_.metric_basenames.insert(basename);
    }
  }

  fs::path root_;
  MtmeReadOptions options_;
  MtmeEvalSet es_;
  std::size_t doc_lines_ = 0;
  fs::path src_path_;
};

}  // namespace

std::size_t MtmeEvalSet::units(const std::string& level) const {
  if (level == "sys") return 1;
  if (level == "domain") return domain_names.size();
  if (level == "doc") return doc_names.size();
  return src.size();
}

const MtmeScores* MtmeEvalSet::scores(const std::string& level, const std::string& name) const {
  for (const auto* m : {&human_scores, &metric_scores}) {
    const auto l = m->find(level);
    if (l == m->end()) continue;
    const auto s = l->second.find(name);
    if (s != l->second.end()) return &s->second;
  }
  return nullptr;
}

std::pair<std::string, std::set<std::string>> parse_mtme_metric_name(
    const std::string& name, const std::set<std::string>& ref_names, const std::string& file) {
  const std::size_t dash = name.rfind('-');
  if (dash == std::string::npos)
    throw InputError(file, 0, "name",
                     fmt::format("metric name '{}' has no '-REF' part (BASENAME-REF: REF a "
                                 "reference, several joined by '.', 'src' or 'all')",
                                 name));
  const std::string refs = name.substr(dash + 1);
  std::set<std::string> out;
  if (refs == "all")
    out = ref_names;
  else if (refs != "src") {
    std::size_t b = 0;
    for (std::size_t i = 0; i <= refs.size(); ++i)
      if (i == refs.size() || refs[i] == '.') {
        out.insert(refs.substr(b, i - b));
        b = i + 1;
      }
  }
  return {name.substr(0, dash), out};
}

MtmeEvalSet read_mtme_eval_set(const std::string& test_set_dir, const std::string& lp,
                               const MtmeReadOptions& options) {
  return Reader(test_set_dir, lp, options).read();
}

}  // namespace probity
