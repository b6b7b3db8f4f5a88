// Frozen fits (probity/fit.hpp): a metric loaded with fit=FILE scores a pair the same whatever
// else is scored, while the metric fitted on the data it scores does not; the model file round
// trips, and a corrupted, mismatched or too-small fit is a named error.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>

#include "metrics/builtin.hpp"
#include "predict/pool.hpp"
#include "probity/dataset.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/fit.hpp"
#include "probity/scoring.hpp"
#include "test_paths.hpp"

namespace {

using namespace probity;

// Tiny fastText vectors, no cache: fast and trained afresh each time.
const std::string kBert = "bertscore,idf=true,ft_dim=10,ft_epoch=2,ft_cache=none";

// One directory for the models of this process (temp_dir empties the directory it names).
const std::string& model_dir() {
  static const std::string dir = test::temp_dir("fit_model");
  return dir;
}

Dataset corpus() {
  return DataInput(test::data_path("summeval/summeval_sample20.jsonl")).load();
}

// Task 0's first candidate, alone.
Dataset alone(const Dataset& all) {
  Dataset one;
  one.path = "alone";
  one.tasks = {all.tasks[0]};
  one.tasks[0].candidates.resize(1);
  return one;
}

// The primary part of the first item's score: `spec` made afresh and fitted (unless frozen) on
// `ds`, as `probity score` does.
double first_score(const std::string& spec, const Dataset& ds) {
  Engine engine;
  std::vector<MetricSelection> metrics;
  metrics.push_back(select_metric(spec, engine));
  const auto items = all_items(ds);
  const auto stats = compute_stats(ds, items, metrics);
  std::vector<double> parts(metrics[0].metric->parts().size());
  metrics[0].metric->sentence_score(
      std::span<const double>(stats[0].stats).first(stats[0].num_stats), parts);
  return parts[metrics[0].metric->primary_part()];
}

std::string fit_to(const std::string& metric, const Dataset& ds, const std::string& name) {
  const std::string out = model_dir() + "/" + name;
  Engine engine;
  FitRequest request;
  request.data = DataInput::memory(ds);
  request.metric = metric;
  request.out = out;
  const FitResult r = fit_model(request, engine.metrics(), engine.metric_context());
  EXPECT_EQ(r.tasks, ds.tasks.size());
  EXPECT_EQ(r.model_sha256.size(), 64u);
  return out;
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

template <class E>
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

void expect_fixed_function(const std::string& metric, const std::string& model) {
  const Dataset all = corpus();
  const Dataset one = alone(all);
  // Fitted on what it scores: the pair's score depends on the rest (the reported effect).
  EXPECT_NE(first_score(metric, one), first_score(metric, all)) << metric;
  // Frozen: the same number, bit for bit.
  const std::string frozen = metric + ",fit=" + model;
  const double a = first_score(frozen, one), b = first_score(frozen, all);
  EXPECT_FALSE(std::isnan(a));
  EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0) << frozen << ": " << a << " vs " << b;
}

TEST(FitModel, GemIsAFixedFunctionOnceFrozen) {
  expect_fixed_function("gem", fit_to("gem", corpus(), "gem.model"));
}

TEST(FitModel, OfflineBertScoreIsAFixedFunctionOnceFrozen) {
  expect_fixed_function(kBert, fit_to(kBert, corpus(), "bert.model"));
}

// Every item's statistics of `spec` on `ds`, as `probity score` computes them.
std::vector<double> all_stats(const std::string& spec, const Dataset& ds) {
  Engine engine;
  std::vector<MetricSelection> metrics;
  metrics.push_back(select_metric(spec, engine));
  return compute_stats(ds, all_items(ds), metrics)[0].stats;
}

TEST(FitModel, AFrozenFitScoresItsCorpusAsTheFitDid) {
  // Freezing changes nothing on the data fitted on: every statistic, bit for bit.
  const Dataset all = corpus();
  for (const std::string& metric : {std::string("gem"), kBert}) {
    const std::string model = fit_to(metric, all, "same.model");
    const auto fitted = all_stats(metric, all), frozen = all_stats(metric + ",fit=" + model, all);
    ASSERT_EQ(fitted.size(), frozen.size());
    EXPECT_EQ(std::memcmp(fitted.data(), frozen.data(), fitted.size() * sizeof(double)), 0)
        << metric;
  }
}

TEST(FitModel, IdfOnlyBertScoreFreezesItsTable) {
  // embed=file: fixed vectors; only the IDF table is fitted.
  const std::string dir = test::temp_dir("fit_model_idf");
  std::string vectors = "6 3\n";
  for (const char* w : {"the", "a", "of", "to", "and", "in"})
    vectors += std::string(w) + " 1 0 0.5\n";
  write(dir + "/v.txt", vectors);
  const std::string metric = "bertscore,idf=true,embed=file:" + dir + "/v.txt";
  const std::string model = fit_to(metric, corpus(), "idf.model");
  EXPECT_NE(read(model).find("\"method\":\"idf\""), std::string::npos);
  const double a = first_score(metric + ",fit=" + model, alone(corpus()));
  const double b = first_score(metric + ",fit=" + model, corpus());
  EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0);
}

