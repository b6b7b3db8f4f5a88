#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "metrics/builtin.hpp"
#include "probity/error.hpp"
#include "probity/metric.hpp"

namespace probity {

std::vector<double> Metric::score(const MetricInput& input) const {
  std::vector<double> stats(num_stats());
  item_stats(input, stats);
  std::vector<double> out(parts().size());
  sentence_score(stats, out);
  return out;
}

CorpusAccumulator::CorpusAccumulator(const Metric& metric)
    : metric_(&metric),
      sum_(metric.num_stats(), 0.0),
      parts_(metric.parts().size(), 0.0),
      item_(metric.parts().size(), 0.0) {}

void CorpusAccumulator::add(std::span<const double> item_stats) {
  ++n_;
  if (metric_->corpus_aggregation() == CorpusAggregation::kSumStats) {
    for (std::size_t j = 0; j < sum_.size(); ++j) sum_[j] += item_stats[j];
    return;
  }
  std::fill(item_.begin(), item_.end(), 0.0);
  metric_->sentence_score(item_stats, item_);
  for (std::size_t j = 0; j < parts_.size(); ++j) parts_[j] += item_[j];
}

std::vector<double> CorpusAccumulator::score() const {
  std::vector<double> parts(parts_.size(), 0.0);
  if (metric_->corpus_aggregation() == CorpusAggregation::kSumStats) {
    metric_->corpus_score(sum_, parts);
    return parts;
  }
  for (std::size_t j = 0; j < parts.size(); ++j)
    parts[j] = n_ == 0 ? std::nan("") : parts_[j] / static_cast<double>(n_);
  return parts;
}

std::string CorpusAccumulator::breakdown() const {
  if (n_ == 0 || metric_->corpus_aggregation() != CorpusAggregation::kSumStats) return {};
  return metric_->corpus_breakdown(sum_);
}

std::vector<double> corpus_score(const Metric& metric, std::span<const double> all_stats,
                                 std::span<const std::size_t> indices) {
  const std::size_t k = metric.num_stats();
  const std::size_t n_items = k == 0 ? 0 : all_stats.size() / k;
  const std::size_t n = indices.empty() ? n_items : indices.size();
  CorpusAccumulator acc(metric);
  for (std::size_t i = 0; i < n; ++i)
    acc.add(all_stats.subspan((indices.empty() ? i : indices[i]) * k, k));
  return acc.score();
}

MetricSpec MetricSpec::parse(std::string_view text) {
  MetricSpec spec;
  spec.text_ = std::string(text);
  std::string_view head = text.substr(0, text.find(','));
  std::string_view rest = head.size() < text.size() ? text.substr(head.size() + 1) : "";
  if (auto colon = head.find(':'); colon != std::string_view::npos) {
    spec.base_ = std::string(head.substr(0, colon));
    spec.arg_ = std::string(head.substr(colon + 1));
  } else {
    spec.base_ = std::string(head);
  }
  // "rougeL.f": the part selected for output; the metric itself is "rougeL".
  if (auto dot = spec.base_.find('.'); dot != std::string::npos) {
    spec.part_ = spec.base_.substr(dot + 1);
    spec.base_.resize(dot);
    spec.text_.erase(dot, spec.part_.size() + 1);
  }
  if (spec.base_.empty()) throw UsageError(fmt::format("empty metric name in '{}'", text));
  while (!rest.empty()) {
    std::string_view item = rest.substr(0, rest.find(','));
    rest = item.size() < rest.size() ? rest.substr(item.size() + 1) : "";
    auto eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0)
      throw UsageError(fmt::format("metric '{}': option '{}' is not key=value", text, item));
    std::string key(item.substr(0, eq));
    for (const auto& [k, v] : spec.options_)
      if (k == key)
        throw UsageError(fmt::format("metric '{}': option '{}' is given twice", text, key));
    spec.options_.emplace_back(std::move(key), std::string(item.substr(eq + 1)));
  }
  spec.used_.assign(spec.options_.size(), false);
  return spec;
}

const std::string* MetricSpec::given(const std::string& key) const {
  for (const auto& [k, v] : options_)
    if (k == key) return &v;
  return nullptr;
}

