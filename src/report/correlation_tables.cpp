// Human correlation tables (pooled, per --level, preference agreement) and --rank's
// significance clusters.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/format.hpp"

namespace probity::report::detail {

namespace {

const DatasetSummary* find_dataset(const AuditReport& report, const std::string& name) {
  for (const auto& d : report.datasets)
    if (d.name == name) return &d;
  return nullptr;
}

// The columns of a correlation table: the metric, then one per human dimension.
void add_dimension_columns(Table& t, const std::vector<std::string>& dims) {
  t.header.push_back("metric");
  t.align.push_back(Align::kLeft);
  for (const auto& d : dims) {
    t.header.push_back(d);
    t.align.push_back(Align::kRight);
  }
}

// The correlations of a dataset: the human ceiling above, the audited metrics in report order,
// then the baselines below.
std::vector<const MetricCorrelations*> dataset_correlations(const TestIndex& index,
                                                            const std::string& ds) {
  const AuditReport& r = index.report();
  std::vector<const MetricCorrelations*> rows;
  for (const auto& c : r.correlations)
    if (c.dataset == ds && c.humans) rows.push_back(&c);
  for (const auto& m : index.metrics())
    for (const auto& c : r.correlations)
      if (c.dataset == ds && c.metric == m && !c.baseline && !c.humans) {
        rows.push_back(&c);
        break;
      }
  for (const auto& c : r.correlations)
    if (c.dataset == ds && c.baseline) rows.push_back(&c);
  return rows;
}

// --level rows: one table per (level, statistic), a row per metric, a column per dimension.
std::vector<Table> level_tables(const TestIndex& index, const std::string& ds,
                                const std::vector<const MetricCorrelations*>& rows,
                                const Symbols& sym) {
  const AuditReport& r = index.report();
  std::vector<std::pair<stats::Level, stats::LevelStatistic>> keys;
  std::vector<std::string> dims;
  for (const auto* mc : rows)
    for (const auto& l : mc->levels) {
      if (std::find(keys.begin(), keys.end(), std::make_pair(l.level, l.statistic)) == keys.end())
        keys.emplace_back(l.level, l.statistic);
      add_unique(dims, l.dimension);
    }
  std::vector<Table> tables;
  for (const auto& [level, statistic] : keys) {
    Table t;
    const std::string unit = level == stats::Level::kSystem ? "systems" : "tasks";
    t.title = fmt::format("Human correlation by level {} {}: {} level, {} [{} CI over {}]",
                          sym.dash(), ds, stats::level_name(level),
                          stats::level_statistic_name(statistic), fmt_percent(r.confidence), unit);
    add_dimension_columns(t, dims);
    for (const auto* mc : rows) {
      std::vector<Cell> line;
      line.push_back({mc->metric});
      for (const auto& d : dims) {
        auto it =
            std::find_if(mc->levels.begin(), mc->levels.end(), [&](const LevelCorrelation& l) {
              return l.level == level && l.statistic == statistic && l.dimension == d;
            });
        if (it == mc->levels.end()) {
          line.push_back(missing_cell(sym));
          continue;
        }
        Cell c;
        c.text = std::isfinite(it->ci_lo)
                     ? cat({fmt_num(it->result.value, 2), " [", fmt_num(it->ci_lo, 2), ",",
                            fmt_num(it->ci_hi, 2), "]"})
                     : fmt_num(it->result.value, 2);
        if (statistic != stats::LevelStatistic::kPairwiseAcc &&
            statistic != stats::LevelStatistic::kAccEq)
          c.heat = it->result.value;
        std::string groups;
        if (level == stats::Level::kTask)
          groups = fmt::format(", mean over {} tasks ({} skipped: undefined)", it->result.groups,
                               it->result.skipped);
        c.title = fmt::format(
            "{} on {}, {}: {} = {} over n = {}{}; {} CI {} from {} resamples of {}", mc->metric, ds,
            d, stats::level_statistic_name(statistic), fmt_num(it->result.value, 4), it->result.n,
            groups, fmt_percent(r.confidence), fmt_ci(it->ci_lo, it->ci_hi, 4), it->resamples,
            it->unit);
        if (statistic == stats::LevelStatistic::kAccEq)
          c.title += fmt::format("; tie threshold {}", fmt_num(it->result.epsilon, 6));
        line.push_back(std::move(c));
      }
      t.rows.push_back(std::move(line));
    }
    t.note = level == stats::Level::kItem
                 ? "Item level: pooled over all candidates (WMT's \"no grouping\")."
             : level == stats::Level::kTask
                 ? "Task level: the statistic within each task, averaged over the tasks where it "
                   "is defined (SummEval's summary level, WMT's \"group by item\")."
                 : "System level: per system the mean metric and human score over its "
                   "candidates, then the statistic across systems.";
    t.note += " The bootstrap resamples whole " + unit + " (docs/meta-eval.md).";
    tables.push_back(std::move(t));
  }
  return tables;
}

// Agreement with the human pairwise preferences (`pairs`).
Table preference_table(const TestIndex& index, const std::string& ds,
                       const std::vector<const MetricCorrelations*>& rows, const Symbols& sym) {
  const AuditReport& r = index.report();
  Table t;
  t.title = fmt::format("Human preference agreement {} {}: accuracy [{} CI over tasks]", sym.dash(),
                        ds, fmt_percent(r.confidence));
  t.header = {"metric", "accuracy", "pairs", "metric ties", "human ties", "ties shared"};
  t.align = {Align::kLeft,  Align::kRight, Align::kRight,
             Align::kRight, Align::kRight, Align::kRight};
  for (const auto* mc : rows) {
    if (!mc->preference) continue;
    const PreferenceAgreement& p = *mc->preference;
    Cell acc(std::isfinite(p.ci_lo) ? cat({fmt_num(p.result.accuracy, 3), " [", fmt_num(p.ci_lo, 3),
                                           ",", fmt_num(p.ci_hi, 3), "]"})
                                    : fmt_num(p.result.accuracy, 3));
    t.rows.push_back({Cell(mc->metric), std::move(acc), Cell(std::to_string(p.result.strict)),
                      Cell(std::to_string(p.result.metric_ties)),
                      Cell(std::to_string(p.result.human_ties)),
                      Cell(fmt_num(p.result.tie_agreement, 3))});
  }
  t.note =
      "Over the pairs with a strict human preference: 1 when the metric prefers the same "
      "candidate, 1/2 when it ties them, 0 otherwise; human ties are left out of the accuracy and "
      "\"ties shared\" is the share of them the metric ties too. The bootstrap resamples tasks.";
  return t;
}

}  // namespace

std::string humans_note(const MetricCorrelations& humans, const Symbols& sym) {
  std::size_t raters = 0;
  std::vector<std::string> alphas;
  for (const auto& a : humans.agreement) {
    raters = std::max(raters, a.raters);
    alphas.push_back(fmt::format("{} {} / {}", a.dimension, fmt_num(a.alpha_interval, 2),
                                 fmt_num(a.alpha_ordinal, 2)));
  }
  return fmt::format(
      "humans (the ceiling): each rater's rating against the mean of the item's other raters, "
      "the coefficient averaged over the {} rater positions; a metric is compared with the mean "
      "of all raters, so reaching this row is doing as well as one more rater. Krippendorff's {} "
      "(interval / ordinal): {}.",
      raters, sym.alpha(), join(alphas, ", "));
}

std::vector<Table> correlation_tables(const TestIndex& index, const Symbols& sym) {
  const AuditReport& r = index.report();
  std::vector<Table> tables;
  if (index.datasets().size() > 1) {
    // The paper's summary layout (Tables 1 and 6): one row per metric, one column per dataset,
    // Spearman averaged over the dataset's human dimensions (or its only dimension).
    Table t;
    t.title = fmt::format("Human correlation {} summary: Spearman {} [{} CI], mean over dimensions",
                          sym.dash(), sym.rho(), fmt_percent(r.confidence));
    t.header.push_back("metric");
    t.align.push_back(Align::kLeft);
    for (const auto& ds : index.datasets()) {
      t.header.push_back(ds);
      t.align.push_back(Align::kRight);
    }
    std::vector<std::string> names;
    for (const auto& c : r.correlations)
      if (c.humans) add_unique(names, c.metric);
    for (const auto& m : index.metrics()) add_unique(names, m);
    for (const auto& c : r.correlations)
      if (c.baseline) add_unique(names, c.metric);
    for (const auto& m : names) {
      std::vector<Cell> line;
      line.push_back({m});
      for (const auto& ds : index.datasets()) {
        const CorrelationResult* summary = nullptr;
        for (const auto& c : r.correlations) {
          if (c.dataset != ds || c.metric != m) continue;
          for (const auto& row : c.rows)
            if (row.dimension == "mean" || (c.rows.size() == 1 && !summary)) summary = &row;
        }
        if (!summary) {
          line.push_back(missing_cell(sym));
          continue;
        }
        Cell c;
        c.text = cat({fmt_num(summary->spearman, 2), " [", fmt_num(summary->spearman_lo, 2), ",",
                      fmt_num(summary->spearman_hi, 2), "]"});
        c.heat = summary->spearman;
        line.push_back(std::move(c));
      }
      t.rows.push_back(std::move(line));
    }
    t.note = "Per-dimension values are in the tables below.";
    tables.push_back(std::move(t));
  }
  for (const auto& ds : index.datasets()) {
    const std::vector<const MetricCorrelations*> rows = dataset_correlations(index, ds);
    if (rows.empty()) continue;
    // Dimensions in the dataset's order, then any others, with "mean" last.
    std::vector<std::string> dims;
    if (const DatasetSummary* summary = find_dataset(r, ds))
      for (const auto& d : summary->dimensions) add_unique(dims, d);
    bool has_mean = false;
    for (const auto* mc : rows)
      for (const auto& row : mc->rows) {
        if (row.dimension == "mean")
          has_mean = true;
        else
          add_unique(dims, row.dimension);
      }
    if (has_mean) dims.push_back("mean");
    // Keep only the dimensions some metric has a value for.
    std::erase_if(dims, [&](const std::string& d) {
      return std::none_of(rows.begin(), rows.end(), [&](const MetricCorrelations* mc) {
        return std::any_of(mc->rows.begin(), mc->rows.end(),
                           [&](const CorrelationResult& c) { return c.dimension == d; });
      });
    });

    Table t;
    t.title = fmt::format("Human correlation {} {}: Spearman {} [{} CI]", sym.dash(), ds, sym.rho(),
                          fmt_percent(r.confidence));
    add_dimension_columns(t, dims);
    for (const auto* mc : rows) {
      std::vector<Cell> line;
      line.push_back({mc->metric});
      for (const auto& d : dims) {
        auto it = std::find_if(mc->rows.begin(), mc->rows.end(),
                               [&](const CorrelationResult& c) { return c.dimension == d; });
        if (it == mc->rows.end()) {
          line.push_back(missing_cell(sym));
          continue;
        }
        Cell c;
        c.text = cat({fmt_num(it->spearman, 2), " [", fmt_num(it->spearman_lo, 2), ",",
                      fmt_num(it->spearman_hi, 2), "]"});
        c.heat = it->spearman;
        c.title = fmt::format(
            "{} on {}, {}: n = {}\nSpearman {} = {}, {} CI {}, p = {}\nKendall tau = {}, "
            "Pearson r = {}",
            mc->metric, ds, d, it->n, sym.rho(), fmt_num(it->spearman, 4),
            fmt_percent(r.confidence), fmt_ci(it->spearman_lo, it->spearman_hi, 4),
            fmt_p(it->spearman_p), fmt_num(it->kendall, 4), fmt_num(it->pearson, 4));
        line.push_back(std::move(c));
      }
      t.rows.push_back(std::move(line));
    }
    t.note = fmt::format(
        "Spearman {} between metric scores and the mean human rating per dimension, with a {} "
        "bootstrap CI; \"mean\" averages the per-dimension values.",
        sym.rho(), fmt_percent(r.confidence));
    if (std::any_of(rows.begin(), rows.end(), [](const auto* mc) { return mc->baseline; }))
      t.note +=
          " baseline:length (characters of the candidate) and baseline:random (a seeded hash) "
          "need no reference: a metric not above them tracks length or nothing.";
    for (const auto* mc : rows)
      if (mc->humans) t.note += " " + humans_note(*mc, sym);
    if (!dims.empty()) tables.push_back(std::move(t));  // no ratings: preferences only
    for (auto& lt : level_tables(index, ds, rows, sym)) tables.push_back(std::move(lt));
    if (std::any_of(rows.begin(), rows.end(), [](const auto* mc) { return mc->preference; }))
      tables.push_back(preference_table(index, ds, rows, sym));
  }
  return tables;
}

std::vector<Table> ranking_tables(const TestIndex& index, const Symbols& sym) {
  const AuditReport& r = index.report();
  std::vector<Table> tables;
  // One table per (dataset, level, statistic): a row per dimension, its clusters in order.
  std::vector<std::tuple<std::string, stats::Level, stats::LevelStatistic>> keys;
  for (const auto& m : r.rankings) {
    auto key = std::make_tuple(m.dataset, m.level, m.statistic);
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
  for (const auto& [ds, level, statistic] : keys) {
    Table t;
    t.title = fmt::format("Significance clusters {} {}: {} level, {}", sym.dash(), ds,
                          stats::level_name(level), stats::level_statistic_name(statistic));
    t.header = {"dimension", "clusters (best first)"};
    t.align = {Align::kLeft, Align::kLeft};
    const MetricRanking* any = nullptr;
    for (const auto& m : r.rankings) {
      if (m.dataset != ds || m.level != level || m.statistic != statistic) continue;
      any = &m;
      std::vector<std::string> clusters;
      for (const auto& e : m.ranking) {
        const std::string entry = fmt::format("{} {}", e.metric, fmt_num(e.value, 3));
        if (clusters.size() < e.rank)
          clusters.push_back(fmt::format("{}: {}", e.rank, entry));
        else
          clusters.back() += ", " + entry;
      }
      Cell c(join(clusters, " | "));
      std::string tests;
      for (const auto& test : m.tests)
        tests += fmt::format("{}{} > {}: p = {}, adjusted {}", tests.empty() ? "" : "\n",
                             test.better, test.worse, fmt_p(test.p), fmt_p(test.p_adjusted));
      c.title = tests;
      t.rows.push_back({Cell(m.dimension), std::move(c)});
    }
    if (any)
      t.note = fmt::format(
          "A metric starts a new cluster when a metric of the cluster above beats it: one-sided "
          "paired permutation test at the {} level ({} permutations, scores z-scored and swapped "
          "per {}), p-values adjusted over all pairs ({}), {} = {:g} (mt-metrics-eval's "
          "AssignRanks; docs/meta-eval.md).",
          stats::level_name(level), any->permutations,
          level == stats::Level::kSystem ? "system" : "candidate",
          any->correction == stats::RankCorrection::kHolm                ? "Holm"
          : any->correction == stats::RankCorrection::kBenjaminiHochberg ? "Benjamini-Hochberg"
                                                                         : "none",
          sym.alpha(), any->alpha);
    tables.push_back(std::move(t));
  }
  return tables;
}

}  // namespace probity::report::detail
