// `probity merge`: shard score files → the file an unsharded `probity score` writes (same lines,
// same order), checking that every item's records come from exactly one shard.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <unordered_map>

#include "cli/command.hpp"
#include "cli/flags.hpp"
#include "cli/llm_context.hpp"
#include "probity/dataset.hpp"
#include "probity/error.hpp"
#include "probity/requests.hpp"
#include "probity/scores.hpp"
#include "util/json_limits.hpp"
#include "util/output_file.hpp"

namespace probity::cli {
namespace {

int run_merge(const MergeRequest& args) {
  std::vector<util::NamedInput> inputs = {{args.data.name(), "--data"}};
  for (const auto& shard : args.shards) inputs.push_back({shard, "a shard"});
  const util::PlannedOutput output{args.out, "--out", {}};
  util::refuse_overwriting_inputs(inputs, std::span(&output, 1));
  Dataset ds = args.data.load();
  const std::string digest = items_digest(ds);
  // Lines of each item, in the order its shard wrote them (metrics, then parts).
  std::unordered_map<std::string, std::vector<std::string>> lines;
  std::unordered_map<std::string, std::string> owner;
  std::optional<ScoresTrailer> first;  // the shards' common end record
  std::set<std::size_t> indices;
  for (const auto& shard : args.shards) {
    std::ifstream in(shard, std::ios::binary);
    if (!in) throw InputError(shard, 0, "", "cannot open file");
    std::string line;
    std::optional<ScoresTrailer> trailer;
    std::size_t records = 0;
    for (std::size_t n = 1; std::getline(in, line); ++n) {
      if (line.empty()) continue;
      nlohmann::json j;
      try {
        j = util::parse_json(line);
      } catch (const nlohmann::json::parse_error&) {
        throw InputError(shard, n, "", "malformed JSON");
      }
      if (trailer) throw InputError(shard, n, "", "a line after the end record");
      if ((trailer = scores_trailer_of(j, shard, n))) {
        if (trailer->records != records)
          throw InputError(
              shard, n, "probity_scores",
              fmt::format("{} records but the end record says {}", records, trailer->records));
        continue;
      }
      ++records;
      if (!j.contains("task_id") || !j.contains("candidate_id") || !j["task_id"].is_string() ||
          !j["candidate_id"].is_string())
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
    if (!trailer) {
      if (!args.allow_missing)
        throw InputError(shard, 0, "",
                         "no end record: the run that wrote this shard did not finish (rerun it, "
                         "or pass --allow-missing)");
      continue;
    }
    if (!std::any_of(trailer->data.begin(), trailer->data.end(),
                     [&](const auto& d) { return d.digest == digest; }))
      throw InputError(
          shard, 0, "data",
          fmt::format("this shard scored another dataset than '{}'", args.data.name()));
    if (first && (first->shard_count != trailer->shard_count || first->metrics != trailer->metrics))
      throw InputError(shard, 0, "probity_scores",
                       "this shard comes from another run (other metrics or shard count)");
    if (!indices.insert(trailer->shard_index).second)
      throw InputError(
          shard, 0, "probity_scores",
          fmt::format("shard {}/{} is given twice", trailer->shard_index, trailer->shard_count));
    if (!first) first = trailer;
  }
  util::OutputFile out(args.out);
  std::size_t written = 0, missing = 0;
  for (const auto& task : ds.tasks) {
    for (const auto& c : task.candidates) {
      auto it = lines.find(task.task_id + '\x1f' + c.id);
      if (it == lines.end()) {
        ++missing;
        continue;
      }
      for (const auto& l : it->second) out.stream() << l << '\n';
      written += it->second.size();
      lines.erase(it);
    }
  }
  if (!lines.empty())
    throw InputError(owner.at(lines.begin()->first), 0, "task_id",
                     fmt::format("{} item(s) are not in '{}'", lines.size(), args.data.name()));
  std::vector<std::size_t> absent;
  if (first)
    for (std::size_t i = 0; i < first->shard_count; ++i)
      if (!indices.count(i)) absent.push_back(i);
  if ((missing > 0 || !absent.empty()) && !args.allow_missing)
    throw InputError(
        args.data.name(), 0, "",
        fmt::format("{} item(s) of the dataset have no records{}: nothing was "
                    "written (pass --allow-missing to merge what there is)",
                    missing,
                    absent.empty() ? ""
                                   : fmt::format("; shard(s) {} of {} are missing",
                                                 fmt::join(absent, ", "), first->shard_count)));
  ScoresTrailer merged = first.value_or(ScoresTrailer{});
  if (!first) merged.data.push_back({args.data.name(), digest, ds.num_candidates()});
  merged.shard_index = 0;
  merged.shard_count = 1;
  merged.records = written;
  write_scores_trailer(out.stream(), merged);
  out.commit();
  fmt::print("merged {} shard file(s): {} records", args.shards.size(), written);
  if (missing > 0) fmt::print(", {} item(s) of the dataset have no records", missing);
  fmt::print("\n");
  return kExitOk;
}

}  // namespace

void add_merge_command(CLI::App& app, Commands& commands) {
  auto request = std::make_shared<MergeRequest>();
  MergeRequest& merge = *request;
  auto* gc = app.add_subcommand(
      "merge", "Combine `score --shard I/N` outputs into the file of an unsharded run");
  gc->add_option("--data", merge.data, "The dataset the shards scored")
      ->required()
      ->check(CLI::ExistingFile);
  add_input_options(gc, merge.data);
  gc->add_option("--out", merge.out, "Merged scores JSONL")->required();
  gc->add_option("shards", merge.shards, "Shard score files")->required()->check(CLI::ExistingFile);
  gc->add_flag("--allow-missing", merge.allow_missing,
               "Write the merge although items of the dataset have no records (reported)");
  commands.push_back({gc, [request](RunContext&) { return run_merge(*request); }});
}

}  // namespace probity::cli
