// LLM-as-a-Judge: a model rates the candidate against the reference on a fixed integer scale;
// `samples` ratings (repeated-sampling indices 0..N-1, distinct cache entries) are averaged.
// A rating that failed or stayed unparseable after re-asking makes the item undefined (NaN),
// never a default; the session's accounting counts them (unparsed answers, failed requests).
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <mutex>

#include "llm/prompts.hpp"
#include "llm/schema.hpp"
#include "llm/session.hpp"
#include "llm/structured.hpp"
#include "metrics/builtin.hpp"
#include "probity/error.hpp"
#include "probity/signature.hpp"
#include "probity/text.hpp"

namespace probity::metrics {
namespace {

struct JudgeOptions {
  int lo = 1, hi = 5;
  int samples = 1;
  int reasks = 2;
  std::string role = "judge";
  std::string prompts_dir;
};

class LlmJudge final : public Metric {
 public:
  LlmJudge(std::string name, JudgeOptions o, std::shared_ptr<llm::Session> session)
      : name_(std::move(name)),
        o_(std::move(o)),
        session_(std::move(session)),
        client_(&session_->client(o_.role)),
        prompt_(llm::load_prompt("judge_rating.v1", o_.prompts_dir)) {}

  std::string name() const override { return name_; }
  std::string signature() const override {
    return Signature("llm-judge")
        .field("scale", fmt::format("{}-{}", o_.lo, o_.hi))
        .field("samples", o_.samples)
        .field("reasks", o_.reasks)
        .field("role", o_.role)
        .part(client_->signature())
        .field("prompt", prompt_.id())
        .versioned();
  }
  // Mean rating, and 1 when the item failed.
  std::size_t num_stats() const override { return 2; }
  CorpusAggregation corpus_aggregation() const override { return CorpusAggregation::kMeanScores; }

  std::size_t batch_size() const override { return 256; }
  // Every rating of the chunk in one batch; item_stats then takes them from the memo.
  void prefetch(std::span<const MetricInput> inputs) const override {
    std::vector<std::string> prompts;
    std::vector<std::uint32_t> samples;
    for (const auto& input : inputs) {
      if (input.references.empty() || text::is_blank(input.candidate)) continue;
      const std::string prompt = render(input);
      for (int s = 0; s < o_.samples; ++s) {
        prompts.push_back(prompt);
        samples.push_back(static_cast<std::uint32_t>(s));
      }
    }
    auto answers = llm::ask_structured(*client_, prompts, schema(), parser(), o_.reasks, samples);
    std::lock_guard lock(mutex_);
    memo_.clear();  // chunks are scored one after another: keep one chunk's answers
    for (std::size_t i = 0; i < prompts.size(); ++i)
      memo_[{prompts[i], samples[i]}] = std::move(answers[i]);
  }

  void item_stats(const MetricInput& input, std::span<double> stats) const override {
    stats[0] = std::nan("");
    stats[1] = 0;
    if (input.references.empty()) return;
    // An empty answer gets the lowest rating without a request (as overlap metrics give it 0).
    if (text::is_blank(input.candidate)) {
      stats[0] = o_.lo;
      return;
    }
    const std::string prompt = render(input);
    std::vector<llm::Answer> answers(static_cast<std::size_t>(o_.samples));
    std::vector<std::string> missing;
    std::vector<std::uint32_t> missing_samples;
    {
      std::lock_guard lock(mutex_);
      for (int s = 0; s < o_.samples; ++s) {
        auto it = memo_.find({prompt, static_cast<std::uint32_t>(s)});
        if (it != memo_.end()) {
          answers[static_cast<std::size_t>(s)] = it->second;
        } else {
          missing.push_back(prompt);
          missing_samples.push_back(static_cast<std::uint32_t>(s));
        }
      }
    }
    if (!missing.empty()) {
      auto asked =
          llm::ask_structured(*client_, missing, schema(), parser(), o_.reasks, missing_samples);
      for (std::size_t k = 0; k < asked.size(); ++k) answers[missing_samples[k]] = asked[k];
    }
    double sum = 0;
    for (const auto& a : answers) {
      if (!a.ok) {
        stats[1] = 1;
        continue;
      }
      sum += a.value.get<double>();
    }
    if (stats[1] == 0) stats[0] = sum / o_.samples;
  }
  void sentence_score(std::span<const double> stats, std::span<double> parts) const override {
    parts[0] = stats[1] > 0 ? std::nan("") : stats[0];
  }
  std::string undefined_reason(std::span<const double> stats) const override {
    if (stats.size() > 1 && stats[1] > 0)
      return "the LLM judge's rating failed or stayed unparseable after re-asking";
    return "no reference";
  }

