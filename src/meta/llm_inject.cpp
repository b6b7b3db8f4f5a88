// The LLM realisation of benchmark error injection (arXiv:2502.12052, ACL 2025, §"benchmark
// construction"): each step of a local sequence asks the model to inject ONE error of a named
// type into the current text. The answer is checked to be one localised edit that keeps every
// earlier edit (a token diff between common prefix and suffix), rejected answers are re-asked
// with the reason, and a step that still fails ends its sequence and is reported — never
// replaced by a no-op. The same step of every sequence goes out in one batch.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <stdexcept>

#include "llm/prompts.hpp"
#include "llm/schema.hpp"
#include "llm/session.hpp"
#include "llm/structured.hpp"
#include "probity/meta.hpp"
#include "probity/signature.hpp"
#include "probity/text.hpp"
#include "util/random.hpp"

namespace probity::meta {
namespace {

// What the model is asked to do for each error type (the rule-based injectors' names).
constexpr std::array<std::pair<std::string_view, std::string_view>, 14> kInstructions = {{
    {"swap-entity",
     "Replace one mention of a person, organisation or place with a different one (preferably "
     "another entity named in the input), so the text states something the input does not say."},
    {"swap-number",
     "Change one number (digits or a spelled-out number) to a different value, so the text "
     "states something the input does not say."},
    {"negate",
     "Negate one claim by adding or removing a negation such as \"not\", so that it states the "
     "opposite."},
    {"unsupported-claim",
     "Insert one new, plausible sentence that makes a claim the input does not support."},
    {"agreement",
     "Introduce one grammatical agreement error, e.g. a verb that no longer agrees with its "
     "subject (is/are, was/were, has/have) or a wrong article (a/an)."},
    {"word-order", "Swap two adjacent words so that the word order becomes ungrammatical."},
    {"duplicate-word", "Accidentally repeat one function word (e.g. \"the the\")."},
    {"drop-word",
     "Drop one function word (an article, preposition or auxiliary) so that a sentence becomes "
     "ungrammatical."},
    {"sentence-swap",
     "Swap two adjacent sentences so that the text no longer follows a logical order."},
    {"wrong-connective",
     "Put a discourse connective (e.g. \"However,\", \"Therefore,\", \"As a result,\") at the "
     "start of one sentence, asserting a relation to the previous sentence that does not hold."},
    {"swap-connective",
     "Replace one connective inside a sentence (because, although, but, so, while, ...) with one "
     "that expresses a different relation."},
    {"repeat-sentence", "Repeat one sentence of the text, word for word, after the next sentence."},
    {"remove-key-sentence",
     "Delete the one sentence that carries the most important information of the input."},
    {"off-topic",
     "Insert one sentence about a topic unrelated to the input and to the rest of the text."},
}};

std::string join(const std::vector<std::string>& tokens) {
  std::string out;
  for (const auto& t : tokens) {
    if (!out.empty()) out += ' ';
    out += t;
  }
  return out;
}

std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  for (auto w : text::split_whitespace(s)) out.emplace_back(w);
  return out;
}

// A rejected answer: the reason (a BuiltSequence::stop_reason) and the message sent back.
struct Rejection {
  std::string reason, message;
};

// The state of one sequence under construction.
struct Chain {
  const SequenceSpec* spec = nullptr;
  std::vector<std::string> tokens;
  std::vector<bool> touched;  // tokens an earlier step produced
  BuiltSequence out;
  bool done = false;
};

class LlmInjector final : public Injector {
 public:
  LlmInjector(std::shared_ptr<llm::Session> session, const LlmInjectorOptions& options)
      : session_(llm::require_session(std::move(session))),
        options_(options),
        client_(&session_->client(options.role)),
        prompt_(llm::load_prompt(options.prompt, options.prompts_dir)) {
    if (!(options.max_edit_share > 0.0 && options.max_edit_share <= 1.0))
      throw std::invalid_argument("LLM injector: max_edit_share must be in (0, 1]");
    if (options.max_reasks < 0) throw std::invalid_argument("LLM injector: max_reasks < 0");
  }

  std::string signature() const override {
    return Signature("llm")
        .field("role", options_.role)
        .part(client_->signature())
        .field("prompt", prompt_.id())
        .field("max_edit_share", options_.max_edit_share)
        .field("reasks", options_.max_reasks)
        .format();
  }