TEST(FitModel, ModelFileRoundTrips) {
  const Dataset all = corpus();
  const std::string model = fit_to("gem", all, "gem.model");
  const std::string bytes = read(model);
  // A self-describing header line, then the sections.
  const auto header = nlohmann::json::parse(bytes.substr(0, bytes.find('\n')));
  EXPECT_EQ(header["format"], "probity-model");
  EXPECT_EQ(header["format_version"], kModelFormatVersion);
  EXPECT_EQ(header["metric"], "gem");
  EXPECT_EQ(header["method"], "ngram-kn-cv5");
  EXPECT_EQ(header["corpus"]["tasks"], 20);
  EXPECT_EQ(header["corpus"]["sha256"].get<std::string>().size(), 64u);
  // Loading and saving again gives the same state; fitting again the same file.
  Engine engine;
  auto loaded = engine.make_metric("gem,fit=" + model);
  auto fitted = engine.make_metric("gem");
  fitted->fit(all.tasks);
  const auto state = fitted->save_fit();
  ASSERT_EQ(state.size(), 1u);
  EXPECT_EQ(bytes.substr(bytes.size() - state[0].second.size()), state[0].second);
  EXPECT_EQ(read(fit_to("gem", all, "again.model")), bytes);
  EXPECT_FALSE(loaded->needs_fit());
  EXPECT_EQ(loaded->fit_passes(), std::optional<std::size_t>(0));
}

TEST(FitModel, SignatureNamesTheModelsDigestNotItsPath) {
  const Dataset all = corpus();
  Dataset half = all;
  half.tasks.resize(12);
  const std::string a = fit_to("gem", all, "a.model"), b = fit_to("gem", half, "b.model");
  Engine engine;
  const std::string sa = engine.make_metric("gem,fit=" + a)->signature();
  const std::string sb = engine.make_metric("gem,fit=" + b)->signature();
  EXPECT_NE(sa, sb);
  EXPECT_EQ(sa.find("a.model"), std::string::npos);
  EXPECT_NE(sa.find("|fit:sha256-"), std::string::npos) << sa;
  // The same bytes under another name: the same signature.
  const std::string copy = test::temp_dir("fit_model_copy") + "/renamed";
  write(copy, read(a));
  EXPECT_EQ(engine.make_metric("gem,fit=" + copy)->signature(), sa);
  EXPECT_NE(engine.make_metric("gem")->signature(), sa);
}

TEST(FitModel, CorruptedOrMismatchedModelsAreNamedErrors) {
  const std::string model = fit_to("gem", corpus(), "gem.model");
  const std::string bytes = read(model);
  const std::string dir = test::temp_dir("fit_model_bad");
  Engine engine;
  // A flipped byte in the state: the section's digest no longer matches.
  std::string flipped = bytes;
  flipped[flipped.size() - 5] ^= 0x5A;
  write(dir + "/flipped", flipped);
  std::string e = error_of<InputError>([&] { engine.make_metric("gem,fit=" + dir + "/flipped"); });
  EXPECT_NE(e.find(dir + "/flipped"), std::string::npos) << e;
  EXPECT_NE(e.find("section 'predictor'"), std::string::npos) << e;
  // Cut short.
  write(dir + "/short", bytes.substr(0, bytes.size() - 100));
  e = error_of<InputError>([&] { engine.make_metric("gem,fit=" + dir + "/short"); });
  EXPECT_NE(e.find("cut short"), std::string::npos) << e;
  // Not a model file at all.
  write(dir + "/text", "hello\n");
  e = error_of<InputError>([&] { engine.make_metric("gem,fit=" + dir + "/text"); });
  EXPECT_NE(e.find("not a probity model file"), std::string::npos) << e;
  // Other options: the signature differs.
  e = error_of<UsageError>([&] { engine.make_metric("gem,order=2,fit=" + model); });
  EXPECT_NE(e.find("field 'signature'"), std::string::npos) << e;
  EXPECT_NE(e.find(model), std::string::npos) << e;
  // Another metric.
  e = error_of<UsageError>([&] { engine.make_metric(kBert + ",fit=" + model); });
  EXPECT_NE(e.find("field 'metric' is 'gem'"), std::string::npos) << e;
  // Another format version.
  std::string newer = bytes;
  const auto at = newer.find("\"format_version\":1");
  ASSERT_NE(at, std::string::npos);
  newer.replace(at, 18, "\"format_version\":9");
  write(dir + "/newer", newer);
  e = error_of<UsageError>([&] { engine.make_metric("gem,fit=" + dir + "/newer"); });
  EXPECT_NE(e.find("field 'format_version' is 9"), std::string::npos) << e;
}

TEST(FitModel, TooSmallAFitIsRefused) {
  Dataset few = corpus();
  few.tasks.resize(3);
  std::string e = error_of<UsageError>([&] { fit_to("gem", few, "few.model"); });
  EXPECT_NE(e.find("at least 10 tasks"), std::string::npos) << e;
  EXPECT_NE(e.find("has 3"), std::string::npos) << e;
  e = error_of<UsageError>([&] { fit_to(kBert, few, "few.model"); });
  EXPECT_NE(e.find("at least 10 tasks"), std::string::npos) << e;
  EXPECT_FALSE(std::filesystem::exists(model_dir() + "/few.model"));
}

TEST(FitModel, MetricsThatCannotBeFrozenAreRefusedByName) {
  // Fits nothing.
  std::string e = error_of<UsageError>([&] { fit_to("bleu", corpus(), "bleu.model"); });
  EXPECT_NE(e.find("does not fit on data"), std::string::npos) << e;
  // Fits with the rules judge (calibrated on the data), which has no frozen form: the message
  // lists the metrics that can be frozen.
  e = error_of<UsageError>([&] { fit_to("stmt-tv", corpus(), "stmt.model"); });
  EXPECT_NE(e.find("can be frozen: "), std::string::npos) << e;
  EXPECT_NE(e.find("bertscore"), std::string::npos) << e;
  EXPECT_NE(e.find("gem"), std::string::npos) << e;
  // Options a frozen fit does not take.
  e = error_of<UsageError>([&] { fit_to("gem,style=llm", corpus(), "s.model"); });
  EXPECT_NE(e.find("style="), std::string::npos) << e;
}

}  // namespace
