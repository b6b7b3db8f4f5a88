// LLM-as-a-Judge. Pointwise: a model rates the candidate on a fixed integer scale, against the
// reference or (reference=none) on its own; `samples` ratings (repeated-sampling indices 0..N-1,
// distinct cache entries) are averaged. Pairwise: the model says which of the candidate and the
// task's reference is better, asked in both orders; the candidate's score is 1 (preferred),
// 0.5 (tie) or 0, the two orders combined per `ties`. G-Eval (Liu et al. 2023): the model answers
// with a bare rating; estimate=logprobs weights the scale values among the top log-probabilities
// at the rating token (metrics/geval.hpp), estimate=samples averages `samples` ratings sampled at
// `temperature`. A verdict that failed or stayed unparseable (after re-asking, for the JSON
// modes) makes the item undefined (NaN), never a default; the session's accounting counts them
// (unparsed answers, failed requests).
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <mutex>

#include "llm/prompts.hpp"
#include "llm/schema.hpp"
#include "llm/session.hpp"
#include "llm/structured.hpp"
#include "metrics/builtin.hpp"
#include "metrics/geval.hpp"
#include "probity/error.hpp"
#include "probity/signature.hpp"
#include "probity/text.hpp"
#include "text/ascii.hpp"
#include "util/hash.hpp"

namespace probity::metrics {
namespace {

// How the prompt frames the texts it shows (`prompt=`): the defenses a defense matrix compares.
enum class PromptVariant { kNaive, kDelimited, kSandwich, kInstructed };
// What decides a pairwise item whose two orders disagree (`ties=`).
enum class TiePolicy { kDisagree, kFirst, kRandom };
// How G-Eval turns answers into a rating (`estimate=`).
enum class Estimate { kLogprobs, kSamples };

constexpr std::string_view kVariantNames[] = {"naive", "delimited", "sandwich", "instructed"};
constexpr std::string_view kTieNames[] = {"disagree", "first", "random"};
constexpr std::string_view kEstimateNames[] = {"logprobs", "samples"};

// G-Eval's answer is a bare rating: a few tokens leave room for a quote or a space around it and
// show whether the number goes on past the rating token.
constexpr int kGevalMaxTokens = 16;

template <typename E, std::size_t N>
E enum_of(const std::string& name, const std::string_view (&names)[N]) {
  for (std::size_t k = 0; k < N; ++k)
    if (names[k] == name) return static_cast<E>(k);
  throw UsageError("unknown choice '" + name + "'");  // option_choice has checked it already
}

struct JudgeOptions {
  JudgeMode mode = JudgeMode::kPointwise;
  bool reference = true;
  PromptVariant prompt = PromptVariant::kDelimited;
  TiePolicy ties = TiePolicy::kDisagree;
  int lo = 1, hi = 5;
  int samples = 1;
  int reasks = 2;
  Estimate estimate = Estimate::kLogprobs;  // geval
  int top_logprobs = 20;                    // geval, estimate=logprobs
  double temperature = 1.0;                 // geval, estimate=samples
  std::string role = "judge";
  std::string prompts_dir;
};

// The template a configuration uses. Pointwise with a reference and delimiters keeps
// judge_rating.v1, the judge's prompt before variants existed, so its cached answers stay valid.
std::string template_name(const JudgeOptions& o) {
  const std::string variant(kVariantNames[static_cast<std::size_t>(o.prompt)]);
  if (o.mode == JudgeMode::kPairwise) return "judge_pairwise_" + variant + ".v1";
  if (o.mode == JudgeMode::kGeval) return "judge_geval.v1";
  if (o.reference && o.prompt == PromptVariant::kDelimited) return "judge_rating.v1";
  return "judge_pointwise_" + variant + ".v1";
}

// One question to the model: its prompt and repeated-sampling index.
using Question = std::pair<std::string, std::uint32_t>;

class LlmJudge final : public Metric {
 public:
  LlmJudge(std::string name, JudgeOptions o, std::shared_ptr<llm::Session> session)
      : name_(std::move(name)),
        o_(std::move(o)),
        session_(std::move(session)),
        client_(&session_->client(o_.role)),
        prompt_(llm::load_prompt(template_name(o_), o_.prompts_dir)) {}