std::vector<std::string> MetricSpec::named_files() const {
  std::vector<std::string> files;
  std::error_code ec;
  if (!arg_.empty() && std::filesystem::is_regular_file(arg_, ec)) files.push_back(arg_);
  for (const auto& [key, value] : options_)
    if (!value.empty() && std::filesystem::is_regular_file(value, ec)) files.push_back(value);
  return files;
}

MetricSpec MetricSpec::with_option(const std::string& key, const std::string& value) const {
  MetricSpec m = without_option(key);
  m.options_.emplace_back(key, value);
  m.used_.push_back(false);
  return m;
}

MetricSpec MetricSpec::without_option(const std::string& key) const {
  MetricSpec m = *this;
  for (std::size_t i = 0; i < m.options_.size(); ++i) {
    if (m.options_[i].first != key) continue;
    m.options_.erase(m.options_.begin() + static_cast<std::ptrdiff_t>(i));
    m.used_.erase(m.used_.begin() + static_cast<std::ptrdiff_t>(i));
    break;
  }
  return m;
}

// ---- option tables -----------------------------------------------------------------------------

namespace {

OptionSpec make_option(std::string name, OptionSpec::Type type, std::string fallback,
                       std::string help) {
  OptionSpec o;
  o.name = std::move(name);
  o.type = type;
  o.fallback = std::move(fallback);
  o.help = std::move(help);
  return o;
}

std::string number_text(double v) {
  if (v == std::numeric_limits<double>::max()) return "";
  if (v == -std::numeric_limits<double>::max()) return "";
  return fmt::format("{}", v);
}

}  // namespace

OptionSpec option_bool(std::string name, bool fallback, std::string help) {
  return make_option(std::move(name), OptionSpec::Type::kBool, fallback ? "true" : "false",
                     std::move(help));
}

OptionSpec option_int(std::string name, int fallback, int min, int max, std::string help) {
  OptionSpec o = make_option(std::move(name), OptionSpec::Type::kInt, std::to_string(fallback),
                             std::move(help));
  o.min = min;
  o.max = max;
  return o;
}

OptionSpec option_number(std::string name, std::string fallback, double min, double max,
                         std::string help) {
  OptionSpec o =
      make_option(std::move(name), OptionSpec::Type::kNumber, std::move(fallback), std::move(help));
  o.min = min;
  o.max = max;
  return o;
}

OptionSpec option_choice(std::string name, std::string fallback, std::vector<std::string> choices,
                         std::string help) {
  OptionSpec o =
      make_option(std::move(name), OptionSpec::Type::kChoice, std::move(fallback), std::move(help));
  o.choices = std::move(choices);
  return o;
}

OptionSpec option_text(std::string name, std::string fallback, std::string help) {
  return make_option(std::move(name), OptionSpec::Type::kText, std::move(fallback),
                     std::move(help));
}

std::string_view type_name(OptionSpec::Type type) {
  switch (type) {
    case OptionSpec::Type::kBool:
      return "bool";
    case OptionSpec::Type::kInt:
      return "int";
    case OptionSpec::Type::kNumber:
      return "number";
    case OptionSpec::Type::kChoice:
      return "choice";
    case OptionSpec::Type::kText:
      return "text";
  }
  return "text";
}

std::string describe(const OptionSpec& o) {
  std::string out =
      o.name + "=" + (o.fallback.empty() ? "<" + std::string(type_name(o.type)) + ">" : o.fallback);
  std::string range;
  if (o.type == OptionSpec::Type::kChoice) {
    range = fmt::format("{}", fmt::join(o.choices, "|"));
  } else if (o.type == OptionSpec::Type::kInt || o.type == OptionSpec::Type::kNumber) {
    const std::string lo = number_text(o.min), hi = number_text(o.max);
    if (!lo.empty() || !hi.empty()) range = lo + ".." + hi;
  }
  if (!range.empty()) out += " (" + range + ")";
  if (!o.help.empty()) out += ": " + o.help;
  return out;
}

