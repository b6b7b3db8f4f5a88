#include "predict/llm_lm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>

#include "probity/error.hpp"
#include "probity/signature.hpp"

namespace probity::predict {
namespace detail {

std::size_t target_start_by_ids(const std::vector<std::int64_t>& prefix_ids,
                                const std::vector<std::int64_t>& full_ids) {
  std::size_t i = 0;
  while (i < prefix_ids.size() && i < full_ids.size() && prefix_ids[i] == full_ids[i]) ++i;
  return i;
}

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// OpenAI writes tokens that are not whole UTF-8 as "bytes:\xe2\x80": their raw bytes.
std::optional<std::string> openai_bytes_token(std::string_view t) {
  if (!t.starts_with("bytes:")) return std::nullopt;
  std::string out;
  for (std::size_t i = 6; i < t.size();) {
    if (t[i] == '\\' && i + 3 < t.size() && t[i + 1] == 'x') {
      const int hi = hex_digit(t[i + 2]), lo = hex_digit(t[i + 3]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 4;
        continue;
      }
    }
    out += t[i++];  // printable ASCII is kept as itself
  }
  return out;
}

bool looks_special(std::string_view t) {
  return t.size() >= 3 && t.front() == '<' && t.back() == '>' &&
         t.find_first_of("<>", 1) == t.size() - 1 && t.find(' ') == std::string_view::npos;
}

}  // namespace

std::optional<TextStart> target_start_by_text(const std::vector<std::string>& token_texts,
                                              std::string_view prompt, std::size_t prefix_bytes,
                                              std::string& error) {
  const std::size_t n = token_texts.size();
  // Where each token lies in the prompt: [lo, hi). Tokens of one group (pieces whose texts do not
  // say their width, with the token placed after them) share a region; their lo/hi are a guess.
  std::vector<std::size_t> lo(n, 0), hi(n, 0);
  std::vector<std::size_t> group(n, SIZE_MAX);
  std::vector<std::pair<std::size_t, std::size_t>> regions;  // [lo, hi) of each group
  std::size_t pos = 0;
  std::vector<std::size_t> pending;  // tokens of unknown width since `pos`
  auto close_group = [&](const std::vector<std::size_t>& members, std::size_t end) {
    for (std::size_t m : members) group[m] = regions.size();
    regions.emplace_back(pos, end);
  };
  for (std::size_t i = 0; i < n; ++i) {
    std::string text = token_texts[i];
    if (auto raw = openai_bytes_token(text)) text = std::move(*raw);
    // A piece of a character split across tokens: "" (vLLM), U+FFFD (SGLang). A SentencePiece
    // "▁" decodes to "" too.
    if (text.empty() || text.find(kReplacement) != std::string::npos) {
      pending.push_back(i);
      continue;
    }
    auto matches_at = [&](std::size_t q) { return prompt.compare(q, text.size(), text) == 0; };
    std::size_t at = std::string_view::npos;
    bool gap_is_space = false;
    if (matches_at(pos)) {
      at = pos;
    } else {
      // Whitespace the decoded text lacks (SentencePiece drops a token's leading space).
      for (std::size_t q = pos; q < prompt.size() && is_space(prompt[q]);) {
        if (matches_at(++q)) {
          at = q;
          gap_is_space = true;
          break;
        }
      }
      if (at == std::string_view::npos && !pending.empty()) {
        // The pieces before this token hold what lies between (a split character, maybe with a
        // space): a few bytes each at most.
        const std::size_t q = prompt.find(text, pos);
        if (q != std::string_view::npos && q - pos <= 8 * pending.size()) at = q;
      }
      if (at == std::string_view::npos) {
        // Continuation bytes of a split character that the server dropped from this token's
        // own text (vLLM corrects such texts): they are this token's.
        for (std::size_t skip = 1; skip <= 3 && pos + skip <= prompt.size(); ++skip) {
          if (static_cast<unsigned char>(prompt[pos + skip - 1]) < 0x80) break;
          if (matches_at(pos + skip)) {
            at = pos + skip;
            break;
          }
        }
      }
    }
    if (at == std::string_view::npos) {
      if (looks_special(text) && pending.empty()) {  // BOS and other control tokens
        lo[i] = hi[i] = pos;
        continue;
      }
      error = fmt::format("the echoed token {} ({:?}) does not continue the prompt at byte {}", i,
                          token_texts[i], pos);
      return std::nullopt;
    }
    const std::size_t end = at + text.size();
    if (pending.empty() || at == pos) {
      // Alone, the token holds the bytes before its text; pieces right before a token found
      // in place hold nothing (vLLM's null first position, a BOS).
      for (std::size_t p : pending) lo[p] = hi[p] = pos;
      pending.clear();
      lo[i] = pos;
      hi[i] = end;
      pos = end;
      continue;
    }
    std::vector<std::size_t> members = pending;
    if (gap_is_space) {
      // Guess: each piece is one whitespace byte (a SentencePiece "▁"), the token the rest.
      members.push_back(i);
      std::size_t q = pos;
      for (std::size_t p : pending) {
        lo[p] = q;
        hi[p] = q < at ? ++q : q;
      }
      lo[i] = q;
      hi[i] = end;
      close_group(members, end);
    } else {
      // Guess: the first piece holds the gap; the token is exactly its text.
      for (std::size_t k = 0; k < pending.size(); ++k) {
        lo[pending[k]] = k == 0 ? pos : at;
        hi[pending[k]] = at;
      }
      close_group(members, at);
      lo[i] = at;
      hi[i] = end;
    }
    pending.clear();
    pos = end;
  }
  if (!pending.empty()) {
    for (std::size_t k = 0; k < pending.size(); ++k) {
      lo[pending[k]] = k == 0 ? pos : prompt.size();
      hi[pending[k]] = prompt.size();
    }
    close_group(pending, prompt.size());
    pos = prompt.size();
  }
  if (pos != prompt.size()) {
    error = fmt::format("the echoed tokens spell {} of the prompt's {} bytes", pos, prompt.size());
    return std::nullopt;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (group[i] == SIZE_MAX) {
      if (hi[i] > prefix_bytes) return TextStart{i, true};
      continue;
    }
    const auto [a, b] = regions[group[i]];
    if (b <= prefix_bytes) continue;                   // the whole group is the prefix's
    if (a >= prefix_bytes) return TextStart{i, true};  // its first piece starts y
    // The prefix ends inside the group: which piece holds y's first byte is a guess.
    for (std::size_t j = i; j < n && group[j] == group[i]; ++j)
      if (hi[j] > prefix_bytes) return TextStart{j, false};
    return TextStart{i, false};
  }
  error = "the target has no tokens after the prefix";
  return std::nullopt;
}

}  // namespace detail