  std::string name() const override { return name_; }
  std::string signature() const override {
    Signature s("llm-judge");
    // Fields of the pointwise, reference-based judge are as they were before modes existed.
    if (o_.mode != JudgeMode::kPointwise) s.field("mode", judge_mode_name(o_.mode));
    if (o_.mode == JudgeMode::kGeval) {
      s.field("estimate", kEstimateNames[static_cast<std::size_t>(o_.estimate)]);
      if (o_.estimate == Estimate::kLogprobs) {
        s.field("top_logprobs", o_.top_logprobs)
            .field("min_prob", fmt::format("{}", geval::kMinProbability));
      } else {
        s.field("temperature", fmt::format("{}", o_.temperature));
      }
    }
    if (!o_.reference) s.field("reference", "none");
    if (o_.prompt != PromptVariant::kDelimited)
      s.field("variant", kVariantNames[static_cast<std::size_t>(o_.prompt)]);
    if (o_.mode == JudgeMode::kPairwise) {
      s.field("ties", kTieNames[static_cast<std::size_t>(o_.ties)]);
    } else {
      s.field("scale", fmt::format("{}-{}", o_.lo, o_.hi));
    }
    s.field("samples", o_.samples);
    if (o_.mode != JudgeMode::kGeval) s.field("reasks", o_.reasks);  // G-Eval does not re-ask
    return s.field("role", o_.role)
        .part(client_->signature())
        .field("prompt", prompt_.id())
        .versioned();
  }
  bool needs_references() const override { return o_.reference; }
  // Pointwise and G-Eval with estimate=samples: mean rating, 1 when the item failed, then each
  // sample's rating when there are several. G-Eval with estimate=logprobs: weighted rating,
  // failed, the rating the model generated, the probability mass of the scale values counted
  // (0: none reached 1%, the weighted rating is the generated one). Pairwise: score, failed, the
  // verdicts with the candidate shown first and second.
  std::size_t num_stats() const override {
    if (o_.mode == JudgeMode::kPairwise || logprobs()) return 4;
    return o_.samples > 1 ? 2 + static_cast<std::size_t>(o_.samples) : 2;
  }
  CorpusAggregation corpus_aggregation() const override { return CorpusAggregation::kMeanScores; }
  std::optional<JudgeDesign> judge_design() const override {
    JudgeDesign d;
    d.mode = o_.mode;
    d.samples = static_cast<std::size_t>(o_.samples);
    d.first_sample = o_.samples > 1 ? 2 : 0;
    d.candidate_first = 2;
    d.candidate_second = 3;
    d.scale_lo = o_.mode == JudgeMode::kPairwise ? 0 : o_.lo;
    d.scale_hi = o_.mode == JudgeMode::kPairwise ? 1 : o_.hi;
    d.probability_weighted = logprobs();
    return d;
  }

  std::size_t batch_size() const override { return 256; }
  // Every question of the chunk in one batch; item_stats then takes the answers from the memo.
  void prefetch(std::span<const MetricInput> inputs) const override {
    std::vector<Question> questions;
    for (const auto& input : inputs)
      if (askable(input)) append_questions(input, questions);
    answers(questions);
  }

