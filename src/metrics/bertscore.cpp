// BERTScore: the algorithm of Tiiiger/bert_score over a pluggable embedding provider, and the
// `bertscore` metric family.
#include "metrics/bertscore.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <unordered_set>

#include "metrics/builtin.hpp"
#include "probity/error.hpp"
#include "probity/signature.hpp"
#include "probity/text.hpp"
#include "util/byte_io.hpp"

namespace probity::metrics::bertscore {

bool EmbeddedText::empty_text() const {
  return std::all_of(special.begin(), special.end(), [](char s) { return s != 0; });
}

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// v rounded to float32. Through a volatile: GCC 12 at -O3 vectorises three adjacent
// double -> float -> double round trips into nothing (the first two parts came back unrounded).
double to_float32(double v) {
  volatile float f = static_cast<float>(v);
  return static_cast<double>(f);
}

// torch.max: NaN when either is NaN.
double nan_max(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return kNaN;
  return std::max(a, b);
}

// Rows divided by their L2 norm (a zero row becomes NaN, as torch's division).
std::vector<double> normalized(const EmbeddedText& t) {
  std::vector<double> out(t.vectors);
  for (std::size_t i = 0; i < t.size(); ++i) {
    double* row = out.data() + i * t.dim;
    double sq = 0;
    for (std::size_t k = 0; k < t.dim; ++k) sq += row[k] * row[k];
    const double norm = std::sqrt(sq);
    for (std::size_t k = 0; k < t.dim; ++k) row[k] /= norm;
  }
  return out;
}

// sum_i w_i / sum(w) * best_i
double weighted(std::span<const double> best, std::span<const double> w) {
  double total = 0;
  for (double x : w) total += x;
  double s = 0;
  for (std::size_t i = 0; i < best.size(); ++i) s += best[i] * (w[i] / total);
  return s;
}

}  // namespace

Prf greedy_match(const EmbeddedText& hyp, std::span<const double> hyp_weights,
                 const EmbeddedText& ref, std::span<const double> ref_weights) {
  if (hyp.size() != hyp_weights.size() || ref.size() != ref_weights.size())
    throw std::logic_error("bertscore: one weight per token");
  if (hyp.size() > 0 && ref.size() > 0 && hyp.dim != ref.dim)
    throw std::invalid_argument(
        fmt::format("embeddings of dimension {} and {} cannot be compared", hyp.dim, ref.dim));
  const std::size_t d = hyp.size() > 0 ? hyp.dim : ref.dim;
  const std::vector<double> h = normalized(hyp), r = normalized(ref);
  // Best similarity of each hypothesis token over the reference tokens and of each reference
  // token over the hypothesis tokens (sim.max(dim=2), sim.max(dim=1)).
  std::vector<double> best_h(hyp.size(), -std::numeric_limits<double>::infinity());
  std::vector<double> best_r(ref.size(), -std::numeric_limits<double>::infinity());
  for (std::size_t i = 0; i < hyp.size(); ++i) {
    const double* a = h.data() + i * d;
    for (std::size_t j = 0; j < ref.size(); ++j) {
      const double* b = r.data() + j * d;
      double dot = 0;
      for (std::size_t k = 0; k < d; ++k) dot += a[k] * b[k];
      best_h[i] = nan_max(best_h[i], dot);
      best_r[j] = nan_max(best_r[j], dot);
    }
  }
  Prf out;
  out.p = weighted(best_h, hyp_weights);
  out.r = weighted(best_r, ref_weights);
  out.f = 2 * out.p * out.r / (out.p + out.r);
  if (hyp.empty_text() || ref.empty_text()) out.p = out.r = 0;
  if (std::isnan(out.f)) out.f = 0;
  return out;
}

void IdfTable::add_document(const EmbeddedText& doc, double times) {
  documents_ += times;
  std::unordered_set<std::string_view> seen;
  for (const auto& t : doc.tokens)
    if (seen.insert(t).second) df_[t] += times;
}

double IdfTable::weight(const std::string& token) const {
  const auto it = df_.find(token);
  return std::log((documents_ + 1) / ((it == df_.end() ? 0.0 : it->second) + 1));
}

