// Batch mode: a round's cache misses go out as batches (or batch files), the run waits for them
// with backoff and a progress line, and their answers come back through the cache. Every
// submission is recorded in the cache database before the run waits, so a rerun of a killed run
// polls what it already paid for instead of submitting again.
#include "llm/batch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "llm/internal.hpp"
#include "util/enum_names.hpp"
#include "util/output_file.hpp"

namespace probity::llm {

namespace {
constexpr auto kBatchModes = std::to_array<util::EnumName<BatchMode>>({
    {BatchMode::kOff, "off"},
    {BatchMode::kOpenAi, "openai"},
    {BatchMode::kAnthropic, "anthropic"},
    {BatchMode::kFile, "file"},
});
}  // namespace

BatchMode parse_batch_mode(std::string_view name) {
  if (const auto mode = util::parse_enum(kBatchModes, name)) return *mode;
  throw UsageError(fmt::format("unknown batch mode '{}' (expected {})", name,
                               util::listed_names(kBatchModes, " or ")));
}

std::string_view batch_mode_name(BatchMode mode) {
  return util::name_of(kBatchModes, mode, "unknown");
}

namespace detail {
namespace {

using Clock = std::chrono::steady_clock;

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Waits `seconds` in steps of 100 ms; false when the run was interrupted meanwhile.
bool wait(const BatchContext& ctx, double seconds) {
  if (ctx.sleep) return ctx.sleep(seconds);
  const Clock::time_point until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                     std::chrono::duration<double>(seconds));
  while (Clock::now() < until) {
    if (ctx.interrupted && ctx.interrupted()) return false;
    const Clock::duration step = std::chrono::milliseconds(100);
    const Clock::duration left = until - Clock::now();
    std::this_thread::sleep_for(std::min(step, left));
  }
  return !(ctx.interrupted && ctx.interrupted());
}

void log(const BatchContext& ctx, const std::string& line) {
  if (ctx.log) ctx.log(line);
}

double batch_price(const std::optional<double>& batch, double online) {
  return batch.value_or(online / 2);
}

// What a round would cost at the batch prices: the prompt estimate plus the answer's bound.
double estimated_cost(const EndpointConfig& config, const std::vector<const BatchItem*>& items) {
  double in = 0, out = 0;
  for (const auto* item : items) {
    const auto body = nlohmann::json::parse(item->body, nullptr, false);
    double bound = 0;
    for (const char* field : {"max_tokens", "max_completion_tokens"})
      if (body.is_object() && body.contains(field) && body[field].is_number())
        bound = body[field].get<double>();
    out += bound;
    in += std::max(0.0, item->est_tokens - bound);
  }
  return (in * batch_price(config.price_batch_in, config.price_in) +
          out * batch_price(config.price_batch_out, config.price_out)) /
         1e6;
}

// Splits the items into batches within the provider's request and byte limits.
std::vector<std::vector<const BatchItem*>> chunks(
    const std::vector<const BatchItem*>& items, const BatchApi* api, const EndpointConfig& config,
    const std::function<std::string(const BatchItem&)>& line) {
  const std::size_t max_n =
      config.batch_max_requests ? config.batch_max_requests : (api ? api->max_requests() : 50000);
  const std::size_t max_bytes =
      config.batch_max_bytes ? config.batch_max_bytes : (api ? api->max_bytes() : 200u << 20);
  std::vector<std::vector<const BatchItem*>> out;
  std::size_t bytes = 0;
  for (const auto* item : items) {
    const std::size_t size = line(*item).size() + 1;
    if (size > max_bytes)
      throw UsageError(fmt::format(
          "llm[{}]: one request is {} bytes, over the batch limit of {} bytes; send it online",
          config.name, size, max_bytes));
    if (out.empty() || out.back().size() >= max_n || bytes + size > max_bytes) {
      out.emplace_back();
      bytes = 0;
    }
    out.back().push_back(item);
    bytes += size;
  }
  return out;
}

std::string jsonl_of(const std::vector<const BatchItem*>& items,
                     const std::function<std::string(const BatchItem&)>& line) {
  std::string out;
  for (const auto* item : items) out += line(*item) + '\n';
  return out;
}

// The OpenAI batch line, which vllm run-batch and file mode take too.
std::string openai_line(const BatchItem& item) {
  nlohmann::json j = {{"custom_id", item.key},
                      {"method", "POST"},
                      {"url", item.path},
                      {"body", nlohmann::json::parse(item.body)}};
  return j.dump();
}

// Stores an ended batch's answers and failures in the cache and closes its record.
void import_results(const BatchContext& ctx, Cache::BatchRecord& record,
                    const std::vector<std::pair<std::string, BatchOutcome>>& results,
                    std::map<std::string, BatchOutcome>& outcomes) {
  std::vector<std::pair<std::string, std::string>> answers;
  std::vector<Cache::BatchFailure> failures;
  std::set<std::string> seen;
  const EndpointConfig& config = *ctx.config;
  double cost = 0;
  for (const auto& [key, outcome] : results) {
    seen.insert(key);
    if (outcome.ok) {
      answers.emplace_back(key, outcome.body);
      // What the answers cost at the batch prices (their `usage`), for `probity cache batches`.
      const auto body = nlohmann::json::parse(outcome.body, nullptr, false);
      if (body.is_object() && body.contains("usage") && body["usage"].is_object()) {
        const auto& u = body["usage"];
        cost +=
            (u.value("prompt_tokens", 0.0) * batch_price(config.price_batch_in, config.price_in) +
             u.value("completion_tokens", 0.0) *
                 batch_price(config.price_batch_out, config.price_out)) /
            1e6;
      }
    } else {
      failures.push_back({key, outcome.kind, outcome.error});
    }
    outcomes[key] = outcome;
  }
  for (const auto& key : record.keys)
    if (!seen.contains(key)) {
      BatchOutcome lost;
      lost.kind = ErrorKind::kBatchExpired;
      lost.error = fmt::format("batch {} ended ({}) without an answer to this request", record.id,
                               record.status);
      failures.push_back({key, lost.kind, lost.error});
      outcomes[key] = lost;
    }
  if (ctx.cache) {
    ctx.cache->put_many(answers);
    // Kept for a run that asks for these keys later; this run takes its own below.
    ctx.cache->put_batch_failures(failures);
  }
  record.open = false;
  record.completed = answers.size();
  record.failed = failures.size();
  record.cost_usd = cost;
  record.updated = unix_now();
  if (ctx.cache) ctx.cache->put_batch(record);
}

// The record of a batch just written or submitted.
Cache::BatchRecord new_record(const EndpointConfig& config, const std::string& id,
                              const std::string& status,
                              const std::vector<const BatchItem*>& group) {
  Cache::BatchRecord record;
  record.id = id;
  record.provider = batch_mode_name(config.batch);
  record.endpoint = config.name;
  record.model = config.model;
  record.base_url = normalize_base(config.base_url);
  record.status = status;
  for (const auto* item : group) record.keys.push_back(item->key);
  record.created = record.updated = unix_now();
  record.estimated_cost_usd = estimated_cost(config, group);
  return record;
}

std::string progress_line(const EndpointConfig& config, const Cache::BatchRecord& record,
                          const BatchApi::Status& s, int polls, double next_s) {
  return fmt::format("llm[{}]: batch {} {}: {}/{} completed, {} failed (poll {}{})", config.name,
                     record.id, s.status, s.completed, s.total ? s.total : record.keys.size(),
                     s.failed, polls, s.ended ? "" : fmt::format(", next in {:.0f} s", next_s));
}

// Everything of run_batches after the failures recorded earlier were taken into `outcomes`.
std::vector<BatchOutcome> answer_rounds(const BatchContext& ctx,
                                        const std::vector<BatchItem>& items,
                                        const std::vector<std::string>& keys,
                                        std::map<std::string, BatchOutcome>& outcomes,
                                        EndpointUsage& delta) {
  const EndpointConfig& config = *ctx.config;
  const std::string provider(batch_mode_name(config.batch));
  const std::string base = normalize_base(config.base_url);

  std::unique_ptr<BatchApi> api;
  if (config.batch == BatchMode::kOpenAi) api = make_openai_batch_api(ctx);
  if (config.batch == BatchMode::kAnthropic) api = make_anthropic_batch_api(ctx);
  const std::function<std::string(const BatchItem&)> line =
      api ? std::function<std::string(const BatchItem&)>(
                [&](const BatchItem& item) { return api->line(item); })
          : std::function<std::string(const BatchItem&)>(openai_line);

  // Batches an earlier process submitted for any of these requests: poll them, do not resubmit.
  std::vector<Cache::BatchRecord> open;
  std::set<std::string> covered;
  if (ctx.cache) {
    const std::set<std::string> wanted(keys.begin(), keys.end());
    for (auto& record : ctx.cache->batches()) {
      if (!record.open || record.provider != provider || record.base_url != base ||
          record.model != config.model)
        continue;
      // A batch file deleted since: its requests are written again.
      if (config.batch == BatchMode::kFile && !std::filesystem::exists(record.id)) continue;
      bool relevant = false;
      for (const auto& k : record.keys)
        if (wanted.contains(k) && !outcomes.contains(k)) {
          relevant = true;
          covered.insert(k);
        }
      if (relevant) open.push_back(std::move(record));
    }
  }
  if (!open.empty())
    log(ctx, fmt::format("llm[{}]: {} batch{} submitted earlier cover{} {} of these requests; "
                         "polling instead of submitting again",
                         config.name, open.size(), open.size() == 1 ? "" : "es",
                         open.size() == 1 ? "s" : "", covered.size()));

  std::vector<const BatchItem*> fresh;
  {
    std::set<std::string> queued;
    for (const auto& item : items)
      if (!outcomes.contains(item.key) && !covered.contains(item.key) &&
          queued.insert(item.key).second)
        fresh.push_back(&item);
  }

  const auto groups = chunks(fresh, api.get(), config, line);
  if (!groups.empty()) {
    double estimate = 0;
    for (const auto& group : groups) estimate += estimated_cost(config, group);
    if (ctx.accounting && ctx.accounting->budget_usd() > 0) {
      const double spent = ctx.accounting->total().cost_usd;
      if (spent + estimate > ctx.accounting->budget_usd())
        throw BudgetExceeded(fmt::format(
            "llm[{}]: not submitting {} request{} in {} batch{}: their estimated cost, {:.4f} USD "
            "at the batch prices, would take the run from {:.4f} USD past its budget of {:.4f} "
            "USD (--budget-usd)",
            config.name, fresh.size(), fresh.size() == 1 ? "" : "s", groups.size(),
            groups.size() == 1 ? "" : "es", estimate, spent, ctx.accounting->budget_usd()));
    }
  }

  if (config.batch == BatchMode::kFile) {
    // Files are named after their content, so a rerun that finds nothing imported writes the
    // same file again instead of a new one.
    std::vector<std::string> written;
    for (const auto& record : open) written.push_back(record.id);
    for (const auto& group : groups) {
      const std::string jsonl = jsonl_of(group, line);
      const std::string path =
          (std::filesystem::path(config.batch_dir) /
           fmt::format("requests-{}-{}.jsonl", config.name, sha256_hex(jsonl).substr(0, 12)))
              .string();
      std::error_code made;
      std::filesystem::create_directories(config.batch_dir, made);
      if (made) throw OutputError(config.batch_dir, made.message());
      util::write_file_atomically(path, jsonl);
      const auto record = new_record(config, path, "written", group);
      if (ctx.cache) ctx.cache->put_batch(record);
      ++delta.batches;
      written.push_back(path);
    }
    if (!written.empty()) {
      std::string files, commands;
      for (const auto& path : written) {
        const std::string results =
            std::filesystem::path(path)
                .replace_filename(
                    std::filesystem::path(path).filename().string().replace(0, 8, "results"))
                .string();
        files += fmt::format("  {}\n", path);
        commands +=
            fmt::format("  vllm run-batch -i {} -o {} --model {}\n", path, results, config.model);
      }
      throw BatchPending(fmt::format(
          "llm[{}]: {} request{} written to {} batch file{} (OpenAI batch format):\n{}"
          "answer them, e.g. with\n{}"
          "then load the answers with\n  probity cache import --cache {} {}/results-*.jsonl\n"
          "and run this command again: it goes on from the cache",
          config.name, fresh.size() + covered.size(), fresh.size() + covered.size() == 1 ? "" : "s",
          written.size(), written.size() == 1 ? "" : "s", files, commands,
          ctx.cache ? ctx.cache->path() : "CACHE", config.batch_dir));
    }
  } else {
    for (const auto& group : groups) {
      const std::string jsonl = jsonl_of(group, line);
      std::string id;
      try {
        id = api->submit(jsonl, group.size());
      } catch (const BatchTransportError& e) {
        throw EndpointDown(fmt::format("llm[{}]: submitting a batch of {} requests failed: {}",
                                       config.name, group.size(), e.what()));
      }
      auto record = new_record(config, id, "submitted", group);
      // Recorded before any wait: a run killed from here on polls this batch when rerun.
      if (ctx.cache) ctx.cache->put_batch(record);
      ++delta.batches;
      log(ctx, fmt::format("llm[{}]: submitted batch {} ({} requests, estimated {:.4f} USD)",
                           config.name, id, group.size(), record.estimated_cost_usd));
      open.push_back(std::move(record));
    }

    // Poll every open batch until it ends, doubling the wait up to the maximum.
    std::vector<int> polls(open.size(), 0);
    std::vector<char> done(open.size(), 0);
    double interval = config.batch_poll_s;
    for (std::size_t left = open.size(); left > 0;) {
      for (std::size_t b = 0; b < open.size(); ++b) {
        if (done[b]) continue;
        auto& record = open[b];
        BatchApi::Status status;
        try {
          status = api->poll(record.id);
        } catch (const BatchTransportError& e) {
          throw EndpointDown(fmt::format("llm[{}]: polling batch {} failed: {}", config.name,
                                         record.id, e.what()));
        }
        ++polls[b];
        ++delta.batch_polls;
        record.status = status.status;
        record.updated = unix_now();
        log(ctx, progress_line(config, record, status, polls[b], interval));
        if (!status.ended) {
          if (ctx.cache) ctx.cache->put_batch(record);
          continue;
        }
        std::vector<std::pair<std::string, BatchOutcome>> results;
        if (status.problem.empty()) {
          try {
            results = api->results(record.id);
          } catch (const BatchTransportError& e) {
            throw EndpointDown(fmt::format("llm[{}]: reading the results of batch {} failed: {}",
                                           config.name, record.id, e.what()));
          }
        } else {
          for (const auto& key : record.keys)
            results.emplace_back(key, BatchOutcome{false, "", ErrorKind::kBatchFailed,
                                                   fmt::format("batch {} {}: {}", record.id,
                                                               status.status, status.problem)});
        }
        import_results(ctx, record, results, outcomes);
        done[b] = 1;
        --left;
      }
      if (left == 0) break;
      if (!wait(ctx, interval)) throw Interrupted();
      interval = std::min(interval * 2, config.batch_poll_max_s);
    }
  }

  // Failures recorded above for this run's keys are this run's: take them off the table.
  if (ctx.cache) ctx.cache->take_batch_failures(keys);
  std::vector<BatchOutcome> out;
  out.reserve(items.size());
  for (const auto& item : items) {
    auto it = outcomes.find(item.key);
    if (it != outcomes.end()) {
      out.push_back(it->second);
    } else {
      BatchOutcome missing;
      missing.kind = ErrorKind::kBatchExpired;
      missing.error = "no batch answered this request";
      out.push_back(missing);
    }
  }
  return out;
}

}  // namespace

std::vector<BatchOutcome> run_batches(const BatchContext& ctx, const std::vector<BatchItem>& items,
                                      EndpointUsage& delta) {
  std::map<std::string, BatchOutcome> outcomes;
  // Failures an earlier import or batch recorded for these keys are this run's to count.
  std::vector<std::string> keys;
  keys.reserve(items.size());
  for (const auto& item : items) keys.push_back(item.key);
  std::vector<Cache::BatchFailure> taken;
  if (ctx.cache) taken = ctx.cache->take_batch_failures(keys);
  for (const auto& f : taken) outcomes[f.key] = BatchOutcome{false, "", f.kind, f.message};
  try {
    return answer_rounds(ctx, items, keys, outcomes, delta);
  } catch (...) {
    // A call that stops before it returns (a batch file written, Ctrl-C, a provider down) has
    // counted nothing: the failures stay for the run that returns them.
    if (ctx.cache) ctx.cache->put_batch_failures(taken);
    throw;
  }
}

}  // namespace detail
}  // namespace probity::llm
