#include "audit/llm_attacker.hpp"

#include <fmt/format.h>

#include <cctype>
#include <set>
#include <unordered_set>

#include "llm/prompts.hpp"
#include "llm/schema.hpp"
#include "llm/session.hpp"
#include "llm/structured.hpp"
#include "perturb/edit_ops.hpp"
#include "perturb/lexicon.hpp"
#include "predict/support_judge.hpp"
#include "probity/error.hpp"
#include "probity/signature.hpp"
#include "probity/text.hpp"

namespace probity::attack {
namespace {

constexpr int kReasks = 2;
constexpr std::size_t kShown = 80;  // characters of a rejected sentence quoted in the reason

// Lower-case word tokens (letters, digits, inner apostrophes); "n't" becomes "not".
std::vector<std::string> words_of(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    while (!cur.empty() && cur.back() == '\'') cur.pop_back();
    if (cur.size() > 3 && cur.ends_with("n't")) {
      out.push_back(cur.substr(0, cur.size() - 3));
      out.push_back("not");
    } else if (!cur.empty() && cur != "'") {
      out.push_back(cur);
    }
    cur.clear();
  };
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || (c == '\'' && !cur.empty()) || u >= 0x80) {
      cur.push_back(static_cast<char>(std::tolower(u)));
    } else {
      flush();
    }
  }
  flush();
  return out;
}

bool has_digit(std::string_view w) {
  for (char c : w)
    if (std::isdigit(static_cast<unsigned char>(c))) return true;
  return false;
}

// The rewrite's sentences: its lines, each split at sentence ends (bullets and headings are
// lines of their own).
std::vector<std::string> sentences_of(std::string_view text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    for (auto& s : perturb::split_sentences(text.substr(start, end - start)))
      if (!text::is_blank(s)) out.push_back(std::move(s));
    start = end + 1;
  }
  return out;
}

std::string shorten(std::string_view s) {
  if (s.size() <= kShown) return std::string(s);
  std::size_t cut = kShown;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // UTF-8 start
  return std::string(s.substr(0, cut)) + "...";
}

class SupportGuard final : public InformationGuard {
 public:
  SupportGuard(std::span<const Task> tasks, std::uint64_t seed) : judge_({seed}) {
    judge_.fit(tasks, /*statement_targets=*/true);
    for (std::string_view phrase : perturb::generic_phrases())
      for (const auto& w : words_of(phrase)) generic_.insert(text::porter_stem(w));
  }
  std::string name() const override { return "support"; }
  std::string signature() const override {
    return Signature("guard:support").part(judge_.signature()).format();
  }

  std::vector<GuardVerdict> check(
      std::span<const std::pair<std::string, std::string>> pairs) const override {
    std::vector<GuardVerdict> out;
    out.reserve(pairs.size());
    for (const auto& [original, rewrite] : pairs) out.push_back(verdict(original, rewrite));
    return out;
  }

 private:
  GuardVerdict verdict(const std::string& original, const std::string& rewrite) const {
    std::unordered_set<std::string> known;
    bool original_negates = false;
    for (const auto& w : words_of(original)) {
      known.insert(text::porter_stem(w));
      original_negates |= perturb::lex::is_negator(w);
    }
    const double threshold = judge_.calibration().threshold;
    for (const auto& sentence : sentences_of(rewrite)) {
      std::vector<std::string> facts;  // numbers and negations the original lacks
      std::vector<std::string> added;  // other words outside the original and the generic ones
      for (const auto& w : words_of(sentence)) {
        if (perturb::lex::is_negator(w)) {
          if (!original_negates) facts.push_back(w);
          continue;
        }
        const std::string stem = text::porter_stem(w);
        if (known.count(stem)) continue;
        if (has_digit(w))
          facts.push_back(w);
        else if (!perturb::lex::is_function_word(w) && !generic_.count(stem))
          added.push_back(w);
      }
      GuardVerdict v;
      if (!facts.empty()) {
        v.reason = fmt::format("adds '{}' (a number or negation the original lacks) in \"{}\"",
                               fmt::join(facts, "', '"), shorten(sentence));
        return v;
      }
      if (added.empty() || judge_.support(original, sentence) >= threshold) continue;
      v.reason = fmt::format("adds '{}' in a sentence the original does not support: \"{}\"",
                             fmt::join(added, "', '"), shorten(sentence));
      return v;
    }
    GuardVerdict v;
    v.passed = true;
    return v;
  }

  predict::SupportJudge judge_;
  std::unordered_set<std::string> generic_;
};

class LlmGuard final : public InformationGuard {
 public:
  explicit LlmGuard(std::shared_ptr<llm::Session> session)
      : session_(llm::require_session(std::move(session))),
        client_(&session_->client("guard")),
        prompt_(llm::load_prompt("attack_guard.v1")) {}
  std::string name() const override { return "llm"; }
  std::string signature() const override {
    return Signature("guard:llm")
        .field("role", "guard")
        .part(client_->signature())
        .field("prompt", prompt_.id())
        .format();
  }

