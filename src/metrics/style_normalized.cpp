// Style normalisation by an LLM (GEM's style normalisation, Xu et al. 2025): before a metric
// sees them, the candidate, the references and the negatives are each rewritten by a model into
// neutral "The text <verb> ..." statements, so the metric compares content rather than wording.
// Any metric takes it as the option `style=llm` (registry.cpp wraps the metric here).
//
// Lines are cleaned as the published parser does (strip, drop a leading "- ", '"' -> '\'',
// remove backslashes, skip empty lines) and only lines starting with "The text" are kept; an
// answer with none is re-asked and then recorded as failed. A failed rewrite makes the items
// that need it undefined (NaN, counted), never falls back to the raw text.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <unordered_map>

#include "llm/prompts.hpp"
#include "llm/schema.hpp"
#include "llm/session.hpp"
#include "llm/structured.hpp"
#include "metrics/builtin.hpp"
#include "metrics/corpus_signature.hpp"
#include "metrics/flagged_wrapper.hpp"
#include "probity/error.hpp"
#include "probity/signature.hpp"
#include "probity/text.hpp"

namespace probity::metrics {
namespace {

constexpr std::string_view kPrefix = "The text";

class StyleNormalized final : public FlaggedWrapper, public CorpusSigned {
 public:
  StyleNormalized(std::unique_ptr<Metric> inner, std::string role, int reasks,
                  const std::string& prompts_dir, std::shared_ptr<llm::Session> session)
      : FlaggedWrapper(std::move(inner)),
        role_(std::move(role)),
        reasks_(reasks),
        session_(std::move(session)),
        client_(&session_->client(role_)),
        prompt_(llm::load_prompt("style_normalize.v1", prompts_dir)) {}

  std::string signature() const override { return wrap(inner().signature()); }
  std::string corpus_signature() const override { return wrap(corpus_signature_of(inner())); }
  std::string wrap(const std::string& inner_signature) const {
    // The inner metric's signature already carries the version.
    return Signature(inner_signature)
        .field("style", "llm")
        .field("role", role_)
        .field("reasks", reasks_)
        .part(client_->signature())
        .field("prompt", prompt_.id())
        .format();
  }
  bool needs_fit() const override { return true; }
  NegativeSpec negatives() const override { return inner().negatives(); }

  // Every reference and candidate is normalised (one batch), and the inner metric is fitted on
  // the normalised tasks; references whose rewrite failed are left out of that fit.
  void fit(std::span<const Task> tasks) override {
    std::vector<std::string_view> texts;
    for (const auto& t : tasks) {
      for (const auto& r : t.references) texts.push_back(r.text);
      for (const auto& c : t.candidates) texts.push_back(c.text);
    }
    normalize_all(texts);
    std::vector<Task> normalized(tasks.begin(), tasks.end());
    std::lock_guard lock(mutex_);
    for (auto& t : normalized) {
      std::erase_if(t.references, [&](Reference& r) {
        const auto& n = memo_.at(r.text);
        if (n) r.text = *n;
        return !n.has_value();
      });
      for (auto& c : t.candidates)
        if (const auto& n = memo_.at(c.text)) c.text = *n;
    }
    inner().fit(normalized);
  }

  std::size_t batch_size() const override { return 256; }
  void prefetch(std::span<const MetricInput> inputs) const override {
    std::vector<std::string_view> texts;
    for (const auto& in : inputs) {
      texts.push_back(in.candidate);
      texts.insert(texts.end(), in.references.begin(), in.references.end());
      texts.insert(texts.end(), in.negatives.begin(), in.negatives.end());
    }
    normalize_all(texts);
    if (inner().batch_size() == 0) return;
    std::vector<MetricInput> normalized;
    for (const auto& in : inputs)
      if (auto n = normalized_input(in)) normalized.push_back(std::move(*n));
    inner().prefetch(normalized);
  }

  void item_stats(const MetricInput& input, std::span<double> stats) const override {
    std::vector<std::string_view> texts{input.candidate};
    texts.insert(texts.end(), input.references.begin(), input.references.end());
    texts.insert(texts.end(), input.negatives.begin(), input.negatives.end());
    normalize_all(texts);  // only what prefetch() did not already do
    stats_of(normalized_input(input), stats);
  }
  std::string explain(const MetricInput& input) const override {
    auto normalized = normalized_input(input);
    if (!normalized) return {};
    return inner().explain(*normalized);
  }