  void item_stats(const MetricInput& input, std::span<double> stats) const override {
    std::fill(stats.begin(), stats.end(), std::nan(""));
    stats[1] = 0;
    if (o_.reference && input.references.empty()) return;
    // An empty answer gets the lowest rating (loses) without a request, as overlap metrics give
    // it 0.
    if (text::is_blank(input.candidate)) {
      if (o_.mode == JudgeMode::kPairwise) {
        stats[0] = stats[2] = stats[3] = 0;
      } else if (logprobs()) {
        stats[0] = stats[2] = o_.lo;
        stats[3] = 0;
      } else {
        for (std::size_t k = 0; k < stats.size(); ++k)
          if (k != 1) stats[k] = o_.lo;
      }
      return;
    }
    std::vector<Question> questions;
    append_questions(input, questions);
    const auto got = answers(questions);
    if (o_.mode == JudgeMode::kPairwise) return pairwise_stats(input, got, stats);
    if (logprobs()) {
      if (!got[0].ok) {
        stats[1] = 1;
        return;
      }
      stats[0] = got[0].value["score"].get<double>();
      stats[2] = got[0].value["rating"].get<double>();
      stats[3] = got[0].value["mass"].get<double>();
      return;
    }
    double sum = 0;
    for (std::size_t s = 0; s < got.size(); ++s) {
      if (!got[s].ok) {
        stats[1] = 1;
        continue;
      }
      const double rating = got[s].value.get<double>();
      sum += rating;
      if (o_.samples > 1) stats[2 + s] = rating;
    }
    if (stats[1] == 0) stats[0] = sum / o_.samples;
  }
  void sentence_score(std::span<const double> stats, std::span<double> parts) const override {
    parts[0] = stats[1] > 0 ? std::nan("") : stats[0];
  }
  std::string undefined_reason(std::span<const double> stats) const override {
    if (stats.size() > 1 && stats[1] > 0)
      return o_.mode == JudgeMode::kGeval
                 ? "the LLM judge's request failed or its answer held no rating on the scale"
                 : "the LLM judge's verdict failed or stayed unparseable after re-asking";
    return "no reference";
  }

 private:
  bool logprobs() const {
    return o_.mode == JudgeMode::kGeval && o_.estimate == Estimate::kLogprobs;
  }
  bool askable(const MetricInput& input) const {
    return !(o_.reference && input.references.empty()) && !text::is_blank(input.candidate);
  }
  // Pointwise: `samples` questions. Pairwise: `samples` with the candidate shown first, then
  // `samples` with it shown second.
  void append_questions(const MetricInput& input, std::vector<Question>& out) const {
    if (o_.mode == JudgeMode::kPairwise) {
      const std::string reference(input.references[0]);
      const std::string ab = render_pair(input, std::string(input.candidate), reference);
      const std::string ba = render_pair(input, reference, std::string(input.candidate));
      for (const std::string* p : {&ab, &ba})
        for (int s = 0; s < o_.samples; ++s) out.emplace_back(*p, static_cast<std::uint32_t>(s));
      return;
    }
    const std::string prompt = render_rating(input);
    for (int s = 0; s < o_.samples; ++s) out.emplace_back(prompt, static_cast<std::uint32_t>(s));
  }

  // The answers to `questions`, from the memo or asked now (in one batch) and remembered.
  std::vector<llm::Answer> answers(const std::vector<Question>& questions) const {
    std::vector<llm::Answer> out(questions.size());
    std::vector<std::size_t> missing;
    std::vector<util::Key128> keys(questions.size());
    {
      std::lock_guard lock(mutex_);
      for (std::size_t i = 0; i < questions.size(); ++i) {
        keys[i] = util::key128(
            std::array<std::uint64_t, 2>{util::xxh3_64(questions[i].first), questions[i].second});
        auto it = memo_.find(keys[i]);
        if (it != memo_.end()) {
          out[i] = it->second;
        } else {
          missing.push_back(i);
        }
      }
    }
    if (missing.empty()) return out;
    std::vector<std::string> prompts;
    std::vector<std::uint32_t> samples;
    for (std::size_t i : missing) {
      prompts.push_back(questions[i].first);
      samples.push_back(questions[i].second);
    }
    auto asked = o_.mode == JudgeMode::kGeval ? ask_geval(prompts, samples)
                                              : llm::ask_structured(*client_, prompts, schema(),
                                                                    parser(), o_.reasks, samples);
    std::lock_guard lock(mutex_);
    // Every answer of the metric's life is kept (a hash and a small value each), so that the
    // audit's judge diagnostics read the verdicts the scores came from without asking again.
    for (std::size_t k = 0; k < missing.size(); ++k) {
      out[missing[k]] = asked[k];
      memo_[keys[missing[k]]] = std::move(asked[k]);
    }
    return out;
  }

