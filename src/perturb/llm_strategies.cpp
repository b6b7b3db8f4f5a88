#include "perturb/llm_strategies.hpp"

#include <fmt/format.h>

#include <cmath>
#include <mutex>

#include "llm/prompts.hpp"
#include "llm/schema.hpp"
#include "llm/session.hpp"
#include "llm/structured.hpp"
#include "perturb/strategies.hpp"
#include "probity/error.hpp"
#include "probity/signature.hpp"
#include "probity/text.hpp"

namespace probity::perturb {
namespace {

constexpr int kReasks = 2;

// A filler paragraph: a few sentences.
constexpr std::size_t kFillerChars = 1000;

// Every rewrite prompt asks for {"text": "..."}, at most `max_chars` long.
nlohmann::json text_answer(std::size_t max_chars) {
  return llm::schema::object({{"text", llm::schema::string(max_chars)}});
}
constexpr std::string_view kGap = "[GAP]";

// What a prompt needs of one item, or why the strategy does not apply to it.
struct Prepared {
  std::map<std::string, std::string> values;
  std::optional<PerturbResult> instead;  // not applicable / unchanged: no request
  std::size_t max_words = 0;             // U: the answer's cap (0: none)
};

PerturbResult status(PerturbResult::Status s, std::string note) {
  PerturbResult r;
  r.status = s;
  r.note = std::move(note);
  return r;
}

// The v2 realisation of each strategy that has one: how its prompt is filled.
Prepared prepare_v2(StrategyKind kind, const std::string& code, const PerturbContext& context) {
  const Task& task = context.task_ref();
  const std::string& text = context.candidate_ref().text;
  Prepared p;
  if (kind == StrategyKind::kDegradation && code == "D") {
    std::size_t gaps = 0;
    p.values["gapped"] = gapped_text(text, kGap, gaps);
    if (gaps == 0)
      p.instead =
          status(PerturbResult::Status::kUnchanged, "no section has a second sentence to delete");
  } else if (kind == StrategyKind::kDegradation && code == "P") {
    // The papers' hardest test: regenerated from weak context only, never from the full source
    // or the original answer (its length and sentence count are all the prompt learns of it).
    const std::size_t words = count_words(text);
    std::string what, text_kind;
    const std::string weak =
        weak_context(task, std::max<std::size_t>(60, 2 * words), what, text_kind);
    if (task.source.find_first_not_of(" \t\r\n") == std::string::npos) {
      p.instead = status(PerturbResult::Status::kNotApplicable, "the task has no source");
    } else if (weak.empty()) {
      p.instead = status(PerturbResult::Status::kNotApplicable, "the source has no usable text");
    } else {
      p.values = {
          {"weak_context", weak},
          {"context_kind", what},
          {"kind", text_kind},
          {"words", std::to_string(std::max<std::size_t>(words, 1))},
          {"sentences", std::to_string(std::max<std::size_t>(parse_doc(text).num_sentences(), 1))}};
    }
  } else if (kind == StrategyKind::kDegradation && code == "U") {
    const std::size_t words = count_words(text);
    p.max_words = std::max<std::size_t>(
        1, static_cast<std::size_t>(std::lround(0.1 * static_cast<double>(words))));
    p.values = {{"candidate", text}, {"words", std::to_string(p.max_words)}};
  } else {
    p.values = {{"candidate", text}};
  }
  return p;
}

// The v1 prompts of every strategy, kept to reproduce earlier runs.
Prepared prepare_v1(const llm::PromptTemplate& prompt, const PerturbContext& context) {
  const Task& task = context.task_ref();
  Prepared p;
  p.values = {{"candidate", context.candidate_ref().text}};
  if (prompt.text.find("{source}") != std::string::npos) {
    if (task.source.empty())
      p.instead = status(PerturbResult::Status::kNotApplicable, "the task has no source");
    p.values["source"] = task.source;
  }
  return p;
}

class LlmStrategy final : public Perturbation {
 public:
  LlmStrategy(const PerturbationInfo& rules, std::string version,
              std::shared_ptr<llm::Session> session)
      : kind_(rules.kind),
        code_(rules.code),
        name_(rules.name),
        description_(rules.description),
        version_(std::move(version)),
        session_(std::move(session)),
        client_(&session_->client("perturber")),
        prompt_(llm::load_prompt(
            fmt::format("perturb_{}_{}.{}", kind_name(rules.kind), rules.code, version_))) {}

