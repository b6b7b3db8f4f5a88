#pragma once
// What produced a number, as text: "head|key:value|...". Metrics, predictors, judges,
// perturbation strategies and LLM clients describe themselves with a Signature; score files,
// reports and the audit cache are keyed by its text, so every field's spelling is part of the
// format and must not change (tests/util/signature_test.cpp holds the recorded strings).
#include <concepts>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace probity {

class Signature {
 public:
  explicit Signature(std::string head) : head_(std::move(head)) {}

  // Appends "|key:value".
  Signature& field(std::string_view key, std::string_view value);
  Signature& field(std::string_view key, const char* value) {
    return field(key, std::string_view(value));
  }
  Signature& field(std::string_view key, const std::string& value) {
    return field(key, std::string_view(value));
  }
  template <std::integral T>
  requires(!std::same_as<T, bool>) Signature& field(std::string_view key, T value) {
    return field(key, std::string_view(std::to_string(value)));
  }
  // The shortest text that reads back as `value` ("0.1", "2", "1e-05").
  Signature& field(std::string_view key, double value);
  // A flag has a name for each state ("yes"/"no", "all"/"first"): spell it at the call.
  Signature& field(std::string_view key, bool value) = delete;

  // Appends "|text": a component's own signature (a predictor's, a client's) or a bare word.
  Signature& part(std::string_view text);

  // The fields in order; a part has an empty key.
  const std::vector<std::pair<std::string, std::string>>& fields() const { return fields_; }
  const std::string& head() const { return head_; }
  std::optional<std::string> get(std::string_view key) const;

  // The text of a component (nested in another signature).
  std::string format() const;
  // The text of a whole metric: format() and "|version:probity-<version>". The version is
  // written here only.
  std::string versioned() const;

 private:
  std::string head_;
  std::vector<std::pair<std::string, std::string>> fields_;
};

}  // namespace probity