  // G-Eval's request: the bare rating, with the top log-probabilities of every generated token
  // (estimate=logprobs, greedy) or sampled at `temperature` (estimate=samples).
  llm::Request geval_request(const std::string& prompt, std::uint32_t sample) const {
    llm::Request r;
    r.endpoint = llm::Endpoint::kChat;
    r.messages = {{"user", prompt}};
    r.max_tokens = kGevalMaxTokens;
    r.sample = sample;
    if (o_.estimate == Estimate::kLogprobs) {
      r.temperature = 0;
      r.logprobs = o_.top_logprobs;
    } else {
      r.temperature = o_.temperature;
    }
    return r;
  }

  // Thrown at the first answer that shows the server gives no top log-probabilities: no item
  // can then be scored, so the run stops instead of failing every item.
  [[noreturn]] void no_top_logprobs(const std::string& detail) const {
    throw UsageError(fmt::format(
        "the server at {} returned no top_logprobs{}: mode=geval needs them (llama.cpp: "
        "llama-server returns them in /v1/chat/completions for \"logprobs\": true with "
        "\"top_logprobs\": N; vLLM: \"logprobs\": true with top_logprobs at most the server's "
        "--max-logprobs, 20 by default; OpenAI: \"logprobs\": true with top_logprobs 0-20, on "
        "models that give log-probabilities (not the reasoning models)); or use "
        "estimate=samples, which needs none",
        client_->config().base_url, detail.empty() ? "" : " (" + detail + ")"));
  }

  // Whether the answer to a logprobs request settles that the server gives no top
  // log-probabilities: it refused the fields, or answered without them. A transport failure or
  // an answer without generated tokens settles nothing.
  std::optional<std::string> missing_top_logprobs(const llm::Response& a) const {
    if (!a.ok)
      return a.error_kind == llm::ErrorKind::kInvalidRequest ||
                     a.error_kind == llm::ErrorKind::kUnsupported
                 ? std::optional<std::string>("the request with them failed: " + a.error)
                 : std::nullopt;
    for (const auto& t : a.logprobs)
      if (!t.top.empty()) return std::nullopt;
    if (!a.logprobs.empty())
      return fmt::format("{} generated token{} without alternatives", a.logprobs.size(),
                         a.logprobs.size() == 1 ? "" : "s");
    const auto j = nlohmann::json::parse(a.body, nullptr, false);
    const nlohmann::json* lp = nullptr;
    if (j.is_object())
      if (auto c = j.find("choices");
          c != j.end() && c->is_array() && !c->empty() && c->front().is_object())
        if (auto l = c->front().find("logprobs"); l != c->front().end()) lp = &*l;
    if (lp == nullptr || lp->is_null()) return std::string("the answer has no logprobs");
    return std::nullopt;  // logprobs without generated tokens: an empty answer
  }