std::string IdfTable::save() const {
  std::vector<std::pair<std::string_view, double>> rows(df_.begin(), df_.end());
  std::sort(rows.begin(), rows.end());
  util::ByteWriter w;
  w.f64(documents_);
  w.u64(rows.size());
  for (const auto& [token, df] : rows) {
    w.str(token);
    w.f64(df);
  }
  return w.take();
}

IdfTable IdfTable::load(std::string_view bytes) {
  util::ByteReader r(bytes);
  IdfTable t;
  t.documents_ = r.f64("idf documents");
  if (!(t.documents_ >= 0)) throw std::invalid_argument("idf table: negative document count");
  const std::size_t n = r.count("idf tokens", 16);
  for (std::size_t i = 0; i < n; ++i) {
    std::string token = r.str("idf token");
    const double df = r.f64("idf document frequency");
    if (!(df >= 0 && df <= t.documents_))
      throw std::invalid_argument("idf table: a document frequency outside 0..documents");
    t.df_.emplace(std::move(token), df);
  }
  r.finish("the idf table");
  return t;
}

std::vector<double> token_weights(const EmbeddedText& text, const IdfTable* idf) {
  std::vector<double> w(text.size());
  for (std::size_t i = 0; i < text.size(); ++i)
    w[i] = idf != nullptr ? idf->weight(text.tokens[i]) : (text.special[i] ? 0.0 : 1.0);
  return w;
}

Prf read_baseline(const std::string& path, int layer) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(fmt::format("cannot read baseline file '{}'", path));
  std::string line;
  std::vector<std::vector<double>> rows;
  bool header = true;
  std::size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (header) {  // pandas takes the first line as the column names
      header = false;
      continue;
    }
    std::vector<double> cells;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) {
      char* end = nullptr;
      const double v = std::strtod(cell.c_str(), &end);
      if (cell.empty() || end != cell.c_str() + cell.size())
        throw std::invalid_argument(
            fmt::format("baseline file '{}' line {}: '{}' is not a number", path, line_no, cell));
      cells.push_back(v);
    }
    if (cells.size() != 4)
      throw std::invalid_argument(fmt::format(
          "baseline file '{}' line {}: expected 4 columns (LAYER,P,R,F)", path, line_no));
    rows.push_back(std::move(cells));
  }
  if (layer < 0 || static_cast<std::size_t>(layer) >= rows.size())
    throw std::invalid_argument(
        fmt::format("baseline file '{}' has {} rows; no row {}", path, rows.size(), layer));
  const auto& row = rows[static_cast<std::size_t>(layer)];
  return {to_float32(row[1]), to_float32(row[2]), to_float32(row[3])};
}

Prf rescale(const Prf& s, const Prf& b) {
  // bert_score's baselines are a float32 tensor, so its 1 - b is a float32 value.
  auto one_minus = [](double v) {
    return to_float32(1.0 - to_float32(v));  // exact in double, then rounded as float32 would
  };
  return {(s.p - b.p) / one_minus(b.p), (s.r - b.r) / one_minus(b.r), (s.f - b.f) / one_minus(b.f)};
}

std::vector<std::string> word_tokens(std::string_view input, bool lowercase) {
  const std::string lowered = lowercase ? probity::text::to_lower(input) : std::string();
  const std::string_view s = lowercase ? std::string_view(lowered) : input;
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) out.push_back(std::move(cur));
    cur.clear();
  };
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u == ' ' || u == '\t' || u == '\n' || u == '\r' || u == '\f' || u == '\v') {
      flush();
    } else if (u < 0x80 && std::ispunct(u)) {
      flush();
      out.emplace_back(1, c);
    } else {
      cur.push_back(c);
    }
  }
  flush();
  return out;
}

std::string default_cache_dir() {
  if (const char* p = std::getenv("PROBITY_CACHE_DIR"); p && *p) return p;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/probity";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/probity";
  return "";
}

