#pragma once
// Moving the LLM response cache (probity cache stats | batches | import | export | merge): load
// the answers of batch files run elsewhere (vllm run-batch, OpenAI's or Anthropic's result
// files), export the answers so a reader replays a report offline, and merge the caches of a
// sharded cluster run. Every output is written atomically; every input error names its file
// and line.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "probity/llm.hpp"

namespace probity::llm {

struct CacheStats {
  std::size_t entries = 0;
  std::uint64_t bytes = 0;        // of the stored answers
  double oldest = 0, newest = 0;  // Unix seconds of the first and last answer stored (0: none)
  std::size_t batches = 0;        // recorded batches (--batch)
  std::size_t open_batches = 0;   // of them, not yet imported
};
CacheStats cache_stats(Cache& cache);

struct CacheImportSummary {
  std::size_t files = 0, lines = 0;
  std::size_t answers = 0;         // stored
  std::size_t kept = 0;            // already stored: left as they were
  std::size_t failures = 0;        // failed requests, recorded for the run that asks for them
  std::size_t closed_batches = 0;  // batch files all of whose requests are now answered
};
// Reads batch output files (OpenAI / vLLM lines {custom_id, response, error}; Anthropic lines
// {custom_id, result}) and probity cache exports ({key, body, created}). Answers are stored
// under their custom_id (probity's cache key); a line whose request failed is recorded as that
// request's failure, which the next run counts with its cause like an online failure (and the
// run after asks again). Throws InputError naming file, line and field for any other line,
// before anything of that file is stored.
CacheImportSummary import_into_cache(Cache& cache, const std::vector<std::string>& paths);

// Writes every stored answer as JSONL {key, body, created}, in key order, atomically; returns
// how many. With `keys`, only those (a report's requests).
std::size_t export_cache(Cache& cache, const std::string& out_path,
                         const std::vector<std::string>* keys = nullptr);

struct CacheMergeSummary {
  std::size_t files = 0, read = 0, written = 0, batches = 0;
};
// Adds the answers and batch records of other cache files to `into` (answers already there are
// kept). The inputs are opened read-only.
CacheMergeSummary merge_caches(Cache& into, const std::vector<std::string>& paths);

}  // namespace probity::llm