  // The answers of G-Eval questions. The first answer of the metric's life is asked alone, so
  // that a server without top log-probabilities stops the run at once (no_top_logprobs).
  std::vector<llm::Answer> ask_geval(const std::vector<std::string>& prompts,
                                     const std::vector<std::uint32_t>& samples) const {
    std::vector<llm::Request> requests;
    requests.reserve(prompts.size());
    for (std::size_t i = 0; i < prompts.size(); ++i)
      requests.push_back(geval_request(prompts[i], samples[i]));
    std::vector<llm::Response> responses;
    responses.reserve(requests.size());
    std::size_t first = 0;
    if (logprobs() && !requests.empty()) {
      std::lock_guard lock(probe_mutex_);
      if (!server_checked_) {
        responses.push_back(client_->run({requests[0]}).front());
        if (auto missing = missing_top_logprobs(responses[0])) no_top_logprobs(*missing);
        server_checked_ = responses[0].ok && !responses[0].logprobs.empty();
        first = 1;
      }
    }
    if (first < requests.size()) {
      auto rest = client_->run(std::vector<llm::Request>(
          requests.begin() + static_cast<std::ptrdiff_t>(first), requests.end()));
      for (auto& r : rest) responses.push_back(std::move(r));
    }
    std::vector<llm::Answer> out(prompts.size());
    llm::EndpointUsage delta;
    delta.questions = prompts.size();
    for (std::size_t i = 0; i < prompts.size(); ++i) {
      llm::Answer& a = out[i];
      const llm::Response& r = responses[i];
      a.asks = 1;
      if (!r.ok) {
        a.failure = llm::Answer::Failure::kRequest;
        a.error =
            fmt::format("request failed ({}): {}", llm::error_kind_name(r.error_kind), r.error);
        a.detail = r.http_error()
                       ? r.error
                       : fmt::format("{}: {}", llm::error_kind_name(r.error_kind), r.error);
        continue;
      }
      std::string error;
      if (logprobs()) {
        if (auto at = geval::find_rating(r.logprobs, o_.lo, o_.hi, error)) {
          const auto& top = r.logprobs[at->index].top;
          const auto w = geval::weighted_score(top, o_.lo, o_.hi, at->value);
          a.ok = true;
          a.value = {{"score", w.score}, {"rating", at->value}, {"mass", w.mass}};
        }
      } else if (auto v = geval::rating_in_text(r.text(), o_.lo, o_.hi, error)) {
        a.ok = true;
        a.value = *v;
      }
      if (!a.ok) {
        a.failure = llm::Answer::Failure::kUnparseable;
        a.error = "unparseable answer: " + error;
        a.detail = error;
        ++delta.unparsed;
      }
    }
    client_->accounting().add(client_->config().name, client_->config().model, delta);
    return out;
  }

  // From the candidate's side: 1 preferred, 0.5 tie, 0 not; NaN when the verdict failed.
  static double verdict(const llm::Answer& a, bool candidate_first) {
    if (!a.ok) return std::nan("");
    const std::string w = a.value.get<std::string>();
    if (w == "tie") return 0.5;
    return (w == "A") == candidate_first ? 1.0 : 0.0;
  }

  void pairwise_stats(const MetricInput& input, const std::vector<llm::Answer>& got,
                      std::span<double> stats) const {
    const auto n = static_cast<std::size_t>(o_.samples);
    double first = 0, second = 0;
    for (std::size_t s = 0; s < n; ++s) {
      first += verdict(got[s], true);
      second += verdict(got[n + s], false);
    }
    first /= static_cast<double>(n);
    second /= static_cast<double>(n);
    stats[2] = first;
    stats[3] = second;
    if (std::isnan(first) || std::isnan(second)) {
      stats[1] = 1;
      return;
    }
    if (first == second) {
      stats[0] = first;
      return;
    }
    switch (o_.ties) {
      case TiePolicy::kDisagree:
        stats[0] = 0.5;
        break;
      case TiePolicy::kFirst:
        stats[0] = first;
        break;
      case TiePolicy::kRandom:
        // A coin seeded by the item's texts: the same item gets the same side in every run.
        stats[0] = (util::xxh3_64(input.candidate, util::xxh3_64(input.references[0])) & 1) != 0
                       ? first
                       : second;
        break;
    }
  }