  std::vector<BuiltSequence> build(QualityDimension d,
                                   std::span<const SequenceSpec> specs) override {
    const auto types = injector_names(d);
    std::vector<Chain> chains(specs.size());
    std::size_t longest = 0;
    for (std::size_t i = 0; i < specs.size(); ++i) {
      Chain& c = chains[i];
      c.spec = &specs[i];
      // The same base normalisation as the rule-based path.
      c.out.texts.push_back(EditableText(specs[i].base).render());
      c.tokens = words(c.out.texts[0]);
      c.touched.assign(c.tokens.size(), false);
      c.done = c.tokens.empty() || specs[i].steps == 0;
      longest = std::max(longest, specs[i].steps);
    }
    for (std::size_t j = 0; j < longest; ++j) {
      // The step's error types in a seeded order: the first is the draw, the others stand in
      // when the model declares a type not applicable.
      std::vector<std::size_t> active;
      std::vector<std::vector<std::string>> order(chains.size());
      for (std::size_t i = 0; i < chains.size(); ++i) {
        if (chains[i].done || j >= chains[i].spec->steps) continue;
        active.push_back(i);
        order[i] = types;
        util::SplitMix64 rng(step_seed(chains[i], j));
        for (std::size_t k = order[i].size(); k > 1; --k)
          std::swap(order[i][k - 1], order[i][rng.below(k)]);
      }
      for (std::size_t attempt = 0; attempt < types.size() && !active.empty(); ++attempt)
        active = ask_step(d, chains, active, order, j, attempt);
      for (std::size_t i : active) {  // every type declared not applicable
        chains[i].out.stop_reason = "not-applicable";
        chains[i].out.stop_detail = "the model declared every error type not applicable";
        chains[i].done = true;
      }
    }
    std::vector<BuiltSequence> out;
    out.reserve(chains.size());
    for (auto& c : chains) out.push_back(std::move(c.out));
    return out;
  }

 private:
  static std::uint64_t step_seed(const Chain& c, std::size_t j) {
    return derive_seed(c.spec->seed, {"llm-step", std::to_string(j)});
  }

  // Checks an answer against the current text; the edit or why it is rejected.
  std::optional<Edit> check(const Chain& c, const std::vector<std::string>& after,
                            Rejection& why) const {
    Edit e = token_diff(c.tokens, after);
    const std::size_t n = c.tokens.size();
    if (e.removed == 0 && e.inserted == 0) {
      why = {"unchanged", "the text is unchanged: inject exactly one error of the requested type"};
      return std::nullopt;
    }
    std::string undone;  // the first earlier-edit word the answer changes
    for (std::size_t k = e.begin; k < e.begin + e.removed && undone.empty(); ++k)
      if (c.touched[k]) undone = c.tokens[k];
    const std::string undo_message =
        undone.empty() ? ""
                       : fmt::format(
                             "the answer changes the word \"{}\", which an earlier error "
                             "introduced: leave every existing error as it is",
                             undone);
    // A rewrite that also undoes an earlier error is reported as too large, naming both.
    const std::size_t changed = std::max(e.removed, e.inserted);
    if (static_cast<double>(changed) > options_.max_edit_share * static_cast<double>(n)) {
      why = {"too-large",
             fmt::format("the answer changes {} of the text's {} words (more than {:g}%): change "
                         "only one small span and copy the rest of the text exactly{}",
                         changed, n, 100.0 * options_.max_edit_share,
                         undone.empty() ? "" : "; also, " + undo_message)};
      return std::nullopt;
    }
    if (!undone.empty()) {
      why = {"earlier-edit", undo_message};
      return std::nullopt;
    }
    return e;
  }