  StrategyKind kind() const override { return kind_; }
  std::string code() const override { return llm_strategy_code(code_, version_); }
  std::string name() const override { return llm_strategy_code(name_, version_); }
  std::string description() const override {
    return description_ + fmt::format(" (LLM realisation, prompts {})", version_);
  }
  std::string signature() const override {
    return Signature(fmt::format("{}/{}:{}:llm", kind_name(kind_), code_, name_))
        .field("role", "perturber")
        .part(client_->signature())
        .field("prompt", prompt_.id())
        .format();
  }

  PerturbResult apply(const PerturbContext& context) const override {
    return apply_many(std::span<const PerturbContext>(&context, 1))[0];
  }
  bool batched() const override { return true; }

  // Every applicable context's prompt in one ask_structured batch.
  std::vector<PerturbResult> apply_many(std::span<const PerturbContext> contexts) const override {
    std::vector<PerturbResult> out(contexts.size());
    std::vector<std::string> prompts;
    std::vector<std::int64_t> seeds;
    std::vector<std::size_t> asked, caps;  // index in `contexts` and word cap of each prompt
    for (std::size_t i = 0; i < contexts.size(); ++i) {
      const PerturbContext& context = contexts[i];
      if (context.dataset == nullptr || context.task >= context.dataset->tasks.size() ||
          context.candidate >= context.task_ref().candidates.size()) {
        out[i] = status(PerturbResult::Status::kFailed,
                        "invalid perturbation context (no dataset, or task/candidate out of "
                        "range)");
        continue;
      }
      // Nothing to rewrite in an empty candidate (the surface report needs only the source).
      if (text::is_blank(context.candidate_ref().text) &&
          !(kind_ == StrategyKind::kDegradation && code_ == "P" && version_ != "v1")) {
        out[i] = status(PerturbResult::Status::kNotApplicable, "empty candidate");
        continue;
      }
      Prepared p =
          version_ == "v1" ? prepare_v1(prompt_, context) : prepare_v2(kind_, code_, context);
      if (p.instead) {
        out[i] = std::move(*p.instead);
        continue;
      }
      prompts.push_back(prompt_.render(p.values));
      // The item seed makes the generation reproducible and keys the cache per run seed.
      seeds.push_back(static_cast<std::int64_t>(
          item_seed(context.seed, name(), context.task_ref().task_id, context.candidate_ref().id) >>
          1));
      asked.push_back(i);
      caps.push_back(p.max_words);
    }
    if (prompts.empty()) return out;
    const bool gapped = version_ != "v1" && code_ == "D" && kind_ == StrategyKind::kDegradation;
    auto parser = [&](std::size_t k, const nlohmann::json& j,
                      std::string& error) -> std::optional<nlohmann::json> {
      if (!j.contains("text") || !j.at("text").is_string() ||
          j.at("text").get<std::string>().empty()) {
        error = "the JSON object needs a non-empty \"text\" string";
        return std::nullopt;
      }
      const std::string text = j.at("text").get<std::string>();
      if (gapped && text.find(kGap) != std::string::npos)
        throw llm::ContentCheckFailed{"a [GAP] left unfilled",
                                      "every [GAP] must be replaced by a sentence"};
      // A compression that kept more than twice its cap did not compress.
      if (caps[k] > 0 && count_words(text) > 2 * caps[k] + 2)
        throw llm::ContentCheckFailed{
            "over twice the word cap",
            fmt::format("the text has {} words; the cap is {}", count_words(text), caps[k])};
      return j.at("text");
    };
    const auto schema = [&](std::size_t k) {
      return text_answer(llm::rewrite_chars(contexts[asked[k]].candidate_ref().text));
    };
    auto answers = llm::ask_structured(*client_, prompts, schema, parser, kReasks, {}, seeds);
    for (std::size_t k = 0; k < asked.size(); ++k) {
      PerturbResult& r = out[asked[k]];
      const auto& a = answers[k];
      if (!a.ok) {
        r = status(PerturbResult::Status::kFailed, a.error);
        continue;
      }
      r.text = a.value.get<std::string>();
      if (r.text == contexts[asked[k]].candidate_ref().text) {
        r.status = PerturbResult::Status::kUnchanged;
        r.note = "the model returned the text unchanged";
      }
    }
    return out;
  }

 private:
  StrategyKind kind_;
  std::string code_, name_, description_, version_;
  std::shared_ptr<llm::Session> session_;
  llm::Client* client_;
  llm::PromptTemplate prompt_;
};

// Meaningless elongation as the papers define it: the SAME semantically empty filler appended
// to every candidate. The model writes the filler once per run (seeded, cached).
class LlmFixedFiller final : public Perturbation {
 public:
  LlmFixedFiller(const PerturbationInfo& rules, std::shared_ptr<llm::Session> session)
      : name_(rules.name),
        description_(rules.description),
        session_(std::move(session)),
        client_(&session_->client("perturber")),
        prompt_(llm::load_prompt("perturb_manipulation_M.v2")) {}