void MetricSpec::bind(const std::vector<OptionSpec>& table) {
  table_ = &table;
  for (const auto& [key, value] : options_) {
    const auto it = std::find_if(table.begin(), table.end(),
                                 [&](const OptionSpec& o) { return o.name == key; });
    if (it == table.end())
      throw UsageError(
          fmt::format("metric '{}': unknown option '{}' (see `probity metrics`)", text_, key));
    const OptionSpec& o = *it;
    switch (o.type) {
      case OptionSpec::Type::kBool:
        if (value != "true" && value != "1" && value != "yes" && value != "on" &&
            value != "false" && value != "0" && value != "no" && value != "off")
          throw UsageError(
              fmt::format("metric '{}': option {}={} is not a boolean", text_, key, value));
        break;
      case OptionSpec::Type::kInt: {
        long long v = 0;
        auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
        if (ec != std::errc() || p != value.data() + value.size())
          throw UsageError(
              fmt::format("metric '{}': option {}={} is not an integer{}", text_, key, value,
                          ec == std::errc::result_out_of_range ? " (out of range)" : ""));
        if (static_cast<double>(v) < o.min || static_cast<double>(v) > o.max)
          throw UsageError(fmt::format("metric '{}': option {}={} must be in {}..{}", text_, key,
                                       value, number_text(o.min), number_text(o.max)));
        break;
      }
      case OptionSpec::Type::kNumber: {
        double v = 0;
        auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
        if (ec != std::errc() || p != value.data() + value.size() || !std::isfinite(v))
          throw UsageError(
              fmt::format("metric '{}': option {}={} is not a finite number", text_, key, value));
        if (v < o.min || v > o.max)
          throw UsageError(fmt::format("metric '{}': option {}={} must be in {}..{}", text_, key,
                                       value, number_text(o.min), number_text(o.max)));
        break;
      }
      case OptionSpec::Type::kChoice:
        if (std::find(o.choices.begin(), o.choices.end(), value) == o.choices.end())
          throw UsageError(fmt::format("metric '{}': option {}={} is not one of {}", text_, key,
                                       value, fmt::join(o.choices, ", ")));
        break;
      case OptionSpec::Type::kText:
        break;
    }
  }
}

const OptionSpec& MetricSpec::declared(const std::string& key) const {
  if (table_ != nullptr)
    for (const auto& o : *table_)
      if (o.name == key) return o;
  throw std::logic_error(fmt::format("metric '{}': option '{}' is not declared", base_, key));
}

std::string MetricSpec::get(const std::string& key) const {
  return get(key, declared(key).fallback);
}

bool MetricSpec::get_bool(const std::string& key) const {
  return get_bool(key, declared(key).fallback == "true");
}

int MetricSpec::get_int(const std::string& key) const {
  const OptionSpec& o = declared(key);
  return get_int(key, std::stoi(o.fallback), static_cast<int>(std::max<double>(o.min, INT_MIN)),
                 static_cast<int>(std::min<double>(o.max, INT_MAX)));
}

double MetricSpec::get_double(const std::string& key) const {
  const OptionSpec& o = declared(key);
  return get_double(key, std::stod(o.fallback), o.min, o.max);
}

std::string MetricSpec::get(const std::string& key, const std::string& fallback) const {
  for (std::size_t i = 0; i < options_.size(); ++i) {
    if (options_[i].first == key) {
      used_[i] = true;
      return options_[i].second;
    }
  }
  return fallback;
}

bool MetricSpec::get_bool(const std::string& key, bool fallback) const {
  std::string v = get(key, fallback ? "true" : "false");
  if (v == "true" || v == "1" || v == "yes" || v == "on") return true;
  if (v == "false" || v == "0" || v == "no" || v == "off") return false;
  throw UsageError(fmt::format("metric '{}': option {}={} is not a boolean", text_, key, v));
}

int MetricSpec::get_int(const std::string& key, int fallback, int min, int max) const {
  std::string v = get(key, std::to_string(fallback));
  int out = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || p != v.data() + v.size())
    throw UsageError(fmt::format("metric '{}': option {}={} is not an integer{}", text_, key, v,
                                 ec == std::errc::result_out_of_range ? " (out of range)" : ""));
  if (out < min || out > max)
    throw UsageError(
        fmt::format("metric '{}': option {}={} must be in {}..{}", text_, key, v, min, max));
  return out;
}