namespace {

std::string memo_key(const std::string& prefix, std::string_view y) {
  std::string k = prefix;
  k += '\x1f';
  k += y;
  return k;
}

}  // namespace

LlmLm::LlmLm(LlmLmOptions options, std::shared_ptr<llm::Session> session)
    : options_(std::move(options)),
      session_(std::move(session)),
      client_(&session_->client(options_.role)),
      conditional_(llm::load_prompt("lm_conditional.v1", options_.prompts_dir)),
      unconditional_(llm::load_prompt("lm_unconditional.v1", options_.prompts_dir)) {}

std::string LlmLm::signature() const {
  return Signature("ar:llm")
      .field("role", options_.role)
      .part(client_->signature())
      .field("logprobs", options_.prompt_logprobs ? "prompt_logprobs" : "echo")
      .field("span", "ids")
      .field("prompts", llm::prompt_ids({&conditional_, &unconditional_}))
      .format();
}

std::string LlmLm::conditional_prefix(std::string_view x) const {
  return conditional_.render({{"context", std::string(x)}});
}

void LlmLm::no_prompt_logprobs(const std::string& detail) const {
  // Not an item failure: the server cannot do this at all.
  throw UsageError(fmt::format(
      "LLM role '{}' (model '{}') returned no prompt log-probabilities{}. llama.cpp's server does "
      "not score prompts (it refuses echo, or answers it for the generated tokens only), Ollama "
      "ignores echo, and OpenAI's chat and current completion models do not return them: "
      "autoregression (llm=lm) needs a completions endpoint that scores the prompt, so use vLLM "
      "(echo or prompt_logprobs) or SGLang (echo with logprobs >= 1) (see docs/llm-servers.md)",
      options_.role, client_->config().model, detail.empty() ? "" : ": " + detail));
}

