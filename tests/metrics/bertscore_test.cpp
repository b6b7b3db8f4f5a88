// BERTScore against goldens of Tiiiger/bert_score's own score() on a fixed embedding table
// (tests/golden/gen/bertscore.py), through the metric as registered (embed=file: with the table
// written as a word2vec text and binary file), and the word-vector readers.
#include "metrics/bertscore.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "probity/engine.hpp"
#include "probity/metric.hpp"
#include "test_paths.hpp"

namespace {

using nlohmann::json;
namespace bs = probity::metrics::bertscore;

struct Golden {
  json header;
  std::vector<json> cases;
};

const Golden& golden() {
  static const Golden g = [] {
    Golden out;
    std::ifstream in(probity::test::golden_path("bertscore/bertscore.jsonl"));
    std::string line;
    std::getline(in, line);
    out.header = json::parse(line);
    while (std::getline(in, line)) out.cases.push_back(json::parse(line));
    return out;
  }();
  return g;
}

// The golden table as a word2vec file; [PAD] left out (bert_score never matches it).
std::string write_table(bool binary) {
  const json& h = golden().header;
  const std::string dir = probity::test::temp_dir("bertscore");
  const std::string path = dir + (binary ? "/table.bin" : "/table.txt");
  std::ofstream out(path, std::ios::binary);
  const auto& vocab = h["vocab"];
  const std::size_t dim = h["vectors"][0].size();
  out << vocab.size() - 1 << " " << dim << "\n";
  for (std::size_t i = 1; i < vocab.size(); ++i) {
    out << vocab[i].get<std::string>() << " ";
    for (std::size_t k = 0; k < dim; ++k) {
      const double v = h["vectors"][i][k].get<double>();
      if (binary) {
        const auto f = static_cast<float>(v);
        out.write(reinterpret_cast<const char*>(&f), 4);
      } else {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.17g", v);
        out << buf << (k + 1 < dim ? " " : "");
      }
    }
    out << "\n";
  }
  return path;
}

std::string write_baseline() {
  const std::string path = probity::test::temp_dir("bertscore_baseline") + "/baseline.tsv";
  std::ofstream(path) << golden().header["baseline_csv"].get<std::string>();
  return path;
}

void expect_near_or_nan(const json& want, double got, const std::string& what) {
  if (want.is_null()) {
    EXPECT_TRUE(std::isnan(got)) << what << " got " << got;
  } else {
    EXPECT_NEAR(got, want.get<double>(), 1e-9) << what;
  }
}

TEST(BertScore, MatchesBertScoreGoldens) {
  const std::string table = write_table(false), baseline = write_baseline();
  ASSERT_GE(golden().cases.size(), 30u);
  std::size_t checked = 0;
  for (const json& c : golden().cases) {
    std::string spec = "bertscore,embed=file:" + table + ",lowercase=false";
    if (c["idf"].get<bool>()) spec += ",idf=true";
    if (!c["baseline_layer"].is_null())
      spec += ",baseline=" + baseline +
              ",baseline_layer=" + std::to_string(c["baseline_layer"].get<int>());
    auto metric = probity::make_metric(spec);
    std::vector<probity::Task> tasks;
    for (std::size_t i = 0; i < c["cands"].size(); ++i) {
      probity::Task t;
      t.task_id = std::to_string(i);
      for (const auto& r : c["refs"][i]) t.references.push_back({"r", r.get<std::string>()});
      t.candidates.push_back({"c", "s", c["cands"][i].get<std::string>(), {}});
      tasks.push_back(std::move(t));
    }
    if (metric->needs_fit()) metric->fit(tasks);
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      probity::MetricInput in;
      in.candidate = tasks[i].candidates[0].text;
      for (const auto& r : tasks[i].references) in.references.push_back(r.text);
      const std::vector<double> got = metric->score(in);
      const std::string what = c["name"].get<std::string>() + " idf=" + c["idf"].dump() +
                               " layer=" + c["baseline_layer"].dump() + " item " +
                               std::to_string(i);
      for (std::size_t j = 0; j < 3; ++j) expect_near_or_nan(c["expected"][i][j], got[j], what);
      ++checked;
    }
  }
  EXPECT_GE(checked, 100u);
}

TEST(BertScore, IdfTableMatchesGetIdfDict) {
  const std::string table = write_table(false);
  auto embedder = bs::make_vector_file_embedder(table, "text", false);
  std::size_t checked = 0;
  for (const json& c : golden().cases) {
    if (!c["idf"].get<bool>()) continue;
    bs::IdfTable idf;
    for (const auto& group : c["refs"])
      for (const auto& r : group) idf.add_document(embedder->embed(r.get<std::string>()));
    for (const auto& [token, weight] : c["idf_dict"].items()) {
      if (token == "[PAD]") continue;
      EXPECT_NEAR(idf.weight(token == "<unseen>" ? "zzz-unseen" : token), weight.get<double>(),
                  1e-12)
          << c["name"] << " " << token;
      ++checked;
    }
  }
  EXPECT_GE(checked, 30u);
}