double MetricSpec::get_double(const std::string& key, double fallback, double min,
                              double max) const {
  std::string v = get(key, fmt::format("{}", fallback));
  double out = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || p != v.data() + v.size() || !std::isfinite(out))
    throw UsageError(
        fmt::format("metric '{}': option {}={} is not a finite number", text_, key, v));
  if (out < min || out > max)
    throw UsageError(
        fmt::format("metric '{}': option {}={} must be in {}..{}", text_, key, v, min, max));
  return out;
}

void MetricSpec::check_all_used() const {
  if (!arg_.empty() && !arg_used_)
    throw UsageError(
        fmt::format("metric '{}': '{}' takes no argument (':{}')", text_, base_, arg_));
  for (std::size_t i = 0; i < options_.size(); ++i) {
    if (!used_[i])
      throw UsageError(fmt::format("metric '{}': unknown option '{}' (see `probity metrics`)",
                                   text_, options_[i].first));
  }
}

namespace metrics {
void register_ter(MetricRegistry& registry);  // ter (ter.cpp)
}  // namespace metrics

MetricRegistry MetricRegistry::builtin() {
  MetricRegistry r;
  metrics::register_bleu(r);
  metrics::register_chrf(r);
  metrics::register_ter(r);
  metrics::register_rouge(r);
  metrics::register_mi(r);
  metrics::register_expert(r);
  metrics::register_llm_judge(r);
  metrics::register_scores_file(r);
  metrics::register_baselines(r);
  metrics::register_bertscore(r);
  return r;
}

const std::vector<OptionSpec>& common_options() {
  static const std::vector<OptionSpec> table = [] {  // immutable
    std::vector<OptionSpec> all = {
        option_text("name", "",
                    "display name in score records, tables and reports (name=mine); the "
                    "signature does not change")};
    const auto& refs = metrics::reference_options_table();
    all.insert(all.end(), refs.begin(), refs.end());
    const auto& style = metrics::style_options_table();
    all.insert(all.end(), style.begin(), style.end());
    return all;
  }();
  return table;
}

void MetricRegistry::add(MetricInfo info) {
  infos_.push_back(std::move(info));
}

std::unique_ptr<Metric> MetricRegistry::create(std::string_view text, Engine& engine) const {
  return create(MetricSpec::parse(text), engine);
}

std::unique_ptr<Metric> MetricRegistry::create(const MetricSpec& parsed, Engine& engine) const {
  if (!parsed.part().empty())
    throw UsageError(fmt::format("metric '{}.{}': a part selects what is written, not a metric",
                                 parsed.base(), parsed.part()));
  MetricSpec spec = parsed;  // bound to the table below, which lives only here
  auto it = std::find_if(infos_.begin(), infos_.end(),
                         [&](const MetricInfo& i) { return i.name == spec.base(); });
  if (it == infos_.end())
    throw UsageError(
        fmt::format("unknown metric '{}' (run `probity metrics` for the list)", spec.base()));
  // refs=<ids> picks references by id for any family (reference_selection.cpp); the family then
  // uses every chosen one (its own refs=all, where it has the option).
  std::vector<std::string> reference_ids;
  if (const std::string* refs = spec.given("refs"); refs && *refs != "all" && *refs != "first") {
    reference_ids = metrics::parse_reference_ids(*refs);
    const bool own = std::any_of(it->options.begin(), it->options.end(),
                                 [](const OptionSpec& o) { return o.name == "refs"; });
    spec = own ? spec.with_option("refs", "all") : spec.without_option("refs");
  }
  // The family's options and the common options every metric takes.
  std::vector<OptionSpec> table = it->options;
  for (const auto& o : common_options())
    if (std::none_of(table.begin(), table.end(),
                     [&](const OptionSpec& own) { return own.name == o.name; }))
      table.push_back(o);
  spec.bind(table);
  (void)spec.get("name");  // read by select_metric (MetricSelection::display)
  std::unique_ptr<Metric> metric;
  try {
    metric = metrics::wrap_reference_selection(
        metrics::wrap_style_normalized(it->factory(spec, engine), spec, engine), spec.text(),
        reference_ids);
  } catch (const std::invalid_argument& e) {
    // Components (predictors, measures) reject bad settings this way; from a spec it is a usage
    // error naming the spec (exit 2).
    throw UsageError(fmt::format("metric '{}': {}", spec.text(), e.what()));
  }
  spec.check_all_used();
  return metric;
}

}  // namespace probity
