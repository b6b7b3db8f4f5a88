#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

#include "data/validate.hpp"
#include "probity/error.hpp"
#include "probity/scores.hpp"
#include "probity/text.hpp"
#include "probity/version.hpp"

namespace probity {

using json = nlohmann::json;

namespace {

constexpr const char* kTrailerKey = "probity_scores";

ScoresTrailer parse_trailer(const json& j, const std::string& path, std::size_t line) {
  ScoresTrailer t;
  // get<std::size_t>() casts a float or negative number unchecked (undefined for 1e30).
  auto count = [&](const json& v, const char* field) -> std::size_t {
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
      throw InputError(path, line, kTrailerKey,
                       fmt::format("malformed end record: '{}' must be a whole number >= 0, got {}",
                                   field, data::quote_json(v)));
    return v.get<std::size_t>();
  };
  try {
    const json& body = j.at(kTrailerKey);
    for (const auto& d : body.at("data"))
      t.data.push_back({d.at("path").get<std::string>(), d.at("digest").get<std::string>(),
                        count(d.at("items"), "items")});
    for (const auto& m : body.at("metrics"))
      t.metrics.emplace_back(m.at("name").get<std::string>(), m.at("signature").get<std::string>());
    t.shard_index = count(body.at("shard").at(0), "shard");
    t.shard_count = count(body.at("shard").at(1), "shard");
    t.records = count(body.at("records"), "records");
  } catch (const json::exception& e) {
    throw InputError(path, line, kTrailerKey,
                     "malformed end record: " + data::short_json_message(e.what()));
  }
  return t;
}

}  // namespace

std::optional<ScoresTrailer> scores_trailer_of(const json& line, const std::string& path,
                                               std::size_t line_no) {
  if (!line.is_object() || !line.contains(kTrailerKey)) return std::nullopt;
  return parse_trailer(line, path, line_no);
}

void write_scores_trailer(std::ostream& out, const ScoresTrailer& t) {
  nlohmann::ordered_json body;
  body["version"] = version();
  body["records"] = t.records;
  body["shard"] = {t.shard_index, t.shard_count};
  body["data"] = nlohmann::ordered_json::array();
  for (const auto& d : t.data)
    body["data"].push_back({{"path", d.path}, {"digest", d.digest}, {"items", d.items}});
  body["metrics"] = nlohmann::ordered_json::array();
  for (const auto& [name, sig] : t.metrics)
    body["metrics"].push_back({{"name", name}, {"signature", sig}});
  out << nlohmann::ordered_json{{kTrailerKey, body}}.dump() << '\n';
}

std::vector<ScoreColumn> read_scores(const std::string& path, const Dataset& ds,
                                     std::span<const ItemRef> items,
                                     const std::vector<std::string>& metrics,
                                     ScoresReadOptions options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open file");
  return read_scores(in, path, ds, items, metrics, options);
}

std::vector<ScoreColumn> read_scores(std::istream& in, const std::string& path, const Dataset& ds,
                                     std::span<const ItemRef> items,
                                     const std::vector<std::string>& metrics,
                                     ScoresReadOptions options) {
  std::unordered_map<std::string, std::size_t> item_index;  // "task\x1f" "cand" -> item
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Task& t = ds.tasks[items[i].task];
    item_index.emplace(t.task_id + '\x1f' + t.candidates[items[i].candidate].id, i);
  }
  std::unordered_map<std::string, std::size_t> task_ids;
  for (std::size_t t = 0; t < ds.tasks.size(); ++t) task_ids.emplace(ds.tasks[t].task_id, t);

