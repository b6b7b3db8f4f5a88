// `probity cache`: what the LLM response cache holds (stats), the batches runs submitted
// (batches), loading batch results run elsewhere (import), exporting answers for offline replay
// (export) and merging the caches of shards (merge).
#include <fmt/format.h>

#include <ctime>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/flags.hpp"
#include "probity/cache_tools.hpp"
#include "probity/error.hpp"
#include "probity/llm.hpp"
#include "util/output_file.hpp"

namespace probity::cli {
namespace {

struct CacheArgs {
  std::string cache;
  std::vector<std::string> files;
  std::string out;
  bool json = false;
  bool open_only = false;
};

std::string when(double unix_s) {
  if (unix_s <= 0) return "-";
  const std::time_t t = static_cast<std::time_t>(unix_s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min);
}

int run_stats(const CacheArgs& a) {
  llm::Cache cache(a.cache, llm::CacheMode::kReadOnly);
  const auto s = llm::cache_stats(cache);
  if (a.json) {
    fmt::print("{}\n", nlohmann::json{{"cache", a.cache},
                                      {"entries", s.entries},
                                      {"bytes", s.bytes},
                                      {"oldest", s.oldest},
                                      {"newest", s.newest},
                                      {"batches", s.batches},
                                      {"open_batches", s.open_batches}}
                           .dump(2));
    return kExitOk;
  }
  fmt::print("{}: {} answers, {} bytes, stored {} .. {}; {} batches ({} open)\n", a.cache,
             s.entries, s.bytes, when(s.oldest), when(s.newest), s.batches, s.open_batches);
  return kExitOk;
}

int run_batches(const CacheArgs& a) {
  llm::Cache cache(a.cache, llm::CacheMode::kReadOnly);
  auto records = cache.batches();
  if (a.json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& r : records) {
      if (a.open_only && !r.open) continue;
      j.push_back({{"id", r.id},
                   {"provider", r.provider},
                   {"endpoint", r.endpoint},
                   {"model", r.model},
                   {"status", r.status},
                   {"open", r.open},
                   {"requests", r.keys.size()},
                   {"completed", r.completed},
                   {"failed", r.failed},
                   {"created", r.created},
                   {"updated", r.updated},
                   {"estimated_cost_usd", r.estimated_cost_usd},
                   {"cost_usd", r.cost_usd}});
    }
    fmt::print("{}\n", j.dump(2));
    return kExitOk;
  }
  fmt::print("{:<40} {:<9} {:<10} {:<12} {:>8} {:>9} {:>7} {:>10} {:>10} {:<17}\n", "batch",
             "provider", "endpoint", "status", "requests", "completed", "failed", "est. USD",
             "cost USD", "submitted");
  for (const auto& r : records) {
    if (a.open_only && !r.open) continue;
    fmt::print("{:<40} {:<9} {:<10} {:<12} {:>8} {:>9} {:>7} {:>10.4f} {:>10.4f} {:<17}\n", r.id,
               r.provider, r.endpoint, r.status + (r.open ? "" : "*"), r.keys.size(), r.completed,
               r.failed, r.estimated_cost_usd, r.cost_usd, when(r.created));
  }
  fmt::print("(* imported: its answers are in the cache)\n");
  return kExitOk;
}

int run_import(const CacheArgs& a) {
  llm::Cache cache(a.cache, llm::CacheMode::kReadWrite);
  const auto s = llm::import_into_cache(cache, a.files);
  fmt::print(
      "imported {} file{}, {} lines: {} answers stored, {} already there, {} failed requests "
      "recorded (the next run counts them with their cause, the one after asks again); {} batch "
      "file{} complete\n",
      s.files, s.files == 1 ? "" : "s", s.lines, s.answers, s.kept, s.failures, s.closed_batches,
      s.closed_batches == 1 ? "" : "s");
  return kExitOk;
}

int run_export(const CacheArgs& a) {
  llm::Cache cache(a.cache, llm::CacheMode::kReadOnly);
  const std::size_t n = llm::export_cache(cache, a.out);
  fmt::print(stderr, "exported {} answers to {}\n", n, a.out);
  return kExitOk;
}

int run_merge(const CacheArgs& a) {
  for (const auto& f : a.files)
    if (f == a.cache)
      throw UsageError(fmt::format("'{}' is both the target and an input of the merge", f));
  llm::Cache cache(a.cache, llm::CacheMode::kReadWrite);
  const auto s = llm::merge_caches(cache, a.files);
  fmt::print("merged {} cache{}: {} answers read, {} new, {} batch records\n", s.files,
             s.files == 1 ? "" : "s", s.read, s.written, s.batches);
  return kExitOk;
}

}  // namespace

void add_cache_command(CLI::App& app, Commands& commands) {
  auto args = std::make_shared<CacheArgs>();
  auto* cache = app.add_subcommand(
      "cache", "The LLM response cache: statistics, batches, import, export and merge");
  cache->require_subcommand(1);
  auto with_cache = [&](CLI::App* c, bool must_exist) {
    auto* o =
        c->add_option("--cache", args->cache, "The LLM response cache (SQLite file)")->required();
    if (must_exist) o->check(CLI::ExistingFile);
  };
  auto* stats = cache->add_subcommand("stats", "What the cache holds");
  with_cache(stats, true);
  stats->add_flag("--json", args->json, "Print JSON instead of a line");
  auto* batches = cache->add_subcommand(
      "batches", "The batches runs submitted (--batch), their status, requests and cost");
  with_cache(batches, true);
  batches->add_flag("--open", args->open_only, "Only batches whose answers are not imported");
  batches->add_flag("--json", args->json, "Print JSON instead of a table");
  auto* import = cache->add_subcommand(
      "import",
      "Load batch results (vllm run-batch or OpenAI output and error files, Anthropic results; "
      "JSONL) or a cache export into the cache; failed lines are counted by the next run");
  with_cache(import, false);
  import->add_option("files", args->files, "Results or export files")
      ->required()
      ->check(CLI::ExistingFile);
  auto* exp = cache->add_subcommand(
      "export", "Write every answer as JSONL {key, body, created} for offline replay elsewhere");
  with_cache(exp, true);
  exp->add_option("--out", args->out, "The export file")->required();
  auto* merge = cache->add_subcommand(
      "merge", "Add the answers and batch records of other caches (a sharded run's) to --cache");
  with_cache(merge, false);
  merge->add_option("files", args->files, "Cache files to merge in")
      ->required()
      ->check(CLI::ExistingFile);

  commands.push_back({stats, [args](RunContext&) { return run_stats(*args); }});
  commands.push_back({batches, [args](RunContext&) { return run_batches(*args); }});
  commands.push_back({import, [args](RunContext&) { return run_import(*args); }});
  commands.push_back({exp, [args](RunContext&) { return run_export(*args); }});
  commands.push_back({merge, [args](RunContext&) { return run_merge(*args); }});
}

}  // namespace probity::cli