namespace {

class BertScore final : public Metric {
 public:
  BertScore(const MetricSpec& spec, const MetricContext& context) : name_(spec.text()) {
    const std::string embed = spec.get("embed");
    const bool server = embed.rfind("tei:", 0) == 0 || embed.rfind("vllm:", 0) == 0;
    // Local providers only: a server tokenizes as its model does.
    const bool lowercase = server ? false : spec.get_bool("lowercase");
    if (embed == "fasttext") {
      FastTextOptions o;
      o.dim = spec.get_int("ft_dim");
      o.epoch = spec.get_int("ft_epoch");
      o.seed = spec.get_int("seed");
      o.lowercase = lowercase;
      const std::string cache = spec.get("ft_cache");
      o.cache_dir = cache == "none" ? "" : cache.empty() ? default_cache_dir() : cache;
      embedder_ = make_fasttext_embedder(o);
    } else if (embed.rfind("file:", 0) == 0) {
      embedder_ = make_vector_file_embedder(embed.substr(5), spec.get("format"), lowercase);
    } else if (server) {
      ServerOptions o;
      const auto colon = embed.find(':');
      o.provider = embed.substr(0, colon);
      o.url = embed.substr(colon + 1);
      o.model = spec.get("model");
      o.layer = spec.get_int("layer");
      o.prefix_space = spec.get_bool("prefix_space");
      o.batch_items = static_cast<std::size_t>(spec.get_int("batch"));
      embedder_ = make_server_embedder(o, context.session);
    } else {
      throw UsageError(fmt::format(
          "metric '{}': embed={} is not fasttext, file:<path>, tei:<url> or vllm:<url> (see "
          "`probity metrics`)",
          name_, embed));
    }
    idf_ = spec.get_bool("idf");
    const std::string baseline = spec.get("baseline");
    if (!baseline.empty()) {
      layer_ = spec.get_int("baseline_layer");
      baseline_ = read_baseline(baseline, layer_);
      baseline_path_ = baseline;
    }
  }

  std::string name() const override { return name_; }
  std::string signature() const override {
    Signature s("bertscore");
    s.field("idf", idf_ ? "yes" : "no");
    if (baseline_path_.empty()) {
      s.field("rescale", "no");
    } else {
      s.field("rescale", fmt::format("{},{},{}@{}", baseline_.p, baseline_.r, baseline_.f, layer_));
    }
    s.part(embedder_->signature());
    return s.versioned();
  }
  std::vector<std::string> parts() const override { return {"p", "r", "f"}; }
  std::size_t primary_part() const override { return 2; }
  // p, r, f, the number of references, and for a server provider the failure (0, or the
  // llm::ErrorKind of a text that could not be embedded: the item is then undefined).
  std::size_t num_stats() const override { return embedder_->can_fail() ? 5 : 4; }
  std::size_t batch_size() const override { return embedder_->batch_items(); }
  CorpusAggregation corpus_aggregation() const override { return CorpusAggregation::kMeanScores; }
  bool needs_fit() const override { return idf_ || embedder_->needs_fit(); }

  // Frozen fits: the embedder's trained vectors (embed=fasttext) and the IDF table (idf=true).
  std::string fit_method() const override {
    std::string method = embedder_->fit_method();
    if (idf_) method += method.empty() ? "idf" : "+idf";
    return method;
  }
  FitSections save_fit() const override {
    FitSections out;
    if (!embedder_->fit_method().empty()) out.emplace_back("embedder", embedder_->save_fit());
    if (idf_) out.emplace_back("idf", idf_table_.save());
    return out;
  }
  void load_fit(const FitSections& sections) override {
    auto section = [&](const std::string& key) -> const std::string& {
      for (const auto& [name, bytes] : sections)
        if (name == key) return bytes;
      throw std::invalid_argument(fmt::format("no section '{}'", key));
    };
    if (!embedder_->fit_method().empty()) embedder_->load_fit(section("embedder"));
    if (idf_) idf_table_ = IdfTable::load(section("idf"));
  }
  // IDF over M documents weighs a token log((M+1)/(df+1)): one document gives every token of it
  // weight 0 (BERTScore is then 0/0), and a handful gives weights of a few distinct values that
  // say more about the sample than about the tokens. Skip-gram vectors trained on a few texts are
  // mostly their random initialisation. 10 tasks is the floor for either.
  FitMinimum fit_minimum() const override {
    return {10,
            "IDF over fewer documents weighs most tokens alike (one document: every weight 0), "
            "and skip-gram vectors trained on fewer texts are mostly their random start"};
  }