  std::vector<ScoreColumn> columns;
  std::unordered_map<std::string, std::size_t> column_index;
  std::vector<std::vector<bool>> seen;
  for (const auto& m : metrics) {
    if (!column_index.emplace(m, columns.size()).second) continue;  // named twice
    columns.push_back({m, "", std::vector<double>(items.size(), std::nan("")), 0, 0});
    seen.emplace_back(items.size(), false);
  }
  std::string line;
  std::size_t line_no = 0, records = 0, trailer_line = 0;
  std::optional<ScoresTrailer> trailer;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (data::is_blank(line)) continue;
    if (!text::is_valid_utf8(line)) throw InputError(path, line_no, "", "invalid UTF-8");
    std::string field, message;
    auto parsed = data::parse_json_line(line, field, message);
    if (!parsed) throw InputError(path, line_no, field, message);
    json j = std::move(*parsed);
    if (!j.is_object()) throw InputError(path, line_no, "", "expected a JSON object per line");
    if (trailer)
      throw InputError(path, line_no, "",
                       fmt::format("a line after the end record of line {}: files were "
                                   "concatenated (merge shards with `probity merge`)",
                                   trailer_line));
    if (j.contains(kTrailerKey)) {
      trailer = parse_trailer(j, path, line_no);
      trailer_line = line_no;
      continue;
    }
    ++records;
    auto str = [&](const char* key) {
      auto it = j.find(key);
      if (it == j.end()) throw InputError(path, line_no, key, "missing required field");
      if (!it->is_string()) throw InputError(path, line_no, key, "expected a string");
      return it->get<std::string>();
    };
    std::string task_id = str("task_id"), cand_id = str("candidate_id"), metric = str("metric");
    auto col = column_index.find(metric);
    if (col == column_index.end()) {
      if (!metrics.empty()) continue;
      col = column_index.emplace(metric, columns.size()).first;
      columns.push_back({metric, "", std::vector<double>(items.size(), std::nan("")), 0, 0});
      seen.emplace_back(items.size(), false);
    }
    auto item = item_index.find(task_id + '\x1f' + cand_id);
    if (item == item_index.end()) {
      if (!task_ids.count(task_id))
        throw InputError(path, line_no, "task_id",
                         fmt::format("task '{}' is not in the dataset", task_id));
      throw InputError(path, line_no, "candidate_id",
                       fmt::format("candidate '{}' is not in task '{}'", cand_id, task_id));
    }
    ScoreColumn& c = columns[col->second];
    if (seen[col->second][item->second])
      throw InputError(path, line_no, "metric",
                       fmt::format("duplicate score of '{}' for {}/{}", metric, task_id, cand_id));
    seen[col->second][item->second] = true;
    auto s = j.find("score");
    if (s == j.end()) throw InputError(path, line_no, "score", "missing required field");
    if (s->is_null()) {
      ++c.null_scores;
    } else if (s->is_number()) {
      c.values[item->second] = s->get<double>();
    } else {
      throw InputError(path, line_no, "score", "expected a number or null");
    }
    if (auto sig = j.find("signature"); sig != j.end() && sig->is_string() && c.signature.empty())
      c.signature = sig->get<std::string>();
  }
  for (std::size_t m = 0; m < columns.size(); ++m)
    for (bool b : seen[m]) columns[m].missing += b ? 0 : 1;
  // An empty file (or one of blank lines) is a broken input, not a request for no metric.
  if (records == 0 && !trailer)
    throw InputError(path, 0, "", "no score records: the file is empty");

  if (trailer) {
    if (trailer->records != records)
      throw InputError(path, trailer_line, kTrailerKey,
                       fmt::format("the file holds {} records but its end record says {}: it was "
                                   "edited or cut",
                                   records, trailer->records));
    if (trailer->shard_count > 1 && !options.allow_missing)
      throw InputError(path, trailer_line, kTrailerKey,
                       fmt::format("the scores of shard {}/{} only: combine the shards with "
                                   "`probity merge`, or pass --allow-missing",
                                   trailer->shard_index, trailer->shard_count));
    const std::string digest = items_digest(ds);
    const bool same = std::any_of(trailer->data.begin(), trailer->data.end(),
                                  [&](const auto& d) { return d.digest == digest; });
    if (!same)
      throw InputError(
          path, trailer_line, "data",
          fmt::format("these are the scores of {}, not of '{}' (its tasks, "
                      "candidates or texts differ)",
                      trailer->data.empty() ? std::string("no dataset")
                                            : fmt::format("'{}'", trailer->data.front().path),
                      ds.path));
  }
  for (const auto& c : columns)
    if (!items.empty() && c.missing == items.size()) {
      std::vector<std::string> present;
      for (const auto& o : columns)
        if (o.missing < items.size()) present.push_back(o.metric);
      throw UsageError(fmt::format(
          "metric '{}' has no scores in '{}'{}", c.metric, path,
          present.empty() ? "" : fmt::format(" (it holds {})", fmt::join(present, ", "))));
    }
  if (!options.allow_missing) {
    for (const auto& c : columns) {
      if (c.missing == 0) continue;
      throw InputError(
          path, 0, "",
          fmt::format("the file scores {} of the dataset's {} items with '{}' ({} missing){}: "
                      "rerun what wrote it, or pass --allow-missing to use the scores there are",
                      items.size() - c.missing, items.size(), c.metric, c.missing,
                      trailer ? ""
                              : "; it has no end record, so the run that wrote it may not "
                                "have finished"));
    }
  }
  return columns;
}

}  // namespace probity