  StrategyKind kind() const override { return StrategyKind::kManipulation; }
  std::string code() const override { return llm_strategy_code("M", "v2"); }
  std::string name() const override { return llm_strategy_code(name_, "v2"); }
  std::string description() const override {
    return "append one fixed, content-free filler written once by the model (identical for all "
           "items; LLM realisation, prompts v2)";
  }
  std::string signature() const override {
    return Signature(fmt::format("manipulation/M:{}:llm", name_))
        .field("role", "perturber")
        .part(client_->signature())
        .field("prompt", prompt_.id())
        .format();
  }
  PerturbResult apply(const PerturbContext& context) const override {
    return apply_many(std::span<const PerturbContext>(&context, 1))[0];
  }
  bool batched() const override { return true; }

  std::vector<PerturbResult> apply_many(std::span<const PerturbContext> contexts) const override {
    std::vector<PerturbResult> out(contexts.size());
    for (std::size_t i = 0; i < contexts.size(); ++i) {
      const PerturbContext& c = contexts[i];
      if (c.dataset == nullptr || c.task >= c.dataset->tasks.size() ||
          c.candidate >= c.task_ref().candidates.size()) {
        out[i] = status(PerturbResult::Status::kFailed, "invalid perturbation context");
        continue;
      }
      std::string error;
      const std::string* filler = filler_for(c, error);
      if (!filler) {
        out[i] = status(PerturbResult::Status::kFailed, error);
        continue;
      }
      std::string text = c.candidate_ref().text;
      while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\t' ||
                               text.back() == '\r'))
        text.pop_back();
      // A multi-line answer gets the filler as its own paragraph, as the rule-based M does.
      out[i].text = text.empty()
                        ? *filler
                        : text + (text.find('\n') != std::string::npos ? "\n\n" : " ") + *filler;
    }
    return out;
  }

 private:
  // One filler per (run seed, kind of text); asked on first use.
  const std::string* filler_for(const PerturbContext& c, std::string& error) const {
    std::string what, kind;
    weak_context(c.task_ref(), 1, what, kind);
    const std::string key = fmt::format("{}|{}", c.seed, kind);
    std::lock_guard lock(mutex_);
    if (auto it = fillers_.find(key); it != fillers_.end()) return &it->second;
    auto parser = [](std::size_t, const nlohmann::json& j,
                     std::string& e) -> std::optional<nlohmann::json> {
      if (!j.contains("text") || !j.at("text").is_string() ||
          llm::trim(j.at("text").get<std::string>()).empty()) {
        e = "the JSON object needs a non-empty \"text\" string";
        return std::nullopt;
      }
      return llm::trim(j.at("text").get<std::string>());
    };
    auto answers =
        llm::ask_structured(*client_, {prompt_.render({{"kind", kind}})},
                            [](std::size_t) { return text_answer(kFillerChars); }, parser, kReasks,
                            {}, {static_cast<std::int64_t>(c.seed >> 1)});
    if (!answers[0].ok) {
      error = answers[0].error;
      return nullptr;
    }
    return &fillers_.emplace(key, answers[0].value.get<std::string>()).first->second;
  }

  std::string name_, description_;
  std::shared_ptr<llm::Session> session_;
  llm::Client* client_;
  llm::PromptTemplate prompt_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, std::string> fillers_;
};

}  // namespace

std::string llm_strategy_code(std::string_view rules_code, std::string_view version) {
  return fmt::format("llm-{}{}", rules_code, version == "v2" ? "" : "@" + std::string(version));
}

bool has_llm_realisation_v2(StrategyKind kind, std::string_view code) {
  // Random replacement and sentence deletion are rule operations in the papers (sampling another
  // task's response; deleting every other sentence): an LLM would only make them worse.
  return !(kind == StrategyKind::kDegradation && (code == "R" || code == "S"));
}