  void fit(std::span<const Task> tasks) override {
    embedder_->fit(tasks);
    if (!idf_) return;
    idf_table_ = IdfTable();
    // The references of a few tasks at a time, announced first so that a server gets them as
    // one batch. A reference that cannot be embedded leaves no IDF table that bert_score would
    // compute: the fit fails, naming the cause.
    const std::size_t per_batch = std::max<std::size_t>(embedder_->batch_items(), 1);
    for (std::size_t begin = 0; begin < tasks.size(); begin += per_batch) {
      const std::size_t end = std::min(tasks.size(), begin + per_batch);
      if (embedder_->batch_items() > 0) {
        std::vector<std::string_view> texts;
        for (std::size_t i = begin; i < end; ++i)
          if (!tasks[i].candidates.empty())
            for (const Reference& r : tasks[i].references) texts.push_back(r.text);
        embedder_->prefetch(texts);
      }
      for (std::size_t i = begin; i < end; ++i) {
        const Task& t = tasks[i];
        if (t.candidates.empty()) continue;
        for (const Reference& r : t.references) {
          try {
            idf_table_.add_document(embedder_->embed(r.text),
                                    static_cast<double>(t.candidates.size()));
          } catch (const EmbedError& e) {
            throw std::runtime_error(fmt::format(
                "metric '{}': idf=true needs every reference's tokens, and a reference of task "
                "'{}' could not be embedded ({}): {}",
                name_, t.task_id, llm::error_kind_name(static_cast<llm::ErrorKind>(e.kind())),
                e.what()));
          }
        }
      }
    }
  }

  void item_stats(const MetricInput& input, std::span<double> stats) const override {
    std::fill(stats.begin(), stats.end(), 0.0);
    stats[3] = static_cast<double>(input.references.size());
    if (input.references.empty()) return;
    const IdfTable* idf = idf_ ? &idf_table_ : nullptr;
    Prf best;
    try {
      const EmbeddedText hyp = embedder_->embed(input.candidate);
      const std::vector<double> hw = token_weights(hyp, idf);
      for (std::size_t k = 0; k < input.references.size(); ++k) {
        const EmbeddedText ref = embedder_->embed(input.references[k]);
        const Prf s = greedy_match(hyp, hw, ref, token_weights(ref, idf));
        if (k == 0) {
          best = s;
        } else {  // all_preds[beg:end].max(dim=0): each part on its own
          best = {nan_max(best.p, s.p), nan_max(best.r, s.r), nan_max(best.f, s.f)};
        }
      }
    } catch (const EmbedError& e) {
      // Undefined, never a default: the cause is the failure's kind (the server's messages are
      // in the LLM usage summary of the run).
      stats[0] = stats[1] = stats[2] = kNaN;
      stats[4] = std::max(1, e.kind());
      return;
    }
    if (!baseline_path_.empty()) best = rescale(best, baseline_);
    stats[0] = best.p;
    stats[1] = best.r;
    stats[2] = best.f;
  }

  void sentence_score(std::span<const double> stats, std::span<double> parts) const override {
    if (stats[3] == 0 || (stats.size() > 4 && stats[4] > 0)) {
      std::fill(parts.begin(), parts.end(), kNaN);
      return;
    }
    for (int j = 0; j < 3; ++j)
      parts[static_cast<std::size_t>(j)] = stats[static_cast<std::size_t>(j)];
  }

  std::string undefined_reason(std::span<const double> stats) const override {
    if (stats[3] == 0) return "the item has no reference";
    if (stats.size() > 4 && stats[4] > 0)
      return fmt::format(
          "the embedding server gave no embedding for the candidate or a reference ({}; the "
          "run's LLM usage summary, endpoint 'embedder', shows the server's messages)",
          llm::error_kind_name(static_cast<llm::ErrorKind>(static_cast<int>(stats[4]))));
    return "every token of the text weighs 0 (IDF), so BERTScore divides 0 by 0";
  }

