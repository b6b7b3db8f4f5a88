// Every strategy over every bundled dataset: no failures, consistent statuses, determinism,
// thread safety; logs the applied / not-applicable / unchanged counts.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <thread>

#include "perturb/perturb_fixtures.hpp"
#include "test_paths.hpp"

namespace {

using probity::Dataset;
using probity::PerturbationRegistry;
using probity::PerturbContext;
using probity::PerturbResult;
using probity::StrategyKind;
using Status = PerturbResult::Status;

const std::vector<std::string>& dataset_files() {
  static const std::vector<std::string> files = {
      "summeval/summeval_sample20.jsonl", "summeval/summeval.jsonl",
      "dialsummeval/dialsummeval.jsonl", "newsroom_human_eval/newsroom_human_eval.jsonl",
      "topical_chat_usr/topical_chat_usr.jsonl"};
  return files;
}

std::vector<const probity::PerturbationInfo*> all_strategies() {
  auto out = probity::test::builtin_strategies().list(StrategyKind::kDegradation);
  for (const auto* info : probity::test::builtin_strategies().list(StrategyKind::kManipulation))
    out.push_back(info);
  return out;
}

std::vector<PerturbResult> run_all(const probity::Perturbation& strategy, const Dataset& ds,
                                   std::uint64_t seed) {
  std::vector<PerturbResult> out;
  for (std::size_t t = 0; t < ds.tasks.size(); ++t)
    for (std::size_t c = 0; c < ds.tasks[t].candidates.size(); ++c)
      out.push_back(strategy.apply(PerturbContext{&ds, t, c, seed}));
  return out;
}

TEST(PerturbDatasets, EveryStrategyOnEveryDataset) {
  for (const auto& file : dataset_files()) {
    const Dataset ds = probity::load_dataset(probity::test::data_path(file));
    double total_ms = 0;
    for (const auto* info : all_strategies()) {
      auto strategy = info->factory();
      const auto start = std::chrono::steady_clock::now();
      const auto results = run_all(*strategy, ds, 42);
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      total_ms += ms;
      std::size_t counts[4] = {0, 0, 0, 0};
      std::size_t i = 0;
      for (std::size_t t = 0; t < ds.tasks.size(); ++t) {
        for (const auto& cand : ds.tasks[t].candidates) {
          const auto& r = results[i++];
          ++counts[static_cast<int>(r.status)];
          switch (r.status) {
            case Status::kApplied:
              EXPECT_NE(r.text, cand.text) << info->name;
              break;
            case Status::kNotApplicable:
              EXPECT_TRUE(r.text.empty()) << info->name;
              EXPECT_FALSE(r.note.empty()) << info->name;
              break;
            case Status::kUnchanged:
              EXPECT_EQ(r.text, cand.text) << info->name;
              EXPECT_FALSE(r.note.empty()) << info->name;
              break;
            case Status::kFailed:
              ADD_FAILURE() << info->name << " failed on " << file << ": " << r.note;
              break;
          }
        }
      }
      std::cout << "[perturb] " << file << " " << probity::kind_name(info->kind) << "/"
                << info->code << " " << info->name << ": applied=" << counts[0]
                << " not_applicable=" << counts[1] << " unchanged=" << counts[2]
                << " failed=" << counts[3] << " (" << static_cast<int>(ms) << " ms)\n";
      // Elongation always applies; random replacement too, unless another task happens to
      // have an identical candidate (unchanged).
      if (info->code == "M") {
        EXPECT_EQ(counts[0], results.size()) << info->name;
      }
      if (info->kind == StrategyKind::kDegradation && info->code == "R") {
        EXPECT_EQ(counts[0] + counts[2], results.size()) << info->name;
      }
    }
    std::cout << "[perturb] " << file << " all 12 strategies: " << ds.num_candidates()
              << " candidates in " << static_cast<int>(total_ms) << " ms\n";
  }
}

TEST(PerturbDeterminism, SameSeedSameBytes) {
  const Dataset ds =
      probity::load_dataset(probity::test::data_path("summeval/summeval_sample20.jsonl"));
  for (const auto* info : all_strategies()) {
    auto strategy = info->factory();
    const auto a = run_all(*strategy, ds, 7);
    const auto b = run_all(*info->factory(), ds, 7);
    const auto c = run_all(*strategy, ds, 8);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].status, b[i].status);
      EXPECT_EQ(a[i].text, b[i].text) << info->name;
      EXPECT_EQ(a[i].note, b[i].note);
      differ += a[i].text != c[i].text;
    }
    // Randomised strategies draw from the seed; the others are functions of the text.
    const bool randomized = info->kind == StrategyKind::kManipulation
                                ? info->code != "M"
                                : (info->code == "R" || info->code == "D");
    if (randomized) {
      EXPECT_GT(differ, 0u) << info->name;
    } else {
      EXPECT_EQ(differ, 0u) << info->name;
    }
  }
}

TEST(PerturbDeterminism, ThreadSafeApply) {
  const Dataset ds =
      probity::load_dataset(probity::test::data_path("summeval/summeval_sample20.jsonl"));
  for (const auto* info : all_strategies()) {
    auto strategy = info->factory();
    const auto expected = run_all(*strategy, ds, 11);
    std::vector<PerturbResult> got(expected.size());
    std::vector<std::pair<std::size_t, std::size_t>> items;
    for (std::size_t t = 0; t < ds.tasks.size(); ++t)
      for (std::size_t c = 0; c < ds.tasks[t].candidates.size(); ++c) items.emplace_back(t, c);
    // Interleaved items on four threads share one strategy object.
    std::vector<std::thread> threads;
    for (std::size_t w = 0; w < 4; ++w) {
      threads.emplace_back([&, w] {
        for (std::size_t i = w; i < items.size(); i += 4)
          got[i] = strategy->apply(PerturbContext{&ds, items[i].first, items[i].second, 11});
      });
    }
    for (auto& th : threads) th.join();
    for (std::size_t i = 0; i < expected.size(); ++i)
      EXPECT_EQ(got[i].text, expected[i].text) << info->name;
  }
}

}  // namespace