namespace {

// Log-probabilities an answer holds for generated tokens: the legacy lists, or the chat-style
// {"content": [...]} that llama.cpp's server writes in a completion too.
std::size_t generated_logprobs(const llm::Response& a) {
  std::size_t n = a.logprobs.size();
  const auto j = nlohmann::json::parse(a.body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return n;
  const auto choices = j.find("choices");
  if (choices == j.end() || !choices->is_array() || choices->empty()) return n;
  const auto lp = choices->front().find("logprobs");
  if (lp == choices->front().end() || !lp->is_object()) return n;
  for (const char* key : {"tokens", "content"})
    if (auto it = lp->find(key); it != lp->end() && it->is_array()) n = std::max(n, it->size());
  return n;
}

}  // namespace

llm::Request LlmLm::completion(const std::string& text, bool by_ids) const {
  llm::Request r;
  r.endpoint = llm::Endpoint::kCompletion;
  if (by_ids) {
    std::lock_guard lock(mutex_);
    r.prompt_tokens = ids_.at(text);  // as tokenized, BOS included: no re-tokenization
  } else {
    r.prompt = text;
  }
  r.max_tokens = 1;
  r.temperature = 0;
  if (options_.prompt_logprobs) {
    r.prompt_logprobs = 0;
  } else {
    r.echo = true;
    r.logprobs = 1;  // SGLang scores the prompt only when `echo and logprobs` is truthy
  }
  return r;
}

void LlmLm::check_prompt_scoring(const std::string& text) const {
  std::lock_guard lock(probe_mutex_);
  if (prompt_scoring_) {
    if (!prompt_scoring_->empty()) no_prompt_logprobs(*prompt_scoring_);
    return;
  }
  // Asked by text: /tokenize is not worth asking of a server that cannot score a prompt.
  const auto a = client_->run({completion(text, false)}).front();
  const std::string field = options_.prompt_logprobs ? "prompt_logprobs" : "echo";
  if (!a.ok) {
    if (a.error_kind != llm::ErrorKind::kUnsupported && a.status != 404) return;  // transient
    prompt_scoring_ = fmt::format("the server refused {} ({})", field, a.error);
    no_prompt_logprobs(*prompt_scoring_);
  }
  if (a.has_prompt_logprobs) {
    prompt_scoring_ = "";
    return;
  }
  const std::size_t generated = generated_logprobs(a);
  const std::string prompt_tokens = a.usage.present && a.usage.prompt_tokens > 0
                                        ? fmt::format(" ({} tokens)", a.usage.prompt_tokens)
                                        : std::string();
  prompt_scoring_ =
      generated > 0
          ? fmt::format(
                "the server answered {} with log-probs for the {} generated token{} only, "
                "not the prompt{}",
                field, generated, generated == 1 ? "" : "s", prompt_tokens)
          : fmt::format("the server answered {} without any log-probabilities", field);
  no_prompt_logprobs(*prompt_scoring_);
}

bool LlmLm::tokenize(const std::vector<std::string>& texts) const {
  std::vector<std::string> todo;
  bool probing = false;  // the first answers say whether /tokenize exists
  {
    std::lock_guard lock(mutex_);
    if (tokenize_works_ == false) return false;
    probing = !tokenize_works_.has_value();
    std::set<std::string_view> seen;
    for (const auto& t : texts)
      if (!ids_.count(t) && seen.insert(t).second) todo.push_back(t);
  }
  if (todo.empty()) return true;
  std::vector<llm::Request> reqs;
  reqs.reserve(todo.size());
  for (const auto& t : todo) {
    llm::Request r;
    r.endpoint = llm::Endpoint::kTokenize;
    r.prompt = t;
    r.probe = probing;
    reqs.push_back(std::move(r));
  }
  auto answers = client_->run(reqs);
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < answers.size(); ++i) {
    const auto& a = answers[i];
    // A server that ignores every field we send answers {"tokens": []}.
    if ((!a.ok && llm::capability_absent(a)) || (a.ok && a.tokens.empty() && !todo[i].empty())) {
      tokenize_works_ = false;
      return false;
    }
    if (!a.ok)
      throw mi::PredictionError(
          fmt::format("tokenize failed ({}): {}", llm::error_kind_name(a.error_kind), a.error));
    ids_[todo[i]] = a.tokens;
  }
  tokenize_works_ = true;
  return true;
}

