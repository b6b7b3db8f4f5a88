// `probity merge`: shard score files → the file an unsharded `probity score` writes (same lines,
// same order), checking that every item's records come from exactly one shard.
#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "cli/commands.hpp"
#include "probity/dataset.hpp"
#include "probity/error.hpp"

namespace probity::cli {

void parse_shard(const std::string& text, std::size_t& index, std::size_t& count) {
  auto slash = text.find('/');
  auto number = [&](std::string_view s, std::size_t& v) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && p == s.data() + s.size() && !s.empty();
  };
  if (slash == std::string::npos || !number(std::string_view(text).substr(0, slash), index) ||
      !number(std::string_view(text).substr(slash + 1), count) || count == 0 || index >= count)
    throw UsageError(
        fmt::format("--shard '{}': expected I/N with 0 <= I < N (e.g. 0/4 ... 3/4)", text));
}

int run_merge(const MergeArgs& args) {
  Dataset ds = load_dataset(args.data);
  // Lines of each item, in the order its shard wrote them (metrics, then parts).
  std::unordered_map<std::string, std::vector<std::string>> lines;
  std::unordered_map<std::string, std::string> owner;
  for (const auto& shard : args.shards) {
    std::ifstream in(shard, std::ios::binary);
    if (!in) throw InputError(shard, 0, "", "cannot open file");
    std::string line;
    for (std::size_t n = 1; std::getline(in, line); ++n) {
      if (line.empty()) continue;
      nlohmann::json j;
      try {
        j = nlohmann::json::parse(line);
      } catch (const nlohmann::json::parse_error&) {
        throw InputError(shard, n, "", "malformed JSON");
      }
      if (!j.contains("task_id") || !j.contains("candidate_id"))
        throw InputError(shard, n, "task_id", "missing task_id or candidate_id");
      std::string key =
          j["task_id"].get<std::string>() + '\x1f' + j["candidate_id"].get<std::string>();
      auto [it, added] = owner.emplace(key, shard);
      if (!added && it->second != shard)
        throw InputError(shard, n, "task_id",
                         fmt::format("item {}/{} is also in '{}': shards overlap",
                                     j["task_id"].get<std::string>(),
                                     j["candidate_id"].get<std::string>(), it->second));
      lines[key].push_back(line);
    }
  }
  std::ofstream out(args.out, std::ios::binary);
  if (!out) throw UsageError(fmt::format("cannot write '{}'", args.out));
  std::size_t written = 0, missing = 0;
  for (const auto& task : ds.tasks) {
    for (const auto& c : task.candidates) {
      auto it = lines.find(task.task_id + '\x1f' + c.id);
      if (it == lines.end()) {
        ++missing;
        continue;
      }
      for (const auto& l : it->second) out << l << '\n';
      written += it->second.size();
      lines.erase(it);
    }
  }
  if (!lines.empty())
    throw InputError(owner.at(lines.begin()->first), 0, "task_id",
                     fmt::format("{} item(s) are not in '{}'", lines.size(), args.data));
  fmt::print("merged {} shard file(s): {} records", args.shards.size(), written);
  if (missing > 0) fmt::print(", {} item(s) of the dataset have no records", missing);
  fmt::print("\n");
  return missing == 0 ? kExitOk : kExitInvalidInput;
}

}  // namespace probity::cli