  std::vector<GuardVerdict> check(
      std::span<const std::pair<std::string, std::string>> pairs) const override {
    if (pairs.empty()) return {};
    std::vector<std::string> prompts;
    for (const auto& [original, rewrite] : pairs)
      prompts.push_back(prompt_.render({{"original", original}, {"rewrite", rewrite}}));
    auto parser = [](std::size_t, const nlohmann::json& j,
                     std::string& error) -> std::optional<nlohmann::json> {
      const auto adds = llm::get_bool_field(j, "adds_information", error);
      if (!adds) return std::nullopt;
      std::string claim;
      if (j.contains("new_claim") && j.at("new_claim").is_string())
        claim = j.at("new_claim").get<std::string>();
      return nlohmann::json{{"adds", *adds}, {"claim", claim}};
    };
    const auto schema = [](std::size_t) {
      return llm::schema::object(
          {{"adds_information", llm::schema::boolean()}, {"new_claim", llm::schema::string(400)}});
    };
    const auto answers = llm::ask_structured(*client_, prompts, schema, parser, kReasks);
    std::vector<GuardVerdict> out(pairs.size());
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      const auto& a = answers[i];
      if (!a.ok) {
        out[i].failed = true;
        out[i].reason = "guard: " + llm::describe_failure(a);
      } else if (a.value.at("adds").get<bool>()) {
        const std::string claim = a.value.at("claim").get<std::string>();
        out[i].reason = claim.empty() ? "the guard found new information"
                                      : fmt::format("the guard found \"{}\"", shorten(claim));
      } else {
        out[i].passed = true;
      }
    }
    return out;
  }

 private:
  std::shared_ptr<llm::Session> session_;
  llm::Client* client_;
  llm::PromptTemplate prompt_;
};

}  // namespace

std::unique_ptr<InformationGuard> make_guard(std::string_view name, std::span<const Task> tasks,
                                             std::uint64_t seed,
                                             std::shared_ptr<llm::Session> session) {
  if (name == "support") return std::make_unique<SupportGuard>(tasks, seed);
  if (name == "llm") return std::make_unique<LlmGuard>(std::move(session));
  throw UsageError(fmt::format("--guard {}: support or llm", name));
}

struct LlmAttacker::Impl {
  std::shared_ptr<llm::Session> session;
  llm::Client* client;
  llm::PromptTemplate prompt;
};

LlmAttacker::LlmAttacker(std::shared_ptr<llm::Session> session) {
  session = llm::require_session(std::move(session));
  llm::Client* client = &session->client("attacker");
  impl_ = std::make_shared<Impl>(
      Impl{std::move(session), client, llm::load_prompt("attack_rewrite.v1")});
}

std::string LlmAttacker::signature() const {
  return Signature("attacker:llm")
      .field("role", "attacker")
      .part(impl_->client->signature())
      .field("prompt", impl_->prompt.id())
      .format();
}

std::vector<AttackerAnswer> LlmAttacker::propose(const std::vector<AttackerQuery>& queries) const {
  std::vector<std::string> prompts;
  std::vector<std::int64_t> seeds;
  for (const auto& q : queries) {
    std::string history;
    if (!q.tried.empty()) {
      history = "\nEARLIER ATTEMPTS, best first, with the metric's score:\n";
      for (std::size_t k = 0; k < q.tried.size(); ++k)
        history += fmt::format("{}. (score {:.4g})\n<<<\n{}\n>>>\n", k + 1, q.tried[k].second,
                               q.tried[k].first);
    }
    prompts.push_back(impl_->prompt.render({{"candidate", q.original},
                                            {"score", fmt::format("{:.4g}", q.original_score)},
                                            {"history", history},
                                            {"count", std::to_string(q.count)}}));
    seeds.push_back(q.seed);
  }
  auto parser = [&](std::size_t k, const nlohmann::json& j,
                    std::string& error) -> std::optional<nlohmann::json> {
    if (!j.contains("rewrites") || !j.at("rewrites").is_array()) {
      error = "the JSON object needs a \"rewrites\" array of strings";
      return std::nullopt;
    }
    nlohmann::json kept = nlohmann::json::array();
    for (const auto& r : j.at("rewrites")) {
      if (!r.is_string()) {
        error = "every element of \"rewrites\" must be a string";
        return std::nullopt;
      }
      if (!text::is_blank(r.get<std::string>()) && kept.size() < queries[k].count)
        kept.push_back(r);
    }
    if (kept.empty()) {
      error = "\"rewrites\" holds no non-empty rewrite";
      return std::nullopt;
    }
    return kept;
  };
  const auto schema = [&](std::size_t k) {
    return llm::schema::object(
        {{"rewrites",
          llm::schema::array(llm::schema::string(llm::rewrite_chars(queries[k].original)), 1,
                             queries[k].count)}});
  };
  const auto answers =
      llm::ask_structured(*impl_->client, prompts, schema, parser, kReasks, {}, seeds);
  std::vector<AttackerAnswer> out(queries.size());
  for (std::size_t i = 0; i < queries.size(); ++i) {
    out[i].ok = answers[i].ok;
    out[i].unparseable = answers[i].failure == llm::Answer::Failure::kUnparseable;
    out[i].error = answers[i].ok ? std::string() : llm::describe_failure(answers[i]);
    if (answers[i].ok)
      for (const auto& r : answers[i].value) out[i].rewrites.push_back(r.get<std::string>());
  }
  return out;
}

}  // namespace probity::attack