void LlmLm::score(const std::vector<std::pair<std::string, std::string>>& pairs) const {
  std::vector<std::pair<std::string, std::string>> todo;
  {
    std::lock_guard lock(mutex_);
    std::set<std::string> seen;
    for (const auto& [prefix, y] : pairs) {
      const auto k = memo_key(prefix, y);
      if (memo_.count(k) || !seen.insert(k).second) continue;
      todo.emplace_back(prefix, y);
    }
  }
  if (todo.empty()) return;
  // Before /tokenize and the batch: a server that does not score prompts is found by one request.
  check_prompt_scoring(todo.front().first + todo.front().second);

  std::vector<std::string> texts;
  for (const auto& [prefix, y] : todo) {
    texts.push_back(prefix);
    texts.push_back(prefix + y);
  }
  std::string tokenize_error;
  bool by_ids = false;
  try {
    by_ids = tokenize(texts);
  } catch (const mi::PredictionError& e) {
    tokenize_error = e.what();  // transient: these items fail (and are not retried this run)
  }

  auto request = [&](const std::string& text) { return completion(text, by_ids); };
  auto texts_of = [](const llm::Response& a) {
    std::vector<std::string> out;
    out.reserve(a.prompt_logprobs.size());
    for (const auto& t : a.prompt_logprobs) out.push_back(t.token);
    return out;
  };

  std::vector<llm::Request> reqs;
  std::vector<std::size_t> asked;  // index in `todo` of each request
  std::vector<Result> results(todo.size());
  for (std::size_t i = 0; i < todo.size(); ++i) {
    if (!tokenize_error.empty()) {
      results[i].error = tokenize_error;
      continue;
    }
    reqs.push_back(request(todo[i].first + todo[i].second));
    asked.push_back(i);
  }
  auto answers = client_->run(reqs);
  std::vector<std::optional<detail::TextStart>> by_text(todo.size());
  std::vector<std::size_t> bound(todo.size(), 0);  // y starts here or later
  std::vector<std::string> unsure;                 // text mode: prefixes to echo alone
  for (std::size_t k = 0; k < asked.size(); ++k) {
    const std::size_t i = asked[k];
    const auto& [prefix, y] = todo[i];
    const auto& a = answers[k];
    Result& res = results[i];
    if (!a.ok && (a.error_kind == llm::ErrorKind::kUnsupported || a.status == 404))
      no_prompt_logprobs(a.error);
    if (!a.ok) {
      res.error =
          fmt::format("request failed ({}): {}", llm::error_kind_name(a.error_kind), a.error);
      continue;
    }
    if (!a.has_prompt_logprobs) no_prompt_logprobs("");
    by_text[i] = detail::target_start_by_text(texts_of(a), prefix + y, prefix.size(), res.error);
    if (by_ids) {
      std::lock_guard lock(mutex_);
      const auto& full = ids_.at(prefix + y);
      if (a.prompt_logprobs.size() != full.size()) {
        res.error = fmt::format("the server scored {} prompt tokens of {}",
                                a.prompt_logprobs.size(), full.size());
        by_text[i].reset();
        continue;
      }
      // Tokens before the first differing id also spell the prefix alone.
      bound[i] = detail::target_start_by_ids(ids_.at(prefix), full);
      res.error.clear();
    } else if (by_text[i] && !by_text[i]->exact) {
      unsure.push_back(prefix);
    }
  }
  // Without ids, where the prefix ends inside pieces of unknown width (a split character, a
  // SentencePiece "▁"), the prefix's own echo says how many of those tokens it has.
  std::unordered_map<std::string, std::vector<std::string>> prefix_texts;
  if (!unsure.empty()) {
    std::sort(unsure.begin(), unsure.end());
    unsure.erase(std::unique(unsure.begin(), unsure.end()), unsure.end());
    std::vector<llm::Request> again;
    for (const auto& p : unsure) again.push_back(request(p));
    auto echoes = client_->run(again);
    for (std::size_t k = 0; k < unsure.size(); ++k)
      if (echoes[k].ok && echoes[k].has_prompt_logprobs)
        prefix_texts[unsure[k]] = texts_of(echoes[k]);
  }
  for (std::size_t k = 0; k < asked.size(); ++k) {
    const std::size_t i = asked[k];
    const auto& [prefix, y] = todo[i];
    const auto& a = answers[k];
    Result& res = results[i];
    if (!a.ok || (!by_text[i] && !by_ids) || !res.error.empty()) continue;
    std::size_t start = 0;
    const auto& t = by_text[i];
    if (by_ids) {
      // The echoed texts say exactly where y starts unless the prefix ends among pieces of
      // unknown width; then the guess from the texts, no earlier than the first differing id
      // ("  Two" is " " + " Two": the first differing token can be the prefix's).
      start = !t ? bound[i] : std::max(t->index, bound[i]);
    } else if (t->exact) {
      start = t->index;
    } else {
      auto it = prefix_texts.find(prefix);
      if (it == prefix_texts.end()) {
        res.error = "the prefix alone could not be echoed to place the target's first token";
        continue;
      }
      const auto full = texts_of(a);
      std::size_t same = 0;
      while (same < it->second.size() && same < full.size() && it->second[same] == full[same])
        ++same;
      start = std::max(t->index, same);
    }
    if (start >= a.prompt_logprobs.size()) {
      res.error = "the target has no tokens after the prefix";
      continue;
    }
    double sum = 0;
    res.ok = true;
    for (std::size_t p = start; p < a.prompt_logprobs.size(); ++p) {
      if (!a.prompt_logprobs[p].logprob) {
        res.ok = false;
        res.error = fmt::format("no log-probability for prompt token {}", p);
        break;
      }
      sum += *a.prompt_logprobs[p].logprob;
    }
    res.value = sum;
  }
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < todo.size(); ++i)
    memo_.emplace(memo_key(todo[i].first, todo[i].second), std::move(results[i]));
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