void register_llm_strategies(PerturbationRegistry& registry,
                             std::shared_ptr<llm::Session> session) {
  for (auto kind : {StrategyKind::kDegradation, StrategyKind::kManipulation})
    for (const auto* info : registry.list(kind))
      if (info->code.starts_with("llm-")) return;  // already registered
  std::vector<PerturbationInfo> add;
  for (auto kind : {StrategyKind::kDegradation, StrategyKind::kManipulation}) {
    // The rule-based strategies define the set, codes, names and descriptions.
    for (const auto* info : registry.list(kind)) {
      if (info->code.starts_with("llm-")) continue;
      const PerturbationInfo rules{info->kind, info->code, info->name, info->description, {}};
      for (const std::string version : {"v2", "v1"}) {
        if (version == "v2" && !has_llm_realisation_v2(kind, info->code)) continue;
        PerturbationInfo copy{info->kind,
                              llm_strategy_code(info->code, version),
                              llm_strategy_code(info->name, version),
                              info->description + fmt::format(" (LLM realisation, {})", version),
                              {}};
        const bool filler =
            version == "v2" && kind == StrategyKind::kManipulation && info->code == "M";
        copy.factory = [rules, version, filler, session] {
          if (filler)
            return std::unique_ptr<Perturbation>(std::make_unique<LlmFixedFiller>(rules, session));
          return std::unique_ptr<Perturbation>(
              std::make_unique<LlmStrategy>(rules, version, session));
        };
        add.push_back(std::move(copy));
      }
    }
  }
  for (auto& info : add) registry.add(std::move(info));
}

std::vector<std::string> llm_strategy_names(StrategyKind kind,
                                            const std::vector<std::string>& names,
                                            const PerturbationRegistry& registry) {
  if (names.size() == 1 && names.front() == "none") return names;
  std::vector<std::string> out;
  auto one = [&](const std::string& code) {
    out.push_back(has_llm_realisation_v2(kind, code) ? llm_strategy_code(code, "v2") : code);
  };
  for (const auto& n : names) {
    if (n == "all") {
      for (const auto* info : registry.list(kind))
        if (!info->code.starts_with("llm-")) one(info->code);
    } else if (n.starts_with("llm")) {
      out.push_back(n);
    } else {
      // A name (sentence-deletion) or a code (S): its rule-based code decides.
      std::string code = n;
      for (const auto* info : registry.list(kind))
        if (info->name == n) code = info->code;
      one(code);
    }
  }
  return out;
}

std::string canonical_strategy_name(StrategyKind kind, std::string_view name,
                                    const PerturbationRegistry& registry) {
  // "llm:D" and "llm:D@v1" on the command line; "llm-D" and "llm-D@v1" in the registry (taken
  // too, with the same checks).
  if (!name.starts_with("llm:") && !name.starts_with("llm-")) return std::string(name);
  std::string rest(name.substr(4));
  std::string version = "v2";
  if (auto at = rest.find('@'); at != std::string::npos) {
    version = rest.substr(at + 1);
    rest.resize(at);
  }
  if (version != "v1" && version != "v2")
    throw UsageError(fmt::format("{} '{}': the LLM prompts are v1 or v2", kind_name(kind), name));
  for (const auto* info : registry.list(kind))
    if (info->name == rest) rest = info->code;
  if (version == "v2" && !has_llm_realisation_v2(kind, rest))
    throw UsageError(fmt::format(
        "{} '{}' has no LLM realisation in the papers' protocol: the paper {} by rule; use "
        "'{}' (rules), or 'llm:{}@v1' for the v1 prompt",
        kind_name(kind), name,
        rest == "R" ? "samples another task's response" : "deletes every other sentence", rest,
        rest));
  return llm_strategy_code(rest, version);
}

namespace {

// An LLM strategy is in the registry only when its engine has an LLM session: say so.
void check_llm_available(StrategyKind kind, std::string_view given, const std::string& canonical,
                         const PerturbationRegistry& registry) {
  if (!canonical.starts_with("llm-")) return;
  for (const auto* info : registry.list(kind))
    if (info->code == canonical) return;
  throw UsageError(fmt::format(
      "{} '{}' is an LLM realisation: it needs an LLM endpoint (--config probity.toml or "
      "--llm-base-url and --llm-model; in Python, configure_llm)",
      kind_name(kind), given));
}

}  // namespace

std::unique_ptr<Perturbation> create_strategy(StrategyKind kind, std::string_view name,
                                              const PerturbationRegistry& registry) {
  const std::string canonical = canonical_strategy_name(kind, name, registry);
  check_llm_available(kind, name, canonical, registry);
  return registry.create(kind, canonical);
}

std::vector<std::unique_ptr<Perturbation>> create_strategies(StrategyKind kind,
                                                             const std::vector<std::string>& names,
                                                             const PerturbationRegistry& registry) {
  std::vector<std::string> canonical;
  for (const auto& n : names) {
    canonical.push_back(canonical_strategy_name(kind, n, registry));
    check_llm_available(kind, n, canonical.back(), registry);
  }
  std::vector<std::unique_ptr<Perturbation>> out;
  for (const auto* info : registry.resolve(kind, canonical)) out.push_back(info->factory());
  return out;
}

}  // namespace probity::perturb
