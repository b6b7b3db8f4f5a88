// ExPerT, LLM realisation (see expert_llm.hpp).
#include "metrics/expert_llm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <exception>
#include <optional>
#include <set>
#include <utility>

#include "llm/schema.hpp"
#include "probity/signature.hpp"
#include "probity/text.hpp"

namespace probity::metrics::expert {
namespace {
using llm::trim;

using json = nlohmann::json;

// Memoized extractions kept at most (every perturbed text of an audit is a new one).
constexpr std::size_t kMaxMemo = 100000;

// Line breaks and tabs become spaces, so one aspect stays on its lines of a numbered list.
std::string one_line(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return trim(out);
}

std::set<std::string> word_set(std::string_view s) {
  const auto words = words_of(s);
  return {words.begin(), words.end()};
}

// The sentence of the text that shares most words with the evidence (the first on ties).
std::size_t evidence_sentence(const std::vector<std::string>& sentences,
                              std::string_view evidence) {
  const auto words = word_set(evidence);
  std::size_t best = 0, best_overlap = 0;
  for (std::size_t k = 0; k < sentences.size(); ++k) {
    std::size_t overlap = 0;
    for (const auto& w : word_set(sentences[k])) overlap += words.count(w);
    if (overlap > best_overlap) {
      best_overlap = overlap;
      best = k;
    }
  }
  return best;
}

// The aspect as shown to the model: its title, then its evidence.
std::string aspect_block(const Aspect& a) {
  return fmt::format("{}\nevidence: {}", one_line(a.title), one_line(a.evidence));
}

// A required "rationale" string (possibly empty).
std::optional<std::string> rationale_of(const json& j, std::string& error) {
  if (!j.contains("rationale") || !j.at("rationale").is_string()) {
    error = "the JSON object needs a \"rationale\" string";
    return std::nullopt;
  }
  return trim(j.at("rationale").get<std::string>());
}

// {"aspects": [{"title": non-empty string, "evidence": non-empty string or list of strings}]},
// at least one aspect (only non-blank texts are asked).
std::optional<json> parse_aspects(const json& j, std::string& error) {
  if (!j.contains("aspects") || !j.at("aspects").is_array()) {
    error = "the JSON object needs an \"aspects\" list";
    return std::nullopt;
  }
  const auto& list = j.at("aspects");
  if (list.empty()) {
    error = "\"aspects\" is empty, but the text says something: list its aspects";
    return std::nullopt;
  }
  json out = json::array();
  for (std::size_t k = 0; k < list.size(); ++k) {
    const auto& e = list[k];
    if (!e.is_object()) {
      error = fmt::format("aspect {} is not an object with \"title\" and \"evidence\"", k + 1);
      return std::nullopt;
    }
    if (!e.contains("title") || !e.at("title").is_string() ||
        trim(e.at("title").get<std::string>()).empty()) {
      error = fmt::format("aspect {} needs a non-empty \"title\" string", k + 1);
      return std::nullopt;
    }
    std::string evidence;
    if (e.contains("evidence") && e.at("evidence").is_string()) {
      evidence = trim(e.at("evidence").get<std::string>());
    } else if (e.contains("evidence") && e.at("evidence").is_array()) {
      // The paper's form: a list of sentences.
      for (const auto& s : e.at("evidence")) {
        if (!s.is_string()) {
          evidence.clear();
          break;
        }
        const std::string t = trim(s.get<std::string>());
        if (t.empty()) continue;
        if (!evidence.empty()) evidence += ' ';
        evidence += t;
      }
    }
    if (evidence.empty()) {
      error = fmt::format(
          "aspect {} needs \"evidence\": the sentence(s) of the text that express it", k + 1);
      return std::nullopt;
    }
    out.push_back({{"title", trim(e.at("title").get<std::string>())}, {"evidence", evidence}});
  }
  return out;
}

}  // namespace

LlmAspectJudge::LlmAspectJudge(LlmJudgeOptions options, std::shared_ptr<llm::Session> session)
    : options_(std::move(options)),
      session_(std::move(session)),
      client_(&session_->client(options_.role)),
      extract_(llm::load_prompt("expert_extract.v1", options_.prompts_dir)),
      match_(llm::load_prompt("expert_match.v1", options_.prompts_dir)),
      content_(llm::load_prompt("expert_content.v1", options_.prompts_dir)),
      style_(llm::load_prompt("expert_style.v1", options_.prompts_dir)) {}

std::shared_ptr<AspectJudge> make_llm_aspect_judge(LlmJudgeOptions options,
                                                   std::shared_ptr<llm::Session> session) {
  return std::make_shared<LlmAspectJudge>(std::move(options), std::move(session));
}

std::string LlmAspectJudge::signature() const {
  return Signature("judge:llm")
      .field("role", options_.role)
      .part(client_->signature())
      .field("reasks", options_.reasks)
      .field("max_words", options_.max_words)
      .field("prompts", llm::prompt_ids({&extract_, &match_, &content_, &style_}))
      .format();
}

void LlmAspectJudge::fit(std::span<const Task>) {
  // Nothing to learn: the model makes every judgment.
}

json LlmAspectJudge::ask(const std::string& prompt, const json& schema,
                         const llm::AnswerParser& parser) const {
  auto answers = llm::ask_structured(
      *client_, {prompt}, [&](std::size_t) { return schema; }, parser, options_.reasks);
  auto& a = answers.front();
  if (!a.ok) {
    failures_.add(a.error);
    throw StepFailure(
        fmt::format("{} (after {} request{})", a.error, a.asks, a.asks == 1 ? "" : "s"));
  }
  return std::move(a.value);
}

LlmAspectJudge::Extraction LlmAspectJudge::ask_extraction(const std::string& text) const {
  const std::string prompt = extract_.render({{"text", text}});
  const json schema = llm::schema::object(
      {{"aspects", llm::schema::array(llm::schema::object({{"title", llm::schema::string(120)},
                                                           {"evidence", llm::schema::string(400)}}),
                                      1, 16)}});
  auto answers = llm::ask_structured(
      *client_, {prompt}, [&](std::size_t) { return schema; },
      [](std::size_t, const json& j, std::string& error) { return parse_aspects(j, error); },
      options_.reasks);
  const auto& a = answers.front();
  Extraction e;
  if (!a.ok) {
    failures_.add(a.error);
    e.error = fmt::format("{} (after {} request{})", a.error, a.asks, a.asks == 1 ? "" : "s");
    return e;
  }
  const auto sentences = text::split_sentences(text);
  for (const auto& item : a.value) {
    Aspect aspect;
    aspect.title = item.at("title").get<std::string>();
    aspect.evidence = item.at("evidence").get<std::string>();
    aspect.sentence = evidence_sentence(sentences, aspect.evidence);
    e.aspects.push_back(std::move(aspect));
  }
  e.ok = true;
  return e;
}

std::vector<Aspect> LlmAspectJudge::extract(std::string_view text) const {
  const std::string t = truncate_words(text, options_.max_words);
  if (trim(t).empty()) return {};  // nothing to extract, nothing asked
  // One question per text, whoever asks first; the others wait for its answer.
  std::promise<Extraction> promise;
  std::shared_future<Extraction> answer;
  bool mine = false;
  {
    std::lock_guard lock(mutex_);
    auto it = extractions_.find(t);
    if (it != extractions_.end()) {
      answer = it->second;
    } else {
      if (extractions_.size() >= kMaxMemo) extractions_.clear();
      answer = promise.get_future().share();
      extractions_.emplace(t, answer);
      mine = true;
    }
  }
  if (mine) {
    try {
      promise.set_value(ask_extraction(t));
    } catch (...) {
      promise.set_exception(std::current_exception());
    }
  }
  const Extraction& e = answer.get();
  if (!e.ok) throw StepFailure(e.error);
  return e.aspects;
}

MatchDecision LlmAspectJudge::match(const Aspect& aspect, std::span<const Aspect> others) const {
  MatchDecision d;
  if (others.empty()) {
    d.rationale = "no match: the other text has no aspects (nothing asked)";
    return d;
  }
  std::string list;
  for (std::size_t k = 0; k < others.size(); ++k)
    list += fmt::format("{}. {}\n   evidence: {}\n", k + 1, one_line(others[k].title),
                        one_line(others[k].evidence));
  const std::string prompt = match_.render({{"aspect", aspect_block(aspect)}, {"aspects", list}});
  const int n = static_cast<int>(others.size());
  auto parser = [n](std::size_t, const json& j, std::string& error) -> std::optional<json> {
    if (!j.contains("match")) {
      error = "the JSON object has no \"match\" field";
      return std::nullopt;
    }
    json out;
    if (j.at("match").is_null()) {
      out["partner"] = nullptr;
    } else {
      auto k = llm::get_int_field(j, "match", 1, n, error);
      if (!k) {
        error += " (or null for no match)";
        return std::nullopt;
      }
      out["partner"] = *k - 1;
    }
    auto why = rationale_of(j, error);
    if (!why) return std::nullopt;
    out["rationale"] = *why;
    return out;
  };
  const json schema =
      llm::schema::object({{"match", llm::schema::nullable(llm::schema::integer(1, n))},
                           {"rationale", llm::schema::string(400)}});
  const json v = ask(prompt, schema, parser);
  d.rationale = v.at("rationale").get<std::string>();
  if (!v.at("partner").is_null()) {
    d.partner = v.at("partner").get<std::size_t>();
    d.score = 1.0;  // the model's decision is binary: 1 matched, 0 not
  }
  return d;
}

Judgment LlmAspectJudge::judgment(const llm::PromptTemplate& prompt,
                                  const std::map<std::string, std::string>& values) const {
  auto parser = [](std::size_t, const json& j, std::string& error) -> std::optional<json> {
    auto aligned = llm::get_bool_field(j, "aligned", error);
    if (!aligned) return std::nullopt;
    auto why = rationale_of(j, error);
    if (!why) return std::nullopt;
    return json{{"aligned", *aligned}, {"rationale", *why}};
  };
  static const json schema = llm::schema::object(
      {{"aligned", llm::schema::boolean()}, {"rationale", llm::schema::string(400)}});
  const json v = ask(prompt.render(values), schema, parser);
  Judgment j;
  j.value = v.at("aligned").get<bool>();
  j.rationale = v.at("rationale").get<std::string>();
  return j;
}

Judgment LlmAspectJudge::content(const Aspect& a, const Aspect& b) const {
  return judgment(content_, {{"aspect_a", aspect_block(a)}, {"aspect_b", aspect_block(b)}});
}

Judgment LlmAspectJudge::style(const Aspect& a, const Aspect& b) const {
  // Only the evidence, as in the paper: the titles would bring the content back in.
  return judgment(style_,
                  {{"evidence_a", one_line(a.evidence)}, {"evidence_b", one_line(b.evidence)}});
}

}  // namespace probity::metrics::expert