  // The task input, the reference (as the standard) and the candidate, framed as the variant
  // frames texts: labelled lines (naive) or between <<< >>> markers (the others).
  std::string block(std::string_view label, std::string_view marked_label,
                    std::string_view text) const {
    if (o_.prompt == PromptVariant::kNaive) return fmt::format("{}: {}\n\n", label, text);
    return fmt::format("{}:\n<<<\n{}\n>>>\n\n", marked_label, text);
  }
  std::string source_block(const MetricInput& input) const {
    return input.source.empty() ? std::string() : block("Task input", "TASK INPUT", input.source);
  }
  std::string render_rating(const MetricInput& input) const {
    if (template_name(o_) == "judge_rating.v1")
      return prompt_.render({{"source_block", source_block(input)},
                             {"reference", std::string(input.references[0])},
                             {"candidate", std::string(input.candidate)},
                             {"min", std::to_string(o_.lo)},
                             {"max", std::to_string(o_.hi)}});
    const bool naive = o_.prompt == PromptVariant::kNaive;
    const bool with_reference = o_.reference && !input.references.empty();
    return prompt_.render(
        {{"source_block", source_block(input)},
         {"reference_block",
          with_reference ? block("Reference", "REFERENCE", input.references[0]) : std::string()},
         {"standard_intro",
          with_reference ? " against a reference text written for the same task" : ""},
         {"standard", !with_reference ? std::string()
                      : naive ? std::string(", using the reference as the standard of content "
                                            "and correctness,")
                              : std::string(", using the REFERENCE as the standard of content "
                                            "and correctness,")},
         {"candidate", std::string(input.candidate)},
         {"min", std::to_string(o_.lo)},
         {"max", std::to_string(o_.hi)}});
  }
  std::string render_pair(const MetricInput& input, const std::string& first,
                          const std::string& second) const {
    return prompt_.render(
        {{"source_block", source_block(input)}, {"first", first}, {"second", second}});
  }