 private:
  std::string flag_reason() const override {
    return "style normalisation by the LLM failed or stayed unparseable after re-asking";
  }
  // Rewrites the texts not yet in the memo, in one batch.
  void normalize_all(std::span<const std::string_view> texts) const {
    std::vector<std::string> todo;
    {
      std::lock_guard lock(mutex_);
      std::set<std::string_view> seen;
      for (auto t : texts) {
        // An empty text has no style to normalise: it stays empty, without a request.
        if (text::is_blank(t)) {
          memo_.emplace(std::string(t), std::string(t));
          continue;
        }
        if (!memo_.contains(t) && seen.insert(t).second) todo.emplace_back(t);
      }
    }
    if (todo.empty()) return;
    std::vector<std::string> prompts;
    prompts.reserve(todo.size());
    for (const auto& t : todo) prompts.push_back(prompt_.render({{"text", t}}));
    auto parser = [](std::size_t, const nlohmann::json& j,
                     std::string& error) -> std::optional<nlohmann::json> {
      auto it = j.find("lines");
      if (it == j.end() || !it->is_array()) {
        error = "expected {\"lines\": [...]}";
        return std::nullopt;
      }
      std::vector<std::string> kept;
      for (const auto& line : *it)
        if (line.is_string())
          if (auto c = clean_line(line.get<std::string>())) kept.push_back(std::move(*c));
      if (kept.empty()) {
        error = fmt::format("no line starts with \"{}\"", kPrefix);
        return std::nullopt;
      }
      std::string joined;
      for (const auto& k : kept) joined += (joined.empty() ? "" : "\n") + k;
      return joined;
    };
    const auto schema = [](std::size_t) {
      return llm::schema::object({{"lines", llm::schema::array(llm::schema::string(300), 1, 32)}});
    };
    auto answers = llm::ask_structured(*client_, prompts, schema, parser, reasks_);
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < todo.size(); ++i) {
      if (answers[i].ok)
        memo_[todo[i]] = answers[i].value.get<std::string>();
      else
        memo_[todo[i]] = std::nullopt;
    }
  }

  static std::optional<std::string> clean_line(const std::string& line) {
    std::string s = llm::trim(line);
    if (s.starts_with("- ")) s = s.substr(2);
    std::replace(s.begin(), s.end(), '"', '\'');
    std::erase(s, '\\');
    if (s.empty() || !s.starts_with(kPrefix)) return std::nullopt;
    return s;
  }

  // The input with every text replaced by its rewrite; nullopt when one of them failed.
  std::optional<MetricInput> normalized_input(const MetricInput& input) const {
    std::lock_guard lock(mutex_);
    auto get = [&](std::string_view t) -> const std::string* {
      auto it = memo_.find(t);
      if (it == memo_.end() || !it->second) return nullptr;
      return &*it->second;  // node-based map: stable while the metric lives
    };
    MetricInput out;
    out.source = input.source;
    out.reference_ids = input.reference_ids;
    const std::string* c = get(input.candidate);
    if (!c) return std::nullopt;
    out.candidate = *c;
    for (auto r : input.references) {
      const std::string* n = get(r);
      if (!n) return std::nullopt;
      out.references.push_back(*n);
    }
    for (auto r : input.negatives) {
      const std::string* n = get(r);
      if (!n) return std::nullopt;
      out.negatives.push_back(*n);
    }
    return out;
  }

  std::string role_;
  int reasks_;
  std::shared_ptr<llm::Session> session_;
  llm::Client* client_;
  llm::PromptTemplate prompt_;
  mutable std::mutex mutex_;
  // Text -> its rewrite (nullopt: failed). std::map keeps values at stable addresses.
  mutable std::map<std::string, std::optional<std::string>, std::less<>> memo_;
};

}  // namespace

const std::vector<OptionSpec>& style_options_table() {
  static const std::vector<OptionSpec> table = {
      // immutable
      option_choice("style", "none", {"none", "llm"},
                    "llm: candidate, references and negatives are first rewritten by the model "
                    "into neutral \"The text ...\" statements (prompts/style_normalize.v1); a "
                    "failed rewrite makes the item undefined"),
      option_text("style_llm", "perturber", "style=llm: the configuration role of the endpoint"),
      option_int("style_reasks", 2, 0, 10, "style=llm: re-asks of an unparseable rewrite"),
      option_text("prompts", "", "a directory of prompt templates (default: probity's)")};
  return table;
}

std::unique_ptr<Metric> wrap_style_normalized(std::unique_ptr<Metric> inner, const MetricSpec& spec,
                                              const MetricContext& context) {
  if (spec.get("style") == "none") return inner;
  const std::string role = spec.get("style_llm");
  const int reasks = spec.get_int("style_reasks");
  const std::string prompts = spec.get("prompts");
  return std::make_unique<StyleNormalized>(std::move(inner), role, reasks, prompts, context.llm());
}

}  // namespace probity::metrics
