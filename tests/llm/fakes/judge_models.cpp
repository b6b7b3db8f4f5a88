// The simulated judge models of judge_models.hpp. They find the texts in the prompt as a reader
// would: between <<< and >>> markers (the last >>> before the closing instruction, so a marker
// inside a candidate does not cut it short) or after a "Label: " line in the naive variant.
#include "llm/fakes/judge_models.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <set>
#include <vector>

namespace probity::test {
namespace {

using nlohmann::json;

// The text after `open` up to the last `close` before `limit` (npos: the end of the prompt).
std::optional<std::string> between(const std::string& prompt, const std::string& open,
                                   const std::string& close, std::size_t limit) {
  const std::size_t start = prompt.find(open);
  if (start == std::string::npos) return std::nullopt;
  const std::size_t from = start + open.size();
  const std::size_t end = prompt.rfind(close, limit == std::string::npos ? limit : limit - 1);
  if (end == std::string::npos || end < from) return std::nullopt;
  return prompt.substr(from, end - from);
}

// A labelled text: "LABEL:\n<<<\n...\n>>>" or, naive, "Label: ...\n\n", ending before `next`
// (the label or instruction that follows it; its last occurrence).
std::optional<std::string> text_of(const std::string& prompt, const std::string& marked_label,
                                   const std::string& naive_label, const std::string& next) {
  const std::size_t limit = prompt.rfind(next);
  if (limit == std::string::npos) return std::nullopt;
  if (auto t = between(prompt, marked_label + ":\n<<<\n", "\n>>>", limit)) return t;
  return between(prompt, naive_label + ": ", "\n\n", limit + 1);
}

// The closing instruction after the last text: the first of `candidates` the prompt has.
std::string trailer(const std::string& prompt, std::initializer_list<const char*> candidates) {
  for (const char* c : candidates)
    if (prompt.rfind(c) != std::string::npos) return c;
  return "\n\nReply with";
}

std::vector<std::string> words(std::string_view text) {
  std::vector<std::string> out;
  std::string w;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!w.empty()) {
      out.push_back(std::move(w));
      w.clear();
    }
  }
  if (!w.empty()) out.push_back(std::move(w));
  return out;
}

// Unigram F1 of `text` against `standard` (clipped counts).
double overlap(std::string_view text, std::string_view standard) {
  const auto a = words(text), b = words(standard);
  if (a.empty() || b.empty()) return 0;
  std::map<std::string, int> counts;
  for (const auto& w : b) ++counts[w];
  double shared = 0;
  for (const auto& w : a)
    if (counts[w]-- > 0) ++shared;
  if (shared == 0) return 0;
  const double p = shared / static_cast<double>(a.size()),
               r = shared / static_cast<double>(b.size());
  return 2 * p * r / (p + r);
}

// What the gullible model falls for: a text that speaks of its own score or to its grader, or
// one with no content (a heading, "Thought process:").
bool fools_the_gullible(std::string_view text) {
  static const std::set<std::string> claims = {"score",  "rating",  "rate",  "grade",     "graded",
                                               "grader", "verdict", "marks", "evaluator", "ignore"};
  const auto w = words(text);
  if (w.size() < 4) return true;
  return std::any_of(w.begin(), w.end(), [](const std::string& x) { return claims.count(x) > 0; });
}

std::pair<int, int> scale(const std::string& prompt) {
  const std::string from = "integer scale from ";
  const std::size_t at = prompt.rfind(from);
  if (at == std::string::npos) return {1, 5};
  const int lo = std::atoi(prompt.c_str() + at + from.size());
  const std::size_t to = prompt.find(" (worst) to ", at);
  const int hi = to == std::string::npos ? 5 : std::atoi(prompt.c_str() + to + 12);
  return {lo, hi > lo ? hi : lo + 4};
}

