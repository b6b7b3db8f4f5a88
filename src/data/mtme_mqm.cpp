// MQM ratings of mt-metrics-eval (ratings.py's rating files) and their re-weighting into
// segment scores with the rules of converters/score_mqm.py (commit
// 68a481aea1a787392d55af8f76ac8ef40c5f4664).
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "data/mtme_eval_set.hpp"
#include "probity/dataset.hpp"
#include "probity/error.hpp"

namespace probity {
namespace {

std::string ascii_lower(std::string s) {
  // Python's lower() also folds non-ASCII letters; MQM severities and categories are ASCII.
  for (auto& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t b = 0;
  for (std::size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(b, i - b));
      b = i + 1;
    }
  return out;
}

std::optional<std::string> optional_string(const nlohmann::json& e, const char* key,
                                           const std::string& path, std::size_t line) {
  if (!e.contains(key) || e[key].is_null()) return std::nullopt;
  if (!e[key].is_string())
    throw InputError(path, line, std::string("errors.") + key, "not a string");
  return e[key].get<std::string>();
}

MtmeError parse_error(const nlohmann::json& e, const std::string& path, std::size_t line) {
  if (!e.is_object()) throw InputError(path, line, "errors", "an error is not an object");
  MtmeError out;
  for (const char* key : {"start", "end"}) {
    if (!e.contains(key) || !e[key].is_number_integer())
      throw InputError(path, line, std::string("errors.") + key, "missing or not an integer");
  }
  out.start = e["start"].get<long long>();
  out.end = e["end"].get<long long>();
  out.category = optional_string(e, "category", path, line);
  out.severity = optional_string(e, "severity", path, line);
  if (e.contains("score") && !e["score"].is_null()) {
    if (!e["score"].is_number()) throw InputError(path, line, "errors.score", "not a number");
    out.score = e["score"].get<double>();
  }
  if (e.contains("is_source_error")) {
    if (!e["is_source_error"].is_boolean())
      throw InputError(path, line, "errors.is_source_error", "not a boolean");
    out.is_source_error = e["is_source_error"].get<bool>();
  }
  return out;
}

}  // namespace

MtmeRatings read_mtme_rating_file(const std::string& path, const std::string& default_rater) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open file");
  MtmeRatings out;
  std::string line;
  std::size_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    // ReadRatingFile: line.strip().split('\t'), 2 or 3 columns.
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
      line.pop_back();
    std::size_t lead = 0;
    while (lead < line.size() && (line[lead] == ' ' || line[lead] == '\t')) ++lead;
    const auto cols = split(line.substr(lead), '\t');
    if (cols.size() != 2 && cols.size() != 3)
      throw InputError(
          path, n, "",
          fmt::format("{} column(s), expected 2 or 3: SYSTEM RATING [RATER]", cols.size()));
    auto& segs = out[cols[0]];
    if (cols[1] == "None") {
      segs.emplace_back(std::nullopt);
      continue;
    }
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(cols[1]);
    } catch (const nlohmann::json::exception&) {
      throw InputError(path, n, "rating", "not JSON (a ratings.Rating object or None)");
    }
    if (!j.is_object() || !j.contains("errors") || !j["errors"].is_array())
      throw InputError(path, n, "errors", "missing or not a list");
    MtmeRating r;
    for (const auto& e : j["errors"]) r.errors.push_back(parse_error(e, path, n));
    r.rater = cols.size() == 3 ? cols[2] : default_rater;
    segs.emplace_back(std::move(r));
  }
  return out;
}

const std::string& default_mqm_weights() {
  static const std::string w =
      "Major:5 Minor:1 Neutral:0 Major/Non-translation!:25 Minor/Fluency/Punctuation:0.1";
  return w;
}

std::map<std::string, double> parse_mqm_weights(const std::string& spec, char sep) {
  std::map<std::string, double> out;
  for (const auto& item : split(spec, sep)) {
    const auto kv = split(item, ':');
    double w = 0;
    const std::string& v = kv.size() == 2 ? kv[1] : item;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), w);
    if (kv.size() != 2 || ec != std::errc() || end != v.data() + v.size())
      throw UsageError(fmt::format(
          "MQM weight '{}' is not severity[/category[/subcategory]]:weight (items of '{}' are "
          "separated by '{}')",
          item, spec, sep));
    out[ascii_lower(kv[0])] = w;  // a repeated key keeps its last weight, as score_mqm's dict
  }
  return out;
}

MtmeScores mqm_scores(const MtmeRatings& ratings, const std::map<std::string, double>& weights) {
  MtmeScores out;
  for (const auto& [sys, segs] : ratings) {
    auto& scores = out[sys];
    for (const auto& r : segs) {
      if (!r) {
        scores.push_back(std::numeric_limits<double>::quiet_NaN());
        continue;
      }
      double total = 0;
      for (const auto& e : r->errors) {
        // score_mqm's Score: the longest prefix of [severity, category parts] that is a key.
        // A null severity matches nothing; a null category leaves [severity].
        if (!e.severity) continue;
        std::vector<std::string> items{ascii_lower(*e.severity)};
        if (e.category)
          for (auto& part : split(*e.category, '/')) items.push_back(ascii_lower(part));
        for (std::size_t len = items.size(); len > 0; --len) {
          std::string key = items[0];
          for (std::size_t i = 1; i < len; ++i) key += "/" + items[i];
          const auto it = weights.find(key);
          if (it != weights.end()) {
            total += it->second;
            break;
          }
        }
      }
      scores.push_back(-total);
    }
  }
  return out;
}

}  // namespace probity
