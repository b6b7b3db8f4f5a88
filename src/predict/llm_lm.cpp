#include "predict/llm_lm.hpp"

#include <fmt/format.h>

#include <cctype>
#include <set>

#include "probity/error.hpp"

namespace probity::predict {
namespace {

std::string memo_key(const std::string& prefix, std::string_view y) {
  std::string k = prefix;
  k += '\x1f';
  k += y;
  return k;
}

std::size_t non_space(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) n += std::isspace(static_cast<unsigned char>(c)) ? 0 : 1;
  return n;
}

// Tokens of the echoed prompt that spell the prefix: the shortest run whose non-space characters
// cover the prefix's (BPE tokens carry their leading spaces; whitespace tokenizers drop them).
std::size_t span_by_text(const std::vector<llm::TokenLogprob>& tokens, std::string_view prefix) {
  const std::size_t want = non_space(prefix);
  std::size_t have = 0, i = 0;
  while (i < tokens.size() && have < want) have += non_space(tokens[i++].token);
  return i;
}

}  // namespace

LlmLm::LlmLm(LlmLmOptions options, std::shared_ptr<llm::Session> session)
    : options_(std::move(options)),
      session_(std::move(session)),
      client_(&session_->client(options_.role)),
      conditional_(llm::load_prompt("lm_conditional.v1", options_.prompts_dir)),
      unconditional_(llm::load_prompt("lm_unconditional.v1", options_.prompts_dir)) {}

std::string LlmLm::signature() const {
  return fmt::format("ar:llm|role:{}|{}|logprobs:{}|prompts:{}={},{}={}", options_.role,
                     client_->signature(), options_.prompt_logprobs ? "prompt_logprobs" : "echo",
                     conditional_.name, conditional_.sha256.substr(0, 16), unconditional_.name,
                     unconditional_.sha256.substr(0, 16));
}

std::string LlmLm::conditional_prefix(std::string_view x) const {
  return conditional_.render({{"context", std::string(x)}});
}

void LlmLm::score(const std::vector<std::pair<std::string, std::string>>& pairs) const {
  std::vector<std::pair<std::string, std::string>> todo;
  std::vector<std::string> prefixes;
  {
    std::lock_guard lock(mutex_);
    std::set<std::string> seen, seen_prefix;
    for (const auto& [prefix, y] : pairs) {
      const auto k = memo_key(prefix, y);
      if (memo_.count(k) || !seen.insert(k).second) continue;
      todo.emplace_back(prefix, y);
      if (tokenize_works_ && !lengths_.count(prefix) && seen_prefix.insert(prefix).second)
        prefixes.push_back(prefix);
    }
  }
  if (todo.empty()) return;

  // Prefix lengths through /tokenize, in one batch; a server without it falls back to texts.
  std::unordered_map<std::string, std::size_t> lengths;
  if (!prefixes.empty()) {
    std::vector<llm::Request> reqs;
    for (const auto& p : prefixes) {
      llm::Request r;
      r.endpoint = llm::Endpoint::kTokenize;
      r.prompt = p;
      reqs.push_back(std::move(r));
    }
    auto answers = client_->run(reqs);
    bool works = true;
    for (std::size_t i = 0; i < answers.size(); ++i) {
      if (answers[i].ok) {
        lengths[prefixes[i]] = answers[i].tokens.size();
      } else {
        works = false;
      }
    }
    std::lock_guard lock(mutex_);
    if (!works) tokenize_works_ = false;
    for (auto& [p, n] : lengths) lengths_[p] = n;
    lengths = lengths_;
  } else {
    std::lock_guard lock(mutex_);
    lengths = lengths_;
  }

  std::vector<llm::Request> reqs;
  for (const auto& [prefix, y] : todo) {
    llm::Request r;
    r.endpoint = llm::Endpoint::kCompletion;
    r.prompt = prefix + y;
    r.max_tokens = 1;
    r.temperature = 0;
    if (options_.prompt_logprobs) {
      r.prompt_logprobs = 0;
    } else {
      r.echo = true;
      r.logprobs = 0;
    }
    reqs.push_back(std::move(r));
  }
  auto answers = client_->run(reqs);
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < todo.size(); ++i) {
    const auto& [prefix, y] = todo[i];
    const auto& a = answers[i];
    Result res;
    if (!a.ok) {
      res.error =
          fmt::format("request failed ({}): {}", llm::error_kind_name(a.error_kind), a.error);
    } else if (!a.has_prompt_logprobs) {
      // Not an item failure: the server cannot do this at all.
      throw UsageError(fmt::format(
          "LLM role '{}' returned no prompt log-probabilities: autoregression (llm=lm) needs a "
          "completions endpoint that scores the prompt (vLLM or SGLang with echo+logprobs or "
          "prompt_logprobs); llama.cpp server and OpenAI chat models do not provide them",
          options_.role));
    } else {
      auto it = lengths.find(prefix);
      const std::size_t start =
          it != lengths.end() ? it->second : span_by_text(a.prompt_logprobs, prefix);
      if (start >= a.prompt_logprobs.size()) {
        res.error = "the target has no tokens after the prefix";
      } else {
        double sum = 0;
        res.ok = true;
        for (std::size_t t = start; t < a.prompt_logprobs.size(); ++t) {
          if (!a.prompt_logprobs[t].logprob) {
            res.ok = false;
            res.error = fmt::format("no log-probability for prompt token {}", t);
            break;
          }
          sum += *a.prompt_logprobs[t].logprob;
        }
        res.value = sum;
      }
    }
    memo_.emplace(memo_key(prefix, y), std::move(res));
  }
}

void LlmLm::prefetch(std::span<const mi::TargetGroup> groups, bool) const {
  std::vector<std::pair<std::string, std::string>> pairs;
  const std::string bare = unconditional_.render({});
  for (const auto& g : groups) {
    const std::string cond = conditional_prefix(g.x);
    for (auto y : g.targets) {
      pairs.emplace_back(cond, std::string(y));
      pairs.emplace_back(bare, std::string(y));
    }
  }
  score(pairs);
}

double LlmLm::log_prob(const std::string& prefix, std::string_view y) const {
  const auto k = memo_key(prefix, y);
  {
    std::lock_guard lock(mutex_);
    auto it = memo_.find(k);
    if (it != memo_.end()) {
      if (!it->second.ok) throw mi::PredictionError(it->second.error);
      return it->second.value;
    }
  }
  score({{prefix, std::string(y)}});
  std::lock_guard lock(mutex_);
  const auto& r = memo_.at(k);
  if (!r.ok) throw mi::PredictionError(r.error);
  return r.value;
}

double LlmLm::log_ratio(std::string_view x, std::string_view y) const {
  return log_prob(conditional_prefix(x), y) - log_prob(unconditional_.render({}), y);
}

}  // namespace probity::predict
