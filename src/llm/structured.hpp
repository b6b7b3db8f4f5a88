#pragma once
// Structured (JSON) answers: parsed strictly after repairs of common deviations, re-asked a bounded
// number of times and otherwise recorded as failed, never replaced by a default.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probity/llm.hpp"

namespace probity::llm {

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
  // Which of the two failed, and its message alone: the request (after the client's retries;
  // "HTTP 400: <server message>", or the error kind and the transport's message), or the answers
  // (the last parse error, after the re-asks).
  enum class Failure { kNone, kRequest, kUnparseable } failure = Failure::kNone;
  std::string detail;
  // kUnparseable because the last answer failed a content check: the check's name
  // (ContentCheckFailed::check); empty otherwise.
  std::string check;
};

// A failed answer in words for a per-item error: "the request failed (HTTP 400: ...)" or "the
// answer stayed unparseable after 2 re-asks (...)".
std::string describe_failure(const Answer& answer);

// Thrown by an AnswerParser for a well-formed answer that fails a content check (a compression
// longer than its cap, an edit that changes too much): re-asked like an unparseable answer, and
// counted under the check's name when it stays so (EndpointUsage::rejected_by_check).
struct ContentCheckFailed {
  std::string check;    // short name, e.g. "longer than the word cap"
  std::string message;  // this answer's failure, told to the model when re-asked
};

// Validates a parsed answer; returns the value kept, or nullopt with `error` set.
// `index` is the prompt's position in the batch (prompts may ask different questions).
using AnswerParser = std::function<std::optional<nlohmann::json>(
    std::size_t index, const nlohmann::json&, std::string& error)>;

// The JSON Schema of the answer to prompt `index`, sent to the server as the endpoint's
// `structured` mode says (see schema.hpp for the builders).
using AnswerSchema = std::function<nlohmann::json(std::size_t index)>;

// Sends every prompt as a one-message chat in ONE Client::run batch; answers that do not parse
// are re-asked together (the conversation plus the parse error) up to `max_reasks` rounds.
// `samples[i]` is the repeated-sampling index of prompt i (empty: all 0); `seeds[i]`, when
// given, its generation seed (empty: the endpoint's).
std::vector<Answer> ask_structured(Client& client, const std::vector<std::string>& prompts,
                                   const AnswerSchema& schema, const AnswerParser& parser,
                                   int max_reasks, const std::vector<std::uint32_t>& samples = {},
                                   const std::vector<std::int64_t>& seeds = {});

}  // namespace probity::llm
