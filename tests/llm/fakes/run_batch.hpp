#pragma once
// `vllm run-batch` without vLLM: the output file it writes for an input file of OpenAI batch
// lines, each line answered by a FakeServer (normally the vLLM flavour). Evidence:
// tests/llm/fakes/SOURCES.md, section "vllm run-batch".
#include <string>

#include "llm/fakes/fake_server.hpp"

namespace probity::test {

// One output line per non-empty input line, in input order, as run_batch.py writes them
// (BatchRequestOutput.model_dump_json()): {"id":"vllm-<32 hex>","custom_id":…,"response":
// {"status_code":…,"request_id":"vllm-batch-<32 hex>","body":…},"error":…}. A line that is not
// a valid BatchRequestInput throws std::runtime_error (the real run stops on it).
std::string vllm_run_batch(FakeServer& server, const std::string& requests_jsonl);

}  // namespace probity::test
