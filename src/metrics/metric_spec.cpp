// A parsed metric name (MetricSpec): parsing, the options checked against the family's table,
// and reading them.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "probity/error.hpp"
#include "probity/metric.hpp"

namespace probity {

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

void MetricSpec::bind(const std::vector<OptionSpec>& table) {
  table_ = &table;
  for (const auto& [key, value] : options_) {
    const auto it = std::find_if(table.begin(), table.end(),
                                 [&](const OptionSpec& o) { return o.name == key; });
    if (it == table.end())
      throw UsageError(
          fmt::format("metric '{}': unknown option '{}' (see `probity metrics`)", text_, key));
    check_option_value(*it, text_, value);
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

}  // namespace probity