TEST(BertScore, BinaryWord2VecReadsTheSameVectorsAsFloat32) {
  auto text = bs::make_vector_file_embedder(write_table(false), "auto", false);
  auto bin = bs::make_vector_file_embedder(write_table(true), "auto", false);
  const auto a = text->embed("the cat sat"), b = bin->embed("the cat sat");
  ASSERT_EQ(a.tokens, b.tokens);
  ASSERT_EQ(a.tokens.size(), 5u);  // [CLS] the cat sat [SEP]
  EXPECT_EQ(a.special, (std::vector<char>{1, 0, 0, 0, 1}));
  for (std::size_t i = 0; i < a.vectors.size(); ++i)
    EXPECT_EQ(b.vectors[i], static_cast<double>(static_cast<float>(a.vectors[i])));
  EXPECT_NE(text->signature(), bin->signature());
}

TEST(BertScore, GloveWithoutHeaderAndOovTokens) {
  const std::string path = probity::test::temp_dir("bertscore_glove") + "/glove.txt";
  std::ofstream(path) << "cat 1 0 0\ndog 0.8 0.6 0\n. 0 0 1\n";
  auto e = bs::make_vector_file_embedder(path, "auto", true);
  const auto t = e->embed("The Cat, the dog.");
  EXPECT_EQ(t.tokens, (std::vector<std::string>{"cat", "dog", "."}));
  EXPECT_EQ(t.special, (std::vector<char>{0, 0, 0}));
  // No special tokens: precision of "cat" against "dog" is their cosine.
  const auto h = e->embed("cat"), r = e->embed("dog");
  const auto s =
      bs::greedy_match(h, bs::token_weights(h, nullptr), r, bs::token_weights(r, nullptr));
  EXPECT_NEAR(s.p, 0.8, 1e-15);
  EXPECT_NEAR(s.r, 0.8, 1e-15);
  EXPECT_NEAR(s.f, 0.8, 1e-15);
  // A text of unknown words only is empty: 0, as bert_score's empty sentence.
  const auto none = e->embed("zebra");
  const auto z =
      bs::greedy_match(none, bs::token_weights(none, nullptr), r, bs::token_weights(r, nullptr));
  EXPECT_EQ(z.p, 0.0);
  EXPECT_EQ(z.f, 0.0);
}

TEST(BertScore, BadFilesAndOptionsAreErrors) {
  const std::string dir = probity::test::temp_dir("bertscore_bad");
  std::ofstream(dir + "/short.txt") << "2 3\ncat 1 0\n";
  auto e = bs::make_vector_file_embedder(dir + "/short.txt", "text", true);
  EXPECT_THROW(e->embed("cat"), std::invalid_argument);
  EXPECT_THROW(bs::make_vector_file_embedder(dir + "/missing.txt", "text", true),
               std::invalid_argument);
  std::ofstream(dir + "/b.tsv") << "LAYER,P,R,F\n0,0.5,0.5,x\n";
  EXPECT_THROW(bs::read_baseline(dir + "/b.tsv", 0), std::invalid_argument);
  EXPECT_THROW(probity::make_metric("bertscore,embed=word2vec"), std::runtime_error);
  EXPECT_THROW(probity::make_metric("bertscore,format=text"), std::runtime_error);
}

TEST(BertScore, BaselineIsReadAsFloat32) {
  const auto b = bs::read_baseline(write_baseline(), 1);
  EXPECT_EQ(b.p, static_cast<double>(0.83150584f));
  EXPECT_EQ(b.f, static_cast<double>(0.83122575f));
  EXPECT_THROW(bs::read_baseline(write_baseline(), 2), std::invalid_argument);
}

// libfasttext with one thread and a seed: training twice gives the same vectors bit for bit, and
// the cached model gives them too.
TEST(BertScore, FastTextTrainingIsDeterministicAndCached) {
  const char* words[] = {"the",  "cat",   "sat",  "on",  "mat",  "a",   "dog", "ran",   "in",
                         "park", "river", "boat", "sun", "moon", "old", "new", "house", "tree"};
  std::vector<probity::Task> tasks(40);
  std::uint32_t x = 18;
  auto sentence = [&] {
    std::string out;
    for (int k = 0; k < 12; ++k) {
      x = x * 1664525u + 1013904223u;
      out += std::string(words[(x >> 16) % 18]) + (k == 11 ? "." : " ");
    }
    return out;
  };
  for (auto& t : tasks) {
    t.references.push_back({"r", sentence()});
    t.candidates.push_back({"c", "s", sentence(), {}});
  }
  const std::string cache = probity::test::temp_dir("bertscore_ft");
  bs::FastTextOptions o;
  o.dim = 16;
  o.epoch = 3;
  o.bucket = 2000;
  o.cache_dir = cache;
  auto vectors = [&](const bs::FastTextOptions& opt) {
    auto e = bs::make_fasttext_embedder(opt);
    EXPECT_TRUE(e->needs_fit());
    e->fit(tasks);
    return e->embed("The cat sat, zzz.").vectors;
  };
  const auto first = vectors(o);  // trains and caches
  std::size_t models = 0;
  for (const auto& f : std::filesystem::recursive_directory_iterator(cache))
    models += f.path().extension() == ".bin" ? 1 : 0;
  EXPECT_EQ(models, 1u);
  // the cat sat , zzz . : unknown words get the mean of their character n-grams' vectors
  EXPECT_EQ(first.size(), 6u * 16u);
  EXPECT_EQ(vectors(o), first);  // loaded from the cache
  bs::FastTextOptions fresh = o;
  fresh.cache_dir = "";
  EXPECT_EQ(vectors(fresh), first);  // trained again
  fresh.seed = 2;
  EXPECT_NE(vectors(fresh), first);
}

}  // namespace