  llm::AnswerSchema schema() const {
    if (o_.mode == JudgeMode::kPairwise)
      return [](std::size_t) {
        return llm::schema::object({{"winner", llm::schema::string_enum({"A", "B", "tie"})}});
      };
    return [this](std::size_t) {
      return llm::schema::object({{"rating", llm::schema::integer(o_.lo, o_.hi)}});
    };
  }
  llm::AnswerParser parser() const {
    if (o_.mode == JudgeMode::kPairwise)
      return [](std::size_t, const nlohmann::json& j,
                std::string& error) -> std::optional<nlohmann::json> {
        const auto it = j.is_object() ? j.find("winner") : j.end();
        if (it == j.end() || !it->is_string()) {
          error = "expected {\"winner\": \"A\" or \"B\" or \"tie\"}";
          return std::nullopt;
        }
        std::string w = text::ascii_lower(text::trim_ascii_space(it->get<std::string>()));
        if (w == "a" || w == "b") w = w == "a" ? "A" : "B";
        if (w != "A" && w != "B" && w != "tie") {
          error =
              "\"winner\" must be \"A\", \"B\" or \"tie\", not \"" + it->get<std::string>() + "\"";
          return std::nullopt;
        }
        return w;
      };
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
  mutable std::map<util::Key128, llm::Answer> memo_;
  // geval, estimate=logprobs: whether an answer has shown top log-probabilities yet.
  mutable std::mutex probe_mutex_;
  mutable bool server_checked_ = false;
};

std::unique_ptr<Metric> make_judge(const MetricSpec& spec, const MetricContext& context) {
  if (!spec.arg().empty())
    throw UsageError(fmt::format("metric '{}' takes options only", spec.base()));
  JudgeOptions o;
  o.mode = parse_judge_mode(spec.get("mode"));
  o.reference = spec.get("reference") == "required";
  o.prompt = enum_of<PromptVariant>(spec.get("prompt"), kVariantNames);
  o.ties = enum_of<TiePolicy>(spec.get("ties"), kTieNames);
  if (o.mode == JudgeMode::kPairwise && !o.reference)
    throw UsageError(fmt::format(
        "metric '{}': the pairwise judge compares the candidate with the task's reference; "
        "reference=none needs mode=pointwise",
        spec.text()));
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
  if (o.mode == JudgeMode::kGeval) {
    if (o.prompt != PromptVariant::kDelimited)
      throw UsageError(fmt::format(
          "metric '{}': mode=geval has one prompt (judge_geval.v1); prompt= applies to the "
          "pointwise and pairwise judges",
          spec.text()));
    o.estimate = enum_of<Estimate>(spec.get("estimate"), kEstimateNames);
    if (o.estimate == Estimate::kLogprobs) {
      // One token per rating: Llama and Mistral tokenizers split numbers into digits.
      if (o.lo < 0 || o.hi > 9)
        throw UsageError(fmt::format(
            "metric '{}': estimate=logprobs reads the rating from one token, so the scale must "
            "lie within 0-9 (many tokenizers split larger numbers into digits); use "
            "estimate=samples for a wider scale",
            spec.text()));
      if (o.samples != 1)
        throw UsageError(fmt::format(
            "metric '{}': estimate=logprobs asks once per item (greedy, the probabilities do "
            "the averaging); samples=N needs estimate=samples",
            spec.text()));
      o.top_logprobs = spec.get_int("top_logprobs");
    } else {
      o.temperature = spec.get_double("temperature");
    }
  } else {
    o.reasks = spec.get_int("reasks");
  }
  o.role = spec.get("llm");
  o.prompts_dir = spec.get("prompts");
  return std::make_unique<LlmJudge>(spec.text(), o, context.llm());
}

}  // namespace

void register_llm_judge(MetricRegistry& registry) {
  registry.add(
      {"llm-judge",
       "LLM-as-a-Judge: a model rates the candidate (pointwise, or G-Eval's weighted rating) or "
       "prefers it or the reference (pairwise, both orders) (needs --config or --llm-base-url)",
       {option_choice("mode", "pointwise", {"pointwise", "pairwise", "geval"},
                      "pointwise: a rating on the scale; pairwise: candidate against the "
                      "reference, asked in both orders (score 1 preferred, 0.5 tie, 0 not); "
                      "geval: G-Eval, a bare rating weighted by its token probabilities or "
                      "averaged over samples (see estimate)"),
        option_choice("estimate", "logprobs", {"logprobs", "samples"},
                      "geval: logprobs weights the scale values among the top log-probabilities "
                      "at the rating token (sum p*value / sum p, p >= 1%); samples averages "
                      "`samples` ratings sampled at `temperature`"),
        option_int("top_logprobs", 20, 1, 20,
                   "geval, estimate=logprobs: alternatives asked per token"),
        option_number("temperature", "1", 0.01, 2,
                      "geval, estimate=samples: the sampling temperature"),
        option_choice("reference", "required", {"required", "none"},
                      "none: rate without a reference (reference-free tasks; pointwise only)"),
        option_choice("prompt", "delimited", {"naive", "delimited", "sandwich", "instructed"},
                      "how the prompt frames the texts: plain labels, <<< >>> markers, the "
                      "instruction repeated after them, or a warning that they are data"),
        option_choice("ties", "disagree", {"disagree", "first", "random"},
                      "pairwise: when the two orders disagree, a tie, the first order's verdict "
                      "or a coin seeded by the item's texts"),
        option_text("scale", "1-5", "the rating scale <lo>-<hi> (at most 100 apart)"),
        option_int("samples", 1, 1, 64, "verdicts averaged per item (repeated-sampling index)"),
        option_int("reasks", 2, 0, 10, "re-asks of an unparseable answer (pointwise, pairwise)"),
        option_text("llm", "judge", "the configuration role of the endpoint"),
        option_text("prompts", "", "a directory of prompt templates (default: probity's)")},
       make_judge});
}

}  // namespace probity::metrics
