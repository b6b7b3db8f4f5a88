// The rule-based statement decomposition (text::decompose_statements) as the Ψ component of
// the statement representation.
#include <memory>

#include "probity/mi.hpp"
#include "probity/text.hpp"

namespace probity::mi {
namespace {

class RuleDecomposer final : public Decomposer {
 public:
  std::string signature() const override { return "rules-v1"; }
  std::vector<Decomposition> decompose(std::span<const std::string> texts) const override {
    std::vector<Decomposition> out;
    out.reserve(texts.size());
    for (const auto& t : texts) out.push_back({text::decompose_statements(t), {}});
    return out;
  }
};

}  // namespace

std::shared_ptr<const Decomposer> rule_decomposer() {
  static const auto rules = std::make_shared<const RuleDecomposer>();  // immutable, stateless
  return rules;
}

}  // namespace probity::mi
