// The cost of mt-metrics-eval's WMT24/25 significance tests in probity (src/stats/mtme_*.cpp):
// one SPA p-value matrix (15 systems x 1000 segments x 1000 permutations) in MTME's float32 and
// in exact arithmetic, and one draw of the `pairs` test (15 x 1000, grouped by item) with MTME's
// coin stream and with probity's. Medians of --repeats wall-clock runs on synthetic scores from a
// fixed seed; a program that prints figures, never a timed test (bench/README.md).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <random>
#include <vector>

#include "stats/mtme.hpp"

namespace {

namespace st = probity::stats;

constexpr std::size_t kSystems = 15, kSegments = 1000;

template <class F>
double median_ms(int repeats, F&& f) {
  std::vector<double> ms;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("mt-metrics-eval significance tests: cost per call");
  int repeats = 7;
  std::size_t draws = 100;
  app.add_option("--repeats", repeats, "Runs per figure (the median is printed)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--draws", draws, "Permutations per pairs-test run")->check(CLI::Range(1, 100000));
  CLI11_PARSE(app, argc, argv);

  std::mt19937_64 rng(20261205);
  std::normal_distribution<double> normal;
  std::vector<double> gold(kSystems * kSegments), m1(gold.size()), m2(gold.size());
  for (std::size_t i = 0; i < gold.size(); ++i) {
    gold[i] = std::round(normal(rng) * 4) / 4;  // MQM-like steps, with ties
    m1[i] = gold[i] + normal(rng);
    m2[i] = gold[i] + 1.5 * normal(rng);
  }
  const st::PceDraws pce(kSegments, 1000);
  fmt::print("{} systems x {} segments; medians of {} runs\n", kSystems, kSegments, repeats);
  for (const auto arithmetic : {st::PceArithmetic::kMtmeFloat32, st::PceArithmetic::kExact}) {
    double sink = 0;
    const double ms = median_ms(
        repeats, [&] { sink += st::pce_pairwise_p_values(pce, m1, kSystems, arithmetic)[0]; });
    fmt::print("SPA p-values (1000 permutations), {:<13} {:8.3f} ms per call  (checksum {:g})\n",
               arithmetic == st::PceArithmetic::kExact ? "exact sums:" : "float32 sums:", ms, sink);
  }
  for (const bool mtme : {true, false}) {
    st::MtmeSigDiffOptions o;
    o.block_size = 0;  // no early stopping
    o.mtme_stream = mtme;
    o.k = 0;
    const double setup = median_ms(repeats, [&] {
      st::mtme_pairs_permutation_test(gold, m1, m2, kSystems, st::MtmeAverageBy::kItem, o, 0.0,
                                      0.0);
    });
    o.k = draws;
    const double total = median_ms(repeats, [&] {
      st::mtme_pairs_permutation_test(gold, m1, m2, kSystems, st::MtmeAverageBy::kItem, o, 0.0,
                                      0.0);
    });
    fmt::print("pairs test, grouped by item, {:<14} {:8.3f} ms per draw (set-up {:.1f} ms)\n",
               mtme ? "MTME stream:" : "probity coins:",
               (total - setup) / static_cast<double>(draws), setup);
  }
  return 0;
}