  void prefetch(std::span<const MetricInput> inputs) const override {
    std::vector<std::string_view> texts;
    for (const auto& in : inputs) {
      texts.push_back(in.candidate);
      texts.insert(texts.end(), in.references.begin(), in.references.end());
    }
    embedder_->prefetch(texts);
  }

 private:
  std::string name_;
  std::unique_ptr<Embedder> embedder_;
  bool idf_ = false;
  IdfTable idf_table_;
  std::string baseline_path_;
  int layer_ = 0;
  Prf baseline_;
};

}  // namespace

}  // namespace probity::metrics::bertscore

namespace probity::metrics {

void register_bertscore(MetricRegistry& registry) {
  std::vector<OptionSpec> options = {
      option_text("embed", "fasttext",
                  "token embeddings: fasttext = skip-gram vectors trained with libfasttext on the "
                  "dataset's own references and candidates (offline; NOT the published "
                  "BERTScore model, whose numbers need roberta-large layer 17); file:<path> = a "
                  "word-vector file (word2vec text/binary, GloVe, fastText .vec), memory-mapped; "
                  "tei:<url> = a text-embeddings-inference server (/tokenize, /embed_all); "
                  "vllm:<url> = a vLLM server (/tokenize, /pooling with task token_embed). "
                  "Servers are asked through the LLM client: [llm.embedder] settings, the "
                  "--cache response cache, retries; see docs/bertscore.md"),
      option_text("model", "",
                  "embed=tei:/vllm:: the served model's name, required (signature; vLLM checks "
                  "it); model=roberta-large with layer=17 and prefix_space=true is the "
                  "published English BERTScore"),
      option_int("layer", -1, -1, 1000,
                 "embed=tei:/vllm:: the hidden layer the server's model ends at, as you state "
                 "it (signature; -1 = not stated); bert_score's roberta-large uses 17"),
      option_bool("prefix_space", false,
                  "embed=tei:/vllm:: send each (stripped) text with a space before it, as "
                  "bert_score encodes for GPT-2/RoBERTa tokenizers (add_prefix_space); true "
                  "for roberta-large"),
      option_int("batch", 64, 1, 4096,
                 "embed=tei:/vllm:: items whose texts are sent as one batch of requests (in "
                 "flight up to the client's concurrency)"),
      option_choice("format", "auto", {"auto", "text", "binary"},
                    "embed=file: text (word2vec/GloVe/.vec) or word2vec binary; auto = binary "
                    "for a name ending .bin"),
      option_bool("lowercase", true,
                  "local providers: lowercase before splitting into words and punctuation"),
      option_bool("idf", false,
                  "IDF weights from the references as bert_score's get_idf_dict: "
                  "log((M+1)/(df+1)), each reference counted once per candidate"),
      option_text("baseline", "",
                  "rescale with a baseline file in bert_score's rescale_baseline CSV format "
                  "(LAYER,P,R,F): (x-b)/(1-b)"),
      option_int("baseline_layer", 17, 0, 1000,
                 "row of the baseline file (bert_score reads row num_layers; roberta-large: 17)"),
      option_int("ft_dim", 100, 2, 1000, "embed=fasttext: vector dimension"),
      option_int("ft_epoch", 10, 1, 1000, "embed=fasttext: training epochs"),
      option_int("seed", 1, 0, 1 << 30, "embed=fasttext: training seed (one thread)"),
      option_text("ft_cache", "",
                  "embed=fasttext: directory caching trained models; default $PROBITY_CACHE_DIR, "
                  "$XDG_CACHE_HOME/probity or ~/.cache/probity; none = no cache"),
  };
  registry.add(MetricInfo{
      "bertscore",
      "BERTScore p/r/F (Tiiiger/bert_score's greedy matching, IDF, rescaling) over pluggable "
      "token embeddings; offline default: fastText trained on the dataset, not the published "
      "model",
      std::move(options),
      [](const MetricSpec& spec, const MetricContext& context) -> std::unique_ptr<Metric> {
        return std::make_unique<bertscore::BertScore>(spec, context);
      }});
}

}  // namespace probity::metrics