  // One attempt of step j for the chains in `pending` with their attempt-th error type; returns
  // the chains whose model declared the type not applicable (they try the next type).
  std::vector<std::size_t> ask_step(QualityDimension d, std::vector<Chain>& chains,
                                    const std::vector<std::size_t>& pending,
                                    const std::vector<std::vector<std::string>>& order,
                                    std::size_t j, std::size_t attempt) {
    std::vector<std::string> prompts;
    std::vector<std::int64_t> seeds;
    for (std::size_t i : pending) {
      const Chain& c = chains[i];
      const std::string& type = order[i][attempt];
      const std::string_view source =
          c.spec->context != nullptr ? c.spec->context->source : std::string_view{};
      prompts.push_back(
          prompt_.render({{"dimension", std::string(dimension_name(d))},
                          {"error_type", type},
                          {"error_instruction", std::string(llm_error_instruction(type))},
                          {"source", source.empty() ? "(none)" : std::string(source)},
                          {"text", join(c.tokens)}}));
      // The request carries the step's seed: the same run asks the same questions (cache hits).
      seeds.push_back(static_cast<std::int64_t>(derive_seed(step_seed(c, j), {type}) >> 1));
    }
    auto parser = [&](std::size_t k, const nlohmann::json& j_answer,
                      std::string& error) -> std::optional<nlohmann::json> {
      auto reject = [&](std::string message) {
        error = std::move(message);
        return std::nullopt;
      };
      if (j_answer.contains("applicable")) {
        std::string e;
        auto b = llm::get_bool_field(j_answer, "applicable", e);
        if (b && !*b) return nlohmann::json{{"applicable", false}};
      }
      if (!j_answer.contains("text") || !j_answer.at("text").is_string() ||
          j_answer.at("text").get<std::string>().empty())
        return reject("the JSON object needs a non-empty \"text\" string");
      if (!j_answer.contains("error") || !j_answer.at("error").is_string())
        return reject("the JSON object needs an \"error\" string describing the error");
      const auto after = words(j_answer.at("text").get<std::string>());
      Rejection why;
      auto e = check(chains[pending[k]], after, why);
      if (!e) throw llm::ContentCheckFailed{why.reason, why.message};
      return nlohmann::json{{"tokens", after},
                            {"error", j_answer.at("error").get<std::string>()},
                            {"begin", e->begin},
                            {"removed", e->removed},
                            {"inserted", e->inserted}};
    };
    // Every field required (strict decoders need that): a refusal is "applicable": false with
    // the others empty.
    std::vector<std::size_t> bounds;
    for (std::size_t i : pending) bounds.push_back(llm::rewrite_chars(join(chains[i].tokens)));
    const auto schema = [&](std::size_t k) {
      return llm::schema::object({{"applicable", llm::schema::boolean()},
                                  {"text", llm::schema::string(bounds[k])},
                                  {"error", llm::schema::string(300)}});
    };
    auto answers =
        llm::ask_structured(*client_, prompts, schema, parser, options_.max_reasks, {}, seeds);

    std::vector<std::size_t> not_applicable;
    for (std::size_t k = 0; k < pending.size(); ++k) {
      Chain& c = chains[pending[k]];
      const auto& a = answers[k];
      // Every answered round but an accepted last one was rejected (a transport failure ends
      // the re-asks, so it can only be the last round).
      const std::size_t rounds = static_cast<std::size_t>(std::max(a.asks, 1));
      if (!a.ok) {
        const bool transport = a.failure == llm::Answer::Failure::kRequest;
        c.out.rejected_answers += rounds - (transport ? 1 : 0);
        if (transport) {
          c.out.stop_reason = "request-failed";
        } else if (!a.check.empty()) {
          c.out.stop_reason = a.check;  // the content check the last answer failed
        } else {
          c.out.stop_reason = "unparseable";
        }
        c.out.stop_detail =
            fmt::format("{} error, step {}: {}", order[pending[k]][attempt], j + 1, a.error);
        c.done = true;
        continue;
      }
      c.out.rejected_answers += rounds - 1;
      if (a.value.contains("applicable")) {
        not_applicable.push_back(pending[k]);
        continue;
      }
      Edit e;
      e.type = order[pending[k]][attempt];
      e.description = a.value.at("error").get<std::string>();
      e.begin = a.value.at("begin").get<std::size_t>();
      e.removed = a.value.at("removed").get<std::size_t>();
      e.inserted = a.value.at("inserted").get<std::size_t>();
      auto tokens = a.value.at("tokens").get<std::vector<std::string>>();
      std::vector<bool> touched(c.touched.begin(),
                                c.touched.begin() + static_cast<std::ptrdiff_t>(e.begin));
      touched.insert(touched.end(), e.inserted, true);
      touched.insert(touched.end(),
                     c.touched.begin() + static_cast<std::ptrdiff_t>(e.begin + e.removed),
                     c.touched.end());
      c.tokens = std::move(tokens);
      c.touched = std::move(touched);
      c.out.texts.push_back(join(c.tokens));
      c.out.edits.push_back(std::move(e));
      if (c.out.edits.size() == c.spec->steps || c.tokens.empty()) c.done = true;
    }
    return not_applicable;
  }

  std::shared_ptr<llm::Session> session_;
  LlmInjectorOptions options_;
  llm::Client* client_;
  llm::PromptTemplate prompt_;
};

}  // namespace

std::string_view llm_error_instruction(std::string_view type) {
  for (const auto& [name, instruction] : kInstructions)
    if (name == type) return instruction;
  throw std::invalid_argument(fmt::format("unknown error type '{}'", type));
}

std::unique_ptr<Injector> make_llm_injector(std::shared_ptr<llm::Session> session,
                                            const LlmInjectorOptions& options) {
  return std::make_unique<LlmInjector>(std::move(session), options);
}

}  // namespace probity::meta
