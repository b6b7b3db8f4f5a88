// The whole mt-metrics-eval layout (src/data/mtme_eval_set.cpp) on the synthetic WMT24 tree,
// checked against what MTME's EvalSet read there (golden meta_eval/wmt24_tasks.json), MQM
// re-weighting against score_mqm.py (golden meta_eval/mqm_weights.json), the protocol facts,
// and the messages for malformed files.
#include "data/mtme_eval_set.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "probity/dataset.hpp"
#include "probity/error.hpp"
#include "test_paths.hpp"

namespace probity {
namespace {

namespace fs = std::filesystem;

std::string tree() {
  return test::golden_path("inputs/mtme_wmt/wmt24");
}

nlohmann::json golden(const std::string& rel) {
  std::ifstream in(test::golden_path(rel));
  return nlohmann::json::parse(in);
}

std::vector<std::string> strings(const nlohmann::json& j) {
  return j.get<std::vector<std::string>>();
}

template <class C>
std::vector<std::string> as_vector(const C& c) {
  return {c.begin(), c.end()};
}

// A writable copy of the tree.
std::string copy_tree(const std::string& name) {
  const std::string root = test::temp_dir(name) + "/wmt24";
  fs::copy(tree(), root, fs::copy_options::recursive);
  return root;
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Removes a system's lines from a score file.
void drop_system(const std::string& path, const std::string& sys) {
  std::istringstream in(read(path));
  std::string kept;
  for (std::string line; std::getline(in, line);)
    if (!line.starts_with(sys + "\t")) kept += line + "\n";
  write(path, kept);
}

void expect_input_error(const std::function<void()>& f, const std::string& file_end,
                        std::size_t line, const std::string& field, const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_TRUE(e.file().ends_with(file_end)) << e.file();
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(MtmeEvalSet, ReadsWhatMtmeReads) {
  const auto g = golden("meta_eval/wmt24_tasks.json");
  for (const std::string lp : {"en-de", "en-es", "ja-zh"}) {
    SCOPED_TRACE(lp);
    const auto& want = g["eval_sets"][lp];
    const auto es = read_mtme_eval_set(tree(), lp);
    EXPECT_EQ(es.test_set, "wmt24");
    EXPECT_EQ(es.src.size(), want["num_segments"].get<std::size_t>());
    EXPECT_EQ(as_vector(es.ref_names), strings(want["ref_names"]));
    EXPECT_EQ(as_vector(es.sys_names), strings(want["sys_names"]));
    EXPECT_EQ(as_vector(es.human_systems), strings(want["human_sys_names"]));
    EXPECT_EQ(es.domain_names, strings(want["domain_names"]));
    EXPECT_EQ(es.doc_names, strings(want["doc_names"]));
    EXPECT_EQ(as_vector(es.human_score_names), strings(want["human_score_names"]));
    EXPECT_EQ(as_vector(es.metric_names), strings(want["metric_names"]));
    EXPECT_EQ(as_vector(es.metric_basenames), strings(want["metric_basenames"]));
    std::set<std::string> levels;
    for (const auto* m : {&es.human_scores, &es.metric_scores})
      for (const auto& [level, _] : *m) levels.insert(level);
    EXPECT_EQ(as_vector(levels), strings(want["levels"]));
    // The protocol facts agree with the meta-info MTME used.
    const auto* p = find_mtme_protocol("wmt24", lp);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->std_ref, want["std_ref"].get<std::string>());
    EXPECT_EQ(as_vector(p->outlier_systems), strings(want["outlier_sys_names"]));
    EXPECT_EQ(p->std_gold, (want["std_gold"].get<std::map<std::string, std::string>>()));
  }
}

TEST(MtmeEvalSet, DocumentsDomainsAndScores) {
  const auto es = read_mtme_eval_set(tree(), "en-de");
  EXPECT_EQ(es.src.size(), 12u);
  EXPECT_EQ(es.doc_bounds,
            (std::vector<std::pair<std::size_t, std::size_t>>{{0, 5}, {5, 9}, {9, 12}}));
  // Sorted, not first-occurrence order; speech is two runs.
  EXPECT_EQ(es.domain_names, (std::vector<std::string>{"literary", "speech"}));
  EXPECT_EQ(es.domain_bounds[1],
            (std::vector<std::pair<std::size_t, std::size_t>>{{0, 5}, {9, 12}}));
  EXPECT_EQ(es.sys_names.size(), 6u);
  EXPECT_TRUE(es.human_systems.count("refA"));
  EXPECT_TRUE(es.sys_names.count("MSLC"));
  EXPECT_EQ(es.units("doc"), 3u);
  EXPECT_EQ(es.units("domain"), 2u);
  EXPECT_EQ(es.units("sys"), 1u);

  const auto* seg = es.scores("seg", "mqm");
  ASSERT_NE(seg, nullptr);
  EXPECT_EQ(seg->at("GPT-4")[0], -6.0);
  EXPECT_TRUE(std::isnan(seg->at("GPT-4")[1]));  // None
  EXPECT_EQ(seg->at("GPT-4")[5], -26.300000000000004);
  const auto* dom = es.scores("domain", "mqm");
  ASSERT_NE(dom, nullptr);
  EXPECT_EQ(dom->at("GPT-4")[0], -16.650000000000002);  // literary
  EXPECT_EQ(es.scores("sys", "chrF-refB")->at("IOL_Research")[0], 47.0);
  EXPECT_EQ(es.scores("seg", "spBLEU-refB"), nullptr);  // sys level only
  ASSERT_NE(es.scores("sys", "spBLEU-refB"), nullptr);
  // A metric using refA does not score the human system refA; one using refB does.
  EXPECT_FALSE(es.scores("seg", "BLEU-refA")->count("refA"));
  EXPECT_TRUE(es.scores("seg", "BLEU-refB")->count("refA"));
  EXPECT_TRUE(es.scores("seg", "sentinel-cand-mqm-src")->count("refA"));

  // MTME's repair: MSLC is missing from COMET-22-refB.sys and gets a 0.
  EXPECT_EQ(es.padded.size(), 1u);
  EXPECT_EQ(es.padded.at("COMET-22-refB.sys"), std::vector<std::string>{"MSLC"});
  EXPECT_EQ(es.scores("sys", "COMET-22-refB")->at("MSLC"), std::vector<double>{0.0});
  const auto es2 = read_mtme_eval_set(tree(), "en-es");
  EXPECT_EQ(es2.padded.at("XCOMET-refA.seg"), std::vector<std::string>{"refB"});
  EXPECT_EQ(es2.scores("seg", "XCOMET-refA")->at("refB"), std::vector<double>(13, 0.0));
  EXPECT_TRUE(es2.human_systems.count("refB"));

  MtmeReadOptions strict;
  strict.strict = true;
  expect_input_error([&] { read_mtme_eval_set(tree(), "en-de", strict); },
                     "COMET-22-refB.sys.score", 0, "system", "no scores for system 'MSLC'");
  MtmeReadOptions no_metrics;
  no_metrics.read_metric_scores = false;
  EXPECT_TRUE(read_mtme_eval_set(tree(), "en-de", no_metrics).metric_names.empty());
}

TEST(MtmeEvalSet, MetricNames) {
  const std::set<std::string> refs{"refA", "refB", "refC"};
  auto [base, used] = parse_mtme_metric_name("metametrics_mt_mqm_qe_kendall.seg.s-src", refs, "f");
  EXPECT_EQ(base, "metametrics_mt_mqm_qe_kendall.seg.s");
  EXPECT_TRUE(used.empty());
  std::tie(base, used) = parse_mtme_metric_name("MetricX-24-Hybrid-refB.refA", refs, "f");
  EXPECT_EQ(base, "MetricX-24-Hybrid");
  EXPECT_EQ(used, (std::set<std::string>{"refA", "refB"}));
  std::tie(base, used) = parse_mtme_metric_name("BLEU-all", refs, "f");
  EXPECT_EQ(used, refs);
  expect_input_error([&] { parse_mtme_metric_name("BLEU", refs, "f"); }, "f", 0, "name",
                     "no '-REF' part");
}

TEST(MtmeEvalSet, MalformedFilesNameFileLineAndField) {
  {
    const auto root = copy_tree("mtme_bad_line");
    const auto path = root + "/human-scores/en-de.mqm.seg.score";
    auto text = read(path);
    text.replace(text.find("GPT-4\tNone"), 10, "GPT-4\tNone\textra");
    write(path, text);
    expect_input_error([&] { read_mtme_eval_set(root, "en-de"); }, "en-de.mqm.seg.score", 2, "",
                       "3 column(s), expected 2");
  }
  {
    const auto root = copy_tree("mtme_bad_count");
    const auto path = root + "/metric-scores/en-de/chrF-refB.seg.score";
    auto text = read(path);
    text.erase(0, text.find('\n') + 1);  // GPT-4 loses its first segment
    write(path, text);
    expect_input_error([&] { read_mtme_eval_set(root, "en-de"); }, "chrF-refB.seg.score", 11,
                       "system", "only 11 score(s) for system 'GPT-4', expected 12");
  }
  {
    const auto root = copy_tree("mtme_bad_ref");
    fs::copy_file(root + "/metric-scores/en-de/BLEU-refB.seg.score",
                  root + "/metric-scores/en-de/BLEU-refC.seg.score");
    expect_input_error([&] { read_mtme_eval_set(root, "en-de"); }, "BLEU-refC.seg.score", 0,
                       "reference", "unknown reference 'refC'");
  }
  {
    const auto root = copy_tree("mtme_bad_none");
    const auto path = root + "/metric-scores/en-de/chrF-refB.sys.score";
    write(path, "GPT-4\tNone\n");
    expect_input_error([&] { read_mtme_eval_set(root, "en-de"); }, "chrF-refB.sys.score", 1,
                       "score", "None in a metric score file");
  }
  {
    const auto root = copy_tree("mtme_bad_doc");
    auto text = read(root + "/documents/en-de.docs");
    text.replace(text.find("speech doc3"), 11, "speech doc1");  // doc1 resumes after doc2
    write(root + "/documents/en-de.docs", text);
    expect_input_error([&] { read_mtme_eval_set(root, "en-de"); }, "en-de.docs", 10, "document",
                       "must be contiguous");
  }
  {
    const auto root = copy_tree("mtme_bad_domain");
    const auto path = root + "/human-scores/en-de.mqm.domain.score";
    write(path, read(path) + "news\tGPT-4\t1.0\n");
    expect_input_error([&] { read_mtme_eval_set(root, "en-de"); }, "en-de.mqm.domain.score", 13,
                       "domain", "unknown domain 'news'");
  }
  expect_input_error([&] { read_mtme_eval_set(tree(), "de-en"); }, "de-en.docs", 0, "",
                     "no such file");
}

TEST(MtmeMqm, WeightsAsScoreMqm) {
  const auto g = golden("meta_eval/mqm_weights.json");
  const auto ratings = read_mtme_rating_file(test::golden_path("inputs/mtme_wmt/wmt24/human-scores/"
                                                               "en-de.mqm.merged.seg.rating"),
                                             "mqm.merged");
  ASSERT_EQ(g["specs"].size(), 4u);
  for (const auto& spec : g["specs"]) {
    SCOPED_TRACE(spec["name"].get<std::string>());
    const auto sep = spec["weights_sep"].get<std::string>();
    const auto weights = parse_mqm_weights(spec["weights"].get<std::string>(), sep[0]);
    EXPECT_EQ(weights, (spec["parsed"].get<std::map<std::string, double>>()));
    const auto scores = mqm_scores(ratings, weights);
    ASSERT_EQ(scores.size(), spec["scores"].size());
    for (const auto& [sys, want] : spec["scores"].items()) {
      const auto& got = scores.at(sys);
      ASSERT_EQ(got.size(), want.size()) << sys;
      for (std::size_t i = 0; i < got.size(); ++i) {
        if (want[i].is_null())
          EXPECT_TRUE(std::isnan(got[i])) << sys << " " << i;
        else
          EXPECT_EQ(got[i], want[i].get<double>()) << sys << " " << i;
      }
    }
  }
  // The tree's mqm seg scores are the ratings under the default weights.
  const auto es =
      read_mtme_eval_set(tree(), "en-de", MtmeReadOptions{false, true, /*read_ratings=*/true});
  ASSERT_TRUE(es.ratings.count("mqm.merged"));
  EXPECT_EQ(es.ratings.at("mqm.merged").at("GPT-4")[0]->rater, "rater1");
  const auto def =
      mqm_scores(es.ratings.at("mqm.merged"), parse_mqm_weights(default_mqm_weights()));
  for (const auto& [sys, vals] : *es.scores("seg", "mqm"))
    for (std::size_t i = 0; i < vals.size(); ++i) {
      if (std::isnan(vals[i]))
        EXPECT_TRUE(std::isnan(def.at(sys)[i]));
      else
        EXPECT_EQ(def.at(sys)[i], vals[i]) << sys << " " << i;
    }
  EXPECT_THROW(parse_mqm_weights("major=5"), UsageError);
  EXPECT_THROW(parse_mqm_weights("major:5  minor:1"), UsageError);  // an empty item, as Python
}

TEST(MtmeMqm, RatingFileErrors) {
  const std::string dir = test::temp_dir("mtme_ratings");
  write(dir + "/a.rating", "sysA\t{\"errors\": []}\nsysA\n");
  expect_input_error([&] { read_mtme_rating_file(dir + "/a.rating", "r"); }, "a.rating", 2, "",
                     "1 column(s)");
  write(dir + "/b.rating", "sysA\t{\"errors\": [{\"start\": \"x\", \"end\": 2}]}\n");
  expect_input_error([&] { read_mtme_rating_file(dir + "/b.rating", "r"); }, "b.rating", 1,
                     "errors.start", "not an integer");
}

TEST(MtmeProtocols, TaskSets) {
  EXPECT_EQ(mtme_task_lps("wmt24"), (std::vector<std::string>{"en-de", "en-es", "ja-zh"}));
  EXPECT_EQ(mtme_task_lps("wmt23"), (std::vector<std::string>{"en-de", "he-en", "zh-en"}));
  EXPECT_EQ(mtme_task_lps("wmt25").size(), 16u);
  EXPECT_TRUE(mtme_task_lps("wmt22").empty());
  const auto* de = find_mtme_protocol("wmt24", "en-de");
  ASSERT_NE(de, nullptr);
  EXPECT_TRUE(de->human);
  EXPECT_FALSE(find_mtme_protocol("wmt24", "en-es")->human);
  EXPECT_TRUE(de->primary_metrics.count("sentinel-cand-mqm"));
  EXPECT_TRUE(de->baseline_metrics.count("BLEU"));
  EXPECT_FALSE(de->baseline_metrics.count("XCOMET"));
  EXPECT_TRUE(find_mtme_protocol("wmt23", "he-en")->human);
  EXPECT_EQ(find_mtme_protocol("wmt23", "he-en")->std_ref, "refB");
  EXPECT_EQ(find_mtme_protocol("wmt25", "en-cs_CZ")->std_gold.at("seg"), "esa-human1");
  EXPECT_EQ(find_mtme_protocol("wmt25", "ja-zh_CN")->std_gold.at("seg"), "mqm");
  EXPECT_EQ(find_mtme_protocol("wmt24", "en-cs"), nullptr);  // not a WMT24 task pair

  for (const auto& lp : mtme_task_lps("wmt24"))
    EXPECT_NO_THROW(check_mtme_protocol(read_mtme_eval_set(tree(), lp),
                                        *find_mtme_protocol("wmt24", lp), tree()));
  const auto root = copy_tree("mtme_no_domain_gold");
  fs::remove(root + "/human-scores/en-es.mqm.domain.score");
  fs::remove(root + "/system-outputs/en-es/MSLC.txt");
  for (const auto& f : fs::directory_iterator(root + "/metric-scores/en-es"))
    drop_system(f.path().string(), "MSLC");
  for (const std::string level : {"seg", "doc", "sys"})
    drop_system(root + "/human-scores/en-es.mqm." + level + ".score", "MSLC");
  const auto es = read_mtme_eval_set(root, "en-es");
  expect_input_error([&] { check_mtme_protocol(es, *find_mtme_protocol("wmt24", "en-es"), root); },
                     "wmt24", 0, "std_gold", "no domain-level human scores 'mqm'");
  auto p = *find_mtme_protocol("wmt24", "en-es");
  p.std_gold.erase("domain");
  expect_input_error([&] { check_mtme_protocol(es, p, root); }, "wmt24", 0, "outlier_systems",
                     "outlier system 'MSLC'");
  p.std_ref = "refC";
  expect_input_error([&] { check_mtme_protocol(es, p, root); }, "wmt24", 0, "std_ref",
                     "standard reference 'refC'");
}

}  // namespace
}  // namespace probity
