// Meta-info of mt-metrics-eval's WMT23, WMT24 and WMT25 task sets, as data: copied by hand from
// mt_metrics_eval/meta_info.py (MetaInfo WMT23, WMT24, WMT24_ESA, WMT25, WMT25_ESA and their
// DATA entries) and mt_metrics_eval/tasks.py (WMT23, WMT24, WMT25: default lps and
// lps_with_multiple_refs), google-research/mt-metrics-eval at commit
// 68a481aea1a787392d55af8f76ac8ef40c5f4664. Only the pairs the task functions use by default.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "data/mtme_eval_set.hpp"
#include "probity/dataset.hpp"

namespace probity {
namespace {

using Set = std::set<std::string>;
using Gold = std::map<std::string, std::string>;

const Set kWmt23Primaries = {"Calibri-COMET22",
                             "Calibri-COMET22-QE",
                             "cometoid22-wmt22",
                             "eBLEU",
                             "embed_llama",
                             "GEMBA-MQM",
                             "KG-BERTScore",
                             "MaTESe",
                             "MEE4",
                             "MetricX-23",
                             "MetricX-23-QE",
                             "mre-score-labse-regular",
                             "mbr-metricx-qe",
                             "sescoreX",
                             "tokengram_F",
                             "XCOMET-Ensemble",
                             "XCOMET-QE-Ensemble",
                             "XLsim",
                             "BERTscore",
                             "BLEU",
                             "BLEURT-20",
                             "chrF",
                             "COMET",
                             "CometKiwi",
                             "docWMT22CometDA",
                             "docWMT22CometKiwiDA",
                             "f200spBLEU",
                             "MS-COMET-QE-22",
                             "prismRef",
                             "prismSrc",
                             "Random-sysname",
                             "YiSi-1"};
const Set kWmt23Baselines = {
    "BERTscore",      "BLEU",           "BLEURT-20",       "chrF",
    "COMET",          "CometKiwi",      "docWMT22CometDA", "docWMT22CometKiwiDA",
    "f200spBLEU",     "MS-COMET-QE-22", "prismRef",        "prismSrc",
    "Random-sysname", "YiSi-1"};

const Set kWmt24Primaries = {"BLCOM_1",
                             "bright-qe",
                             "chrfS",
                             "damonmonli",
                             "gemba_esa",
                             "MEE4",
                             "metametrics_mt_mqm_hybrid_kendall",
                             "metametrics_mt_mqm_qe_kendall.seg.s",
                             "MetricX-24-Hybrid",
                             "MetricX-24-Hybrid-QE",
                             "XCOMET",
                             "XCOMET-QE",
                             "XLsimMqm",
                             "BERTScore",
                             "BLEU",
                             "BLEURT-20",
                             "chrF",
                             "COMET-22",
                             "CometKiwi",
                             "PrismRefMedium",
                             "PrismRefSmall",
                             "spBLEU",
                             "YiSi-1",
                             "sentinel-cand-mqm",
                             "sentinel-ref-mqm",
                             "sentinel-src-mqm"};
const Set kWmt24Baselines = {
    "BERTScore",       "BLEU",      "BLEURT-20",         "chrF",
    "COMET-22",        "CometKiwi", "PrismRefMedium",    "PrismRefSmall",
    "spBLEU",          "YiSi-1",    "sentinel-cand-mqm", "sentinel-ref-mqm",
    "sentinel-src-mqm"};

const Set kWmt25Primaries = {"EnsembleSlick",  "GEMBA-v2",  "MetricX-25",   "Polycand-2",
                             "Q_Relative-MQM", "SEGALE-QE", "TASER-No-Ref", "UvA-MT",
                             "comet-multi",    "hw-tsc",    "mr7_2_1",      "rankedCOMET"};
// Not a subset of the primaries in WMT25 (meta_info.py says baselines should be one).
const Set kWmt25Baselines = {"BERTScore", "BLEU", "COMET22",       "COMETKiwi22",
                             "YiSi-1",    "chrF", "sentinel-cand", "spBLEU"};

Gold gold(const std::string& name) {
  return {{"sys", name}, {"domain", name}, {"seg", name}};
}

std::vector<MtmeProtocol> make() {
  std::vector<MtmeProtocol> p;
  // tasks.WMT23: lps en-de, he-en, zh-en; lps_with_multiple_refs {en-he, he-en}.
  p.push_back({"wmt23",
               "en-de",
               "refA",
               gold("mqm"),
               {"synthetic_ref"},
               kWmt23Primaries,
               kWmt23Baselines,
               false});
  p.push_back({"wmt23", "he-en", "refB", gold("mqm"), {}, kWmt23Primaries, kWmt23Baselines, true});
  p.push_back({"wmt23",
               "zh-en",
               "refA",
               gold("mqm"),
               {"synthetic_ref"},
               kWmt23Primaries,
               kWmt23Baselines,
               false});
  // tasks.WMT24: lps en-de, en-es, ja-zh; lps_with_multiple_refs {en-de}.
  p.push_back(
      {"wmt24", "en-de", "refB", gold("mqm"), {"MSLC"}, kWmt24Primaries, kWmt24Baselines, true});
  for (const char* lp : {"en-es", "ja-zh"})
    p.push_back(
        {"wmt24", lp, "refA", gold("mqm"), {"MSLC"}, kWmt24Primaries, kWmt24Baselines, false});
  // tasks.WMT25: 16 lps, lps_with_multiple_refs empty. ja-zh_CN is MQM (WMT25), the rest ESA.
  for (const char* lp : {"cs-de_DE", "cs-uk_UA", "en-ar_EG", "en-bho_IN", "en-cs_CZ", "en-et_EE",
                         "en-is_IS", "en-it_IT", "en-ja_JP", "en-ko_KR", "en-mas_KE", "en-ru_RU",
                         "en-sr_Cyrl_RS", "en-uk_UA", "en-zh_CN", "ja-zh_CN"}) {
    const std::string l = lp;
    // en-ko_KR is MQM too in meta_info.DATA (MetaInfo WMT25).
    const bool mqm = l == "ja-zh_CN" || l == "en-ko_KR";
    p.push_back({"wmt25",
                 l,
                 "refA",
                 gold(mqm ? "mqm" : "esa-human1"),
                 {},
                 kWmt25Primaries,
                 kWmt25Baselines,
                 false});
  }
  return p;
}

const std::vector<MtmeProtocol>& all() {
  static const std::vector<MtmeProtocol> p = make();
  return p;
}

}  // namespace

const MtmeProtocol* find_mtme_protocol(const std::string& test_set, const std::string& lp) {
  for (const auto& p : all())
    if (p.test_set == test_set && p.lp == lp) return &p;
  return nullptr;
}

std::vector<std::string> mtme_task_lps(const std::string& test_set) {
  std::vector<std::string> out;
  for (const auto& p : all())
    if (p.test_set == test_set) out.push_back(p.lp);
  std::sort(out.begin(), out.end());
  return out;
}

void check_mtme_protocol(const MtmeEvalSet& eval_set, const MtmeProtocol& protocol,
                         const std::string& test_set_dir) {
  if (!eval_set.ref_names.count(protocol.std_ref))
    throw InputError(test_set_dir, 0, "std_ref",
                     fmt::format("standard reference '{}' of {} {} is not among the references "
                                 "({})",
                                 protocol.std_ref, protocol.test_set, protocol.lp,
                                 fmt::join(eval_set.ref_names, ", ")));
  for (const auto& [level, gold] : protocol.std_gold) {
    const auto l = eval_set.human_scores.find(level);
    if (l == eval_set.human_scores.end() || !l->second.count(gold))
      throw InputError(
          test_set_dir, 0, "std_gold",
          fmt::format("no {}-level human scores '{}' (human-scores/{}.{}.{}.score), "
                      "the standard gold of {} {}",
                      level, gold, protocol.lp, gold, level, protocol.test_set, protocol.lp));
  }
  for (const auto& s : protocol.outlier_systems)
    if (!eval_set.sys_names.count(s))
      throw InputError(test_set_dir, 0, "outlier_systems",
                       fmt::format("outlier system '{}' of {} {} has no output", s,
                                   protocol.test_set, protocol.lp));
}

}  // namespace probity
