#include "perturb/llm_strategies.hpp"

#include <fmt/format.h>

#include <mutex>

#include "llm/prompts.hpp"
#include "llm/session.hpp"
#include "llm/structured.hpp"
#include "probity/error.hpp"

namespace probity::perturb {
namespace {

constexpr int kReasks = 2;

class LlmStrategy final : public Perturbation {
 public:
  LlmStrategy(const PerturbationInfo& rules, std::shared_ptr<llm::Session> session)
      : kind_(rules.kind),
        code_(rules.code),
        name_(rules.name),
        description_(rules.description),
        session_(std::move(session)),
        client_(&session_->client("perturber")),
        prompt_(
            llm::load_prompt(fmt::format("perturb_{}_{}.v1", kind_name(rules.kind), rules.code))) {}

  StrategyKind kind() const override { return kind_; }
  std::string code() const override { return "llm-" + code_; }
  std::string name() const override { return "llm-" + name_; }
  std::string description() const override { return description_ + " (LLM realisation)"; }
  std::string signature() const override {
    return fmt::format("{}/{}:{}:llm|role:perturber|{}|prompt:{}={}", kind_name(kind_), code_,
                       name_, client_->signature(), prompt_.name, prompt_.sha256.substr(0, 16));
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
    std::vector<std::size_t> asked;  // index in `contexts` of each prompt
    for (std::size_t i = 0; i < contexts.size(); ++i) {
      const PerturbContext& context = contexts[i];
      PerturbResult& r = out[i];
      if (context.dataset == nullptr || context.task >= context.dataset->tasks.size() ||
          context.candidate >= context.task_ref().candidates.size()) {
        r.status = PerturbResult::Status::kFailed;
        r.note = "invalid perturbation context (no dataset, or task/candidate out of range)";
        continue;
      }
      const Task& task = context.task_ref();
      const Candidate& cand = context.candidate_ref();
      std::map<std::string, std::string> values{{"candidate", cand.text}};
      if (prompt_.text.find("{source}") != std::string::npos) {
        if (task.source.empty()) {
          r.status = PerturbResult::Status::kNotApplicable;
          r.note = "the task has no source";
          continue;
        }
        values["source"] = task.source;
      }
      prompts.push_back(prompt_.render(values));
      // The item seed makes the generation reproducible and keys the cache per run seed.
      seeds.push_back(
          static_cast<std::int64_t>(item_seed(context.seed, name(), task.task_id, cand.id) >> 1));
      asked.push_back(i);
    }
    if (prompts.empty()) return out;
    auto parser = [](std::size_t, const nlohmann::json& j,
                     std::string& error) -> std::optional<nlohmann::json> {
      if (!j.contains("text") || !j.at("text").is_string() ||
          j.at("text").get<std::string>().empty()) {
        error = "the JSON object needs a non-empty \"text\" string";
        return std::nullopt;
      }
      return j.at("text");
    };
    auto answers = llm::ask_structured(*client_, prompts, parser, kReasks, {}, seeds);
    for (std::size_t k = 0; k < asked.size(); ++k) {
      PerturbResult& r = out[asked[k]];
      const auto& a = answers[k];
      if (!a.ok) {
        r.status = PerturbResult::Status::kFailed;
        r.note = a.error;
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
  std::string code_, name_, description_;
  std::shared_ptr<llm::Session> session_;
  llm::Client* client_;
  llm::PromptTemplate prompt_;
};

}  // namespace

void register_llm_strategies(PerturbationRegistry& registry) {
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  for (auto kind : {StrategyKind::kDegradation, StrategyKind::kManipulation})
    for (const auto* info : registry.list(kind))
      if (info->code.starts_with("llm-")) return;  // already registered
  std::vector<PerturbationInfo> add;
  for (auto kind : {StrategyKind::kDegradation, StrategyKind::kManipulation}) {
    // The rule-based strategies define the set, codes, names and descriptions.
    for (const auto* info : PerturbationRegistry::global().list(kind)) {
      if (info->code.starts_with("llm-")) continue;
      PerturbationInfo copy{info->kind,
                            "llm-" + info->code,
                            "llm-" + info->name,
                            info->description + " (LLM realisation)",
                            {}};
      PerturbationInfo rules{info->kind, info->code, info->name, info->description, {}};
      copy.factory = [rules] {
        return std::unique_ptr<Perturbation>(
            std::make_unique<LlmStrategy>(rules, llm::Session::current()));
      };
      add.push_back(std::move(copy));
    }
  }
  for (auto& info : add) registry.add(std::move(info));
}

std::vector<std::string> llm_strategy_names(StrategyKind kind,
                                            const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const auto& n : names) {
    if (n == "all") {
      for (const auto* info : PerturbationRegistry::global().list(kind))
        if (!info->code.starts_with("llm-")) out.push_back("llm-" + info->code);
    } else {
      out.push_back(n.starts_with("llm-") ? n : "llm-" + n);
    }
  }
  return out;
}

}  // namespace probity::perturb
