// probity cache: statistics, import of batch result files and exports, export, merge.
#include "probity/cache_tools.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "llm/batch.hpp"
#include "probity/dataset.hpp"
#include "util/output_file.hpp"

namespace probity::llm {

CacheStats cache_stats(Cache& cache) {
  CacheStats s;
  cache.for_each([&](const std::string&, const std::string& body, double created) {
    ++s.entries;
    s.bytes += body.size();
    if (s.oldest == 0 || created < s.oldest) s.oldest = created;
    s.newest = std::max(s.newest, created);
  });
  for (const auto& b : cache.batches()) {
    ++s.batches;
    if (b.open) ++s.open_batches;
  }
  return s;
}

namespace {

// One line of an import file, read into an answer or a failure.
struct Imported {
  std::string key;
  bool ok = false;
  std::string body;
  double created = 0;
  ErrorKind kind = ErrorKind::kNone;
  std::string error;
};

Imported read_line(const std::string& path, std::size_t number, const std::string& text) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object())
    throw InputError(path, number, "",
                     "not a JSON object (expected a batch output line or a "
                     "probity cache export line)");
  Imported out;
  if (j.contains("key") && j.contains("body")) {  // a probity export
    if (!j["key"].is_string() || j["key"].get<std::string>().empty())
      throw InputError(path, number, "key", "expected a non-empty string");
    if (!j["body"].is_string()) throw InputError(path, number, "body", "expected a string");
    out.key = j["key"].get<std::string>();
    out.ok = true;
    out.body = j["body"].get<std::string>();
    if (j.contains("created") && j["created"].is_number()) out.created = j["created"].get<double>();
    return out;
  }
  if (!j.contains("custom_id") || !j["custom_id"].is_string())
    throw InputError(path, number, "custom_id",
                     "missing: not a batch output line (custom_id, response) nor a probity "
                     "cache export line (key, body)");
  out.key = j["custom_id"].get<std::string>();
  detail::BatchOutcome outcome;
  if (j.contains("result") && j["result"].is_object()) {  // Anthropic
    const auto& result = j["result"];
    const std::string type = result.value("type", "");
    if (type == "succeeded") {
      if (!result.contains("message") || !result["message"].is_object())
        throw InputError(path, number, "result.message", "a succeeded result without a message");
      outcome.ok = true;
      outcome.body = detail::openai_body_of_message(result["message"].dump());
    } else {
      outcome.kind = type == "errored" ? ErrorKind::kBatchFailed : ErrorKind::kBatchExpired;
      outcome.error =
          fmt::format("{}: {}", type,
                      result.contains("error") ? result["error"].dump() : std::string("no answer"));
    }
  } else {
    std::string key, problem;
    if (!detail::parse_openai_result_line(text, key, outcome, problem))
      throw InputError(path, number, "response", problem);
  }
  out.ok = outcome.ok;
  out.body = std::move(outcome.body);
  out.kind = outcome.kind;
  out.error = std::move(outcome.error);
  return out;
}

}  // namespace

CacheImportSummary import_into_cache(Cache& cache, const std::vector<std::string>& paths) {
  if (cache.mode() == CacheMode::kReadOnly || cache.mode() == CacheMode::kOff)
    throw UsageError(fmt::format("cannot import into the llm cache '{}': it is {}", cache.path(),
                                 cache_mode_name(cache.mode())));
  CacheImportSummary summary;
  std::set<std::string> touched;
  for (const auto& path : paths) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, 0, "", "cannot read the file");
    std::vector<std::tuple<std::string, std::string, double>> answers;
    std::vector<Cache::BatchFailure> failures;
    std::string text;
    std::size_t number = 0;
    while (std::getline(in, text)) {
      ++number;
      if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
      Imported line = read_line(path, number, text);
      ++summary.lines;
      touched.insert(line.key);
      if (line.ok)
        answers.emplace_back(line.key, std::move(line.body), line.created);
      else
        failures.push_back(
            {line.key, line.kind, fmt::format("{} (from {}, line {})", line.error, path, number)});
    }
    if (in.bad()) throw InputError(path, number, "", "read error");
    const std::size_t written = cache.put_entries(answers, false);
    summary.answers += written;
    summary.kept += answers.size() - written;
    // A request answered in one file and failed in another is answered.
    std::vector<Cache::BatchFailure> unanswered;
    std::vector<std::string> keys;
    for (const auto& f : failures) keys.push_back(f.key);
    const auto stored = cache.get_many(keys);
    for (std::size_t i = 0; i < failures.size(); ++i)
      if (!stored[i]) unanswered.push_back(failures[i]);
    cache.put_batch_failures(unanswered);
    summary.failures += unanswered.size();
    ++summary.files;
  }
  // Batch files all of whose requests now have an answer or a recorded failure are done.
  for (auto& record : cache.batches()) {
    if (!record.open) continue;
    const auto stored = cache.get_many(record.keys);
    bool all = true;
    std::uint64_t answered = 0;
    for (std::size_t i = 0; i < record.keys.size() && all; ++i) {
      all = stored[i].has_value() || touched.contains(record.keys[i]);
      answered += stored[i].has_value() ? 1 : 0;
    }
    if (!all) continue;
    record.open = false;
    record.completed = answered;
    record.failed = record.keys.size() - answered;
    record.status = "imported";
    record.updated = static_cast<double>(std::time(nullptr));
    cache.put_batch(record);
    ++summary.closed_batches;
  }
  return summary;
}

std::size_t export_cache(Cache& cache, const std::string& out_path,
                         const std::vector<std::string>* keys) {
  const std::set<std::string> wanted =
      keys ? std::set<std::string>(keys->begin(), keys->end()) : std::set<std::string>();
  util::OutputFile out(out_path);
  std::size_t n = 0;
  cache.for_each([&](const std::string& key, const std::string& body, double created) {
    if (keys && !wanted.contains(key)) return;
    out.stream() << nlohmann::json{{"key", key}, {"body", body}, {"created", created}}.dump()
                 << '\n';
    ++n;
  });
  out.commit();
  return n;
}

CacheMergeSummary merge_caches(Cache& into, const std::vector<std::string>& paths) {
  if (into.mode() == CacheMode::kReadOnly || into.mode() == CacheMode::kOff)
    throw UsageError(fmt::format("cannot merge into the llm cache '{}': it is {}", into.path(),
                                 cache_mode_name(into.mode())));
  CacheMergeSummary summary;
  for (const auto& path : paths) {
    Cache from(path, CacheMode::kReadOnly);
    std::vector<std::tuple<std::string, std::string, double>> entries;
    from.for_each([&](const std::string& key, const std::string& body, double created) {
      entries.emplace_back(key, body, created);
    });
    summary.read += entries.size();
    summary.written += into.put_entries(entries, false);
    for (const auto& record : from.batches()) {
      into.put_batch(record);
      ++summary.batches;
    }
    ++summary.files;
  }
  return summary;
}

}  // namespace probity::llm
