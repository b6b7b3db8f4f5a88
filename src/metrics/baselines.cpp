// Reference-free baselines that every meta-evaluation table should carry: a metric that does
// no better than the length of the text, or than chance, is visible at once.
#include <fmt/format.h>

#include <memory>
#include <string>

#include "metrics/builtin.hpp"
#include "probity/signature.hpp"
#include "util/hash.hpp"

namespace probity::metrics {
namespace {

// Length of the candidate: Unicode code points, or whitespace-separated tokens.
class LengthMetric final : public Metric {
 public:
  bool needs_references() const override { return false; }
  LengthMetric(std::string name, bool tokens) : name_(std::move(name)), tokens_(tokens) {}
  std::string name() const override { return name_; }
  std::string signature() const override {
    return Signature("length").field("unit", tokens_ ? "tokens" : "chars").versioned();
  }
  std::size_t num_stats() const override { return 1; }
  CorpusAggregation corpus_aggregation() const override { return CorpusAggregation::kMeanScores; }
  void item_stats(const MetricInput& input, std::span<double> stats) const override {
    std::size_t n = 0;
    if (tokens_) {
      bool in_token = false;
      for (unsigned char c : input.candidate) {
        const bool space = c == ' ' || (c >= '\t' && c <= '\r');
        n += !space && !in_token;
        in_token = !space;
      }
    } else {
      for (unsigned char c : input.candidate) n += (c & 0xC0) != 0x80;  // UTF-8 lead bytes
    }
    stats[0] = static_cast<double>(n);
  }
  void sentence_score(std::span<const double> stats, std::span<double> parts) const override {
    parts[0] = stats[0];
  }

 private:
  std::string name_;
  bool tokens_;
};

// A uniform number in [0, 1) per item: a hash of the seed, the candidate, the references and the
// source, so the same item gets the same number in any order and at any thread count.
class RandomMetric final : public Metric {
 public:
  bool needs_references() const override { return false; }
  RandomMetric(std::string name, std::uint64_t seed) : name_(std::move(name)), seed_(seed) {}
  std::string name() const override { return name_; }
  std::string signature() const override {
    return Signature("random").field("seed", seed_).field("dist", "uniform").versioned();
  }
  std::size_t num_stats() const override { return 1; }
  CorpusAggregation corpus_aggregation() const override { return CorpusAggregation::kMeanScores; }
  void item_stats(const MetricInput& input, std::span<double> stats) const override {
    std::uint64_t h = util::fnv1a64_u64(seed_, util::fnv1a64(input.candidate));
    for (std::string_view r : input.references) h = util::fnv1a64(r, util::fnv1a64("\x1f", h));
    h = util::fnv1a64(input.source, util::fnv1a64("\x1e", h));
    // splitmix64 finaliser: FNV's low bits are not uniform enough on their own.
    h ^= h >> 30;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 27;
    h *= 0x94D049BB133111EBull;
    h ^= h >> 31;
    stats[0] = static_cast<double>(h >> 11) * 0x1.0p-53;
  }
  void sentence_score(std::span<const double> stats, std::span<double> parts) const override {
    parts[0] = stats[0];
  }

 private:
  std::string name_;
  std::uint64_t seed_;
};

}  // namespace

void register_baselines(MetricRegistry& registry) {
  registry.add({"length",
                "baseline: the candidate's length (reference-free), in Unicode characters or "
                "whitespace tokens",
                {option_choice("unit", "chars", {"chars", "tokens"}, "what is counted")},
                [](const MetricSpec& s, const MetricContext&) -> std::unique_ptr<Metric> {
                  return std::make_unique<LengthMetric>(s.text(), s.get("unit") == "tokens");
                }});
  registry.add({"random",
                "baseline: a uniform random score per item in [0, 1), seeded (reference-free)",
                {option_int("seed", 0, 0, std::numeric_limits<int>::max(), "the random stream")},
                [](const MetricSpec& s, const MetricContext&) -> std::unique_ptr<Metric> {
                  return std::make_unique<RandomMetric>(
                      s.text(), static_cast<std::uint64_t>(s.get_int("seed")));
                }});
}

}  // namespace probity::metrics