 private:
  std::string render(const MetricInput& input) const {
    std::string source_block;
    if (!input.source.empty())
      source_block = fmt::format("TASK INPUT:\n<<<\n{}\n>>>\n\n", input.source);
    return prompt_.render({{"source_block", source_block},
                           {"reference", std::string(input.references[0])},
                           {"candidate", std::string(input.candidate)},
                           {"min", std::to_string(o_.lo)},
                           {"max", std::to_string(o_.hi)}});
  }
  llm::AnswerSchema schema() const {
    return [this](std::size_t) {
      return llm::schema::object({{"rating", llm::schema::integer(o_.lo, o_.hi)}});
    };
  }
  llm::AnswerParser parser() const {
    return [this](std::size_t, const nlohmann::json& j,
                  std::string& error) -> std::optional<nlohmann::json> {
      auto v = llm::get_int_field(j, "rating", o_.lo, o_.hi, error);
      if (!v) return std::nullopt;
      return *v;
    };
  }

  std::string name_;
  JudgeOptions o_;
  std::shared_ptr<llm::Session> session_;
  llm::Client* client_;
  llm::PromptTemplate prompt_;
  mutable std::mutex mutex_;
  mutable std::map<std::pair<std::string, std::uint32_t>, llm::Answer> memo_;
};

std::unique_ptr<Metric> make_judge(const MetricSpec& spec, const MetricContext& context) {
  if (!spec.arg().empty())
    throw UsageError(fmt::format("metric '{}' takes options only", spec.base()));
  JudgeOptions o;
  const std::string scale = spec.get("scale");
  const auto dash = scale.find('-', 1);
  try {
    if (dash == std::string::npos) throw std::invalid_argument("no dash");
    std::size_t used = 0;
    o.lo = std::stoi(scale.substr(0, dash), &used);
    if (used != dash) throw std::invalid_argument("lo");
    o.hi = std::stoi(scale.substr(dash + 1), &used);
    if (used != scale.size() - dash - 1) throw std::invalid_argument("hi");
  } catch (const std::exception&) {
    throw UsageError(fmt::format("metric '{}': scale must be <lo>-<hi>, e.g. 1-5", spec.text()));
  }
  if (o.hi <= o.lo || o.hi - o.lo > 100)
    throw UsageError(
        fmt::format("metric '{}': scale needs lo < hi (at most 100 apart)", spec.text()));
  o.samples = spec.get_int("samples");
  o.reasks = spec.get_int("reasks");
  o.role = spec.get("llm");
  o.prompts_dir = spec.get("prompts");
  return std::make_unique<LlmJudge>(spec.text(), o, context.llm());
}

}  // namespace

void register_llm_judge(MetricRegistry& registry) {
  registry.add(
      {"llm-judge",
       "LLM-as-a-Judge: a model rates the candidate against the reference (needs "
       "--config or --llm-base-url)",
       {option_text("scale", "1-5", "the rating scale <lo>-<hi> (at most 100 apart)"),
        option_int("samples", 1, 1, 64, "ratings averaged per item (repeated-sampling index)"),
        option_int("reasks", 2, 0, 10, "re-asks of an unparseable answer"),
        option_text("llm", "judge", "the configuration role of the endpoint"),
        option_text("prompts", "", "a directory of prompt templates (default: probity's)")},
       make_judge});
}

}  // namespace probity::metrics
