#pragma once
// What the LLM-backed predictors, metrics and perturbations share: the process-wide LLM session
// (configuration, cache, accounting, one client per role), versioned prompt templates, and
// structured (JSON) answers that are parsed strictly, repaired for common deviations, re-asked a
// bounded number of times and otherwise recorded as failed, never replaced by a default.
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probity/llm.hpp"

namespace probity::llm {

// The LLM context of one process: set by the command line (or a test) before metrics are created,
// reached by the metric factories. Clients are created on first use of a role.
class Session {
 public:
  explicit Session(LlmConfig config);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // The installed session; throws UsageError naming the flags when none is installed.
  static std::shared_ptr<Session> current();
  static std::shared_ptr<Session> current_or_null();
  static void install(std::shared_ptr<Session> session);  // nullptr uninstalls

  Client& client(std::string_view role);
  Accounting& accounting() { return accounting_; }
  Cache* cache() { return cache_.get(); }
  const LlmConfig& config() const { return config_; }
  // Distinguishes sessions in shared-predictor keys (a new session must not reuse old clients).
  std::uint64_t id() const { return id_; }

 private:
  LlmConfig config_;
  std::unique_ptr<Cache> cache_;
  Accounting accounting_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Client>, std::less<>> clients_;
  std::uint64_t id_;
};

// A prompt template: text with {name} placeholders (other braces are left alone).
struct PromptTemplate {
  std::string name;  // file stem, e.g. "oracle_ordinal.v1"
  std::string text;
  std::string sha256;  // of text; goes into every signature that uses the template

  // Replaces every {key} of `values`; throws std::invalid_argument for a {key} of `values` that
  // the template lacks (a template/version mismatch).
  std::string render(const std::map<std::string, std::string>& values) const;
};

// Reads `<dir>/<name>.txt`; `dir` empty: the compiled-in PROBITY_PROMPTS_DIR. Throws UsageError
// when the file is missing.
PromptTemplate load_prompt(const std::string& name, const std::string& dir = "");

// `s` without leading and trailing ASCII whitespace.
std::string trim(std::string_view s);

// Strict parse of a JSON object answer after repairs of common deviations: code fences, prose
// before or after the object, single-quoted strings, Python True/False/None, and a bare
// yes/no/true/false word (returned as {"answer": bool}). nullopt with `error` set otherwise.
std::optional<nlohmann::json> parse_json_answer(std::string_view text, std::string& error);

// A boolean field (true/false, "yes"/"no" in any case, with trailing punctuation); the bare-word
// form {"answer": b} is accepted for any field name.
std::optional<bool> get_bool_field(const nlohmann::json& j, const std::string& field,
                                   std::string& error);
// An integer field within [lo, hi] (integral numbers or numeric strings).
std::optional<int> get_int_field(const nlohmann::json& j, const std::string& field, int lo, int hi,
                                 std::string& error);

// Failed answers by reason (the first line of the error), for components that report what
// failed. Thread-safe.
class FailureTally {
 public:
  void add(std::string_view error);
  std::map<std::string, std::size_t> by_reason() const;
  std::size_t total() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::size_t> counts_;
};

// Outcome of one structured question.
struct Answer {
  bool ok = false;
  nlohmann::json value;  // what the parser returned
  std::string error;     // why it failed: the transport error or the last parse error
  int asks = 0;          // chat requests made for it (1 + re-asks)
};

// Validates a parsed answer; returns the value kept, or nullopt with `error` set.
// `index` is the prompt's position in the batch (prompts may ask different questions).
using AnswerParser = std::function<std::optional<nlohmann::json>(
    std::size_t index, const nlohmann::json&, std::string& error)>;

// Sends every prompt as a one-message chat in ONE Client::run batch; answers that do not parse
// are re-asked together (the conversation plus the parse error) up to `max_reasks` rounds.
// `samples[i]` is the repeated-sampling index of prompt i (empty: all 0); `seeds[i]`, when
// given, its generation seed (empty: the endpoint's).
std::vector<Answer> ask_structured(Client& client, const std::vector<std::string>& prompts,
                                   const AnswerParser& parser, int max_reasks,
                                   const std::vector<std::uint32_t>& samples = {},
                                   const std::vector<std::int64_t>& seeds = {});

}  // namespace probity::llm
