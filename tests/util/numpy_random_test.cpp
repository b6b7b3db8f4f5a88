// NumPy's streams (util/numpy_random): every draw equal to NumPy 1.24.2's own outputs
// (tests/golden/significance/numpy_streams.json, written by tests/golden/gen/numpy_streams.py).
#include "util/numpy_random.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_paths.hpp"

namespace probity::util {
namespace {

const nlohmann::json& golden() {
  static const nlohmann::json j = [] {
    std::ifstream in(test::golden_path("significance/numpy_streams.json"));
    return nlohmann::json::parse(in);
  }();
  return j;
}

std::uint64_t u64(const nlohmann::json& v) {
  return v.is_string() ? std::stoull(v.get<std::string>()) : v.get<std::uint64_t>();
}

Uint128 u128(const std::string& decimal) {
  Uint128 v = 0;
  for (char c : decimal) v = v * 10 + static_cast<unsigned>(c - '0');
  return v;
}

std::vector<std::int64_t> ints(const nlohmann::json& a) {
  return a.get<std::vector<std::int64_t>>();
}

TEST(NumpyRandom, GoldenIsNumpy124) {
  EXPECT_EQ(golden()["numpy"], "1.24.2");
  EXPECT_GE(golden()["choice"].size(), 8u);
}

TEST(NumpyRandom, SeedSequenceStateEqualsNumpy) {
  for (const auto& r : golden()["seed_sequence"]) {
    const auto want = r["state"].get<std::vector<std::uint32_t>>();
    EXPECT_EQ(seed_sequence_state(u64(r["entropy"]), want.size()), want) << r["entropy"];
  }
}

TEST(NumpyRandom, Pcg64SeededAsDefaultRng) {
  for (const auto& r : golden()["pcg64_state"]) {
    const Pcg64 g(u64(r["seed"]));
    EXPECT_TRUE(g.state() == u128(r["state"].get<std::string>())) << r["seed"];
    EXPECT_TRUE(g.increment() == u128(r["inc"].get<std::string>())) << r["seed"];
  }
  for (const auto& r : golden()["pcg64_raw"]) {
    Pcg64 g(u64(r["seed"]));
    for (const auto& v : r["raw"]) EXPECT_EQ(g.next64(), u64(v)) << r["seed"];
  }
}

TEST(NumpyRandom, ChoiceWithReplacementEqualsNumpyAcrossCalls) {
  for (const auto& r : golden()["choice"]) {
    Pcg64 g(r["seed"].get<std::uint64_t>());
    const auto n = r["n"].get<std::uint64_t>();
    const auto want = ints(r["values"]);
    // Drawn row by row, as the paired tests draw them: the same stream as one call.
    const auto cols = r["cols"].get<std::size_t>();
    std::vector<std::int64_t> got(want.size());
    for (std::size_t row = 0; row * cols < got.size(); ++row)
      g.integers(n, std::span(got).subspan(row * cols, cols));
    EXPECT_EQ(got, want) << "n=" << n;
    std::vector<std::int64_t> then(3);
    g.integers(n, then);
    EXPECT_EQ(then, ints(r["then"])) << "n=" << n;
  }
  for (const auto& r : golden()["integers64"]) {
    Pcg64 g(r["seed"].get<std::uint64_t>());
    const auto want = ints(r["values"]);
    std::vector<std::int64_t> got(want.size());
    g.integers(r["n"].get<std::uint64_t>(), got);
    EXPECT_EQ(got, want) << "n=" << r["n"];
  }
}

TEST(NumpyRandom, BooleansEqualNumpyAndLeaveTheSameState) {
  for (const auto& r : golden()["booleans"]) {
    Pcg64 g(r["seed"].get<std::uint64_t>());
    const auto bits = r["bits"].get<std::string>();
    // In two pieces with one buffer: the stream of one call.
    std::vector<std::uint8_t> got(bits.size());
    Pcg64::BoolBuffer buffer;
    const std::size_t half = got.size() / 2;
    g.booleans(std::span(got).first(half), buffer);
    g.booleans(std::span(got).subspan(half), buffer);
    std::string text;
    for (auto b : got) text += b ? '1' : '0';
    EXPECT_EQ(text, bits) << r["seed"];
    EXPECT_EQ(g.next64(), u64(r["then_raw"])) << r["seed"];
  }
}

TEST(NumpyRandom, RandomEqualsNumpy) {
  for (const auto& r : golden()["random"]) {
    Pcg64 g(r["seed"].get<std::uint64_t>());
    for (const auto& v : r["values"]) EXPECT_EQ(g.random(), v.get<double>());
  }
}

TEST(NumpyRandom, LegacyMt19937ChoiceAndRandintEqualNumpy) {
  for (const auto& r : golden()["legacy_choice"]) {
    Mt19937 g(r["seed"].get<std::uint32_t>());
    const auto n = r["n"].get<std::uint64_t>();
    for (const char* key : {"values", "then"}) {
      const auto want = ints(r[key]);
      std::vector<std::int64_t> got(want.size());
      g.randint(n, got);
      EXPECT_EQ(got, want) << "seed=" << r["seed"] << " n=" << n << " " << key;
    }
  }
  for (const auto& r : golden()["legacy_randint"]) {
    Mt19937 g(r["seed"].get<std::uint32_t>());
    const auto want = ints(r["values"]);
    std::vector<std::int64_t> got(want.size());
    g.randint(r["n"].get<std::uint64_t>(), got);
    EXPECT_EQ(got, want) << "n=" << r["n"];
  }
}

TEST(NumpyRandom, PairwiseSumEqualsNumpyBitForBit) {
  for (const auto& r : golden()["sum"]) {
    const auto v = r["values"].get<std::vector<double>>();
    EXPECT_EQ(numpy_sum(v), r["sum"].get<double>()) << v.size();
    EXPECT_EQ(numpy_mean(v), r["mean"].get<double>()) << v.size();
  }
}

}  // namespace
}  // namespace probity::util