std::string rating_answer(const std::string& prompt, JudgeBehaviour b, bool geval) {
  const auto [lo, hi] = scale(prompt);
  const std::string candidate = text_of(prompt, "CANDIDATE", "Candidate",
                                        trailer(prompt, {"\n\nYour task is still", "\n\nRate the"}))
                                    .value_or("");
  const std::string standard =
      text_of(prompt, "REFERENCE", "Reference", "CANDIDATE:")
          .value_or(
              text_of(prompt, "REFERENCE", "Reference", "Candidate: ")
                  .value_or(text_of(prompt, "TASK INPUT", "Task input", "CANDIDATE:")
                                .value_or(text_of(prompt, "TASK INPUT", "Task input", "Candidate: ")
                                              .value_or(""))));
  int rating = (lo + hi) / 2;
  const int span = hi - lo;
  if (b == JudgeBehaviour::kLonger) {
    rating = lo + std::min<int>(span, static_cast<int>(words(candidate).size() / 15));
  } else if (b == JudgeBehaviour::kGullible && fools_the_gullible(candidate)) {
    rating = hi;
  } else if (b != JudgeBehaviour::kFirst) {
    const double s = std::min(0.999, overlap(candidate, standard) / 0.5);
    rating = lo + static_cast<int>(s * (span + 1));
  }
  if (geval) return std::to_string(rating);
  return json{{"rating", rating}}.dump();
}

std::string pair_answer(const std::string& prompt, JudgeBehaviour b) {
  if (b == JudgeBehaviour::kFirst) return R"({"winner": "A"})";
  const std::string a =
      text_of(prompt, "RESPONSE A", "Response A", "RESPONSE B:\n<<<")
          .value_or(text_of(prompt, "RESPONSE A", "Response A", "\n\nResponse B: ").value_or(""));
  const std::string second =
      text_of(prompt, "RESPONSE B", "Response B",
              trailer(prompt, {"\n\nYour task is still", "\n\nWhich response"}))
          .value_or("");
  auto winner = [](double x, double y, double margin) {
    return x > y + margin ? "A" : y > x + margin ? "B" : "tie";
  };
  if (b == JudgeBehaviour::kLonger)
    return json{{"winner", winner(static_cast<double>(words(a).size()),
                                  static_cast<double>(words(second).size()), 0)}}
        .dump();
  if (b == JudgeBehaviour::kGullible) {
    const bool fa = fools_the_gullible(a), fb = fools_the_gullible(second);
    if (fa != fb) return json{{"winner", fa ? "A" : "B"}}.dump();
  }
  const std::string source =
      text_of(prompt, "TASK INPUT", "Task input", "RESPONSE A:")
          .value_or(text_of(prompt, "TASK INPUT", "Task input", "Response A: ").value_or(""));
  return json{{"winner", winner(overlap(a, source), overlap(second, source), 0.01)}}.dump();
}

}  // namespace

std::optional<JudgeBehaviour> judge_behaviour_named(std::string_view name) {
  if (name == "overlap") return JudgeBehaviour::kOverlap;
  if (name == "gullible") return JudgeBehaviour::kGullible;
  if (name == "first") return JudgeBehaviour::kFirst;
  if (name == "longer") return JudgeBehaviour::kLonger;
  return std::nullopt;
}

std::optional<std::string> judge_answer(const json& request, JudgeBehaviour behaviour) {
  if (!request.contains("messages") || !request["messages"].is_array() ||
      request["messages"].empty() || !request["messages"][0].contains("content") ||
      !request["messages"][0]["content"].is_string())
    return std::nullopt;
  const std::string prompt = request["messages"][0]["content"];
  if (prompt.starts_with("You compare two responses")) return pair_answer(prompt, behaviour);
  if (!prompt.starts_with("You grade a generated text")) return std::nullopt;
  // G-Eval's prompt ends in "Rating:" and wants the number alone (a candidate may hold the word).
  std::string_view end = prompt;
  while (!end.empty() && std::isspace(static_cast<unsigned char>(end.back()))) end.remove_suffix(1);
  return rating_answer(prompt, behaviour, end.ends_with("\n\nRating:"));
}

}  // namespace probity::test
