// probity_fake_servers: the test suite's fake servers as a process, for tests that run the
// `probity` executable (tests/docs/docs_commands_test.py runs the docs' LLM and embedding
// commands against them).
//
//   probity_fake_servers [--llm MODEL]... [--tei MODEL]... [--vllm-embed MODEL]...
//                        [--embed-tokenizer roberta|golden] [--batch-api]
//   probity_fake_servers --run-batch MODEL -i IN.jsonl -o OUT.jsonl
//
// Starts one vLLM-flavour FakeServer per --llm (serving MODEL; another model name gets vLLM's
// 404) and one EmbedServer per --tei / --vllm-embed (tokenizer "golden" unless told), prints one
// JSON line per server, {"kind": "llm"|"tei"|"vllm_embed", "model": MODEL, "url": URL}, in the
// order given (an LLM's URL is its /v1 base), and serves until standard input reaches EOF or it
// gets SIGTERM or SIGINT. The servers are the in-process ones of probity_tests, unchanged; what
// the LLM fakes' "model" writes is copy_model() (tests/llm/fakes/fake_models.hpp), except that a
// model named judge-<behaviour> (overlap, gullible, first, longer) answers probity's judge prompts
// as the simulated judge of tests/llm/fakes/judge_models.hpp does. --batch-api switches on the
// batch APIs (OpenAI /v1/files + /v1/batches, Anthropic /v1/messages/batches) of the --llm servers.
//
// --run-batch plays `vllm run-batch -i IN -o OUT --model MODEL`: it answers IN's lines with the
// same vLLM-flavour fake an --llm MODEL would be, writes the output file vLLM writes
// (tests/llm/fakes/run_batch.hpp) and exits (1 when an input line is not a batch request).
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "llm/fakes/fake_models.hpp"
#include "llm/fakes/fake_server.hpp"
#include "llm/fakes/judge_models.hpp"
#include "llm/fakes/run_batch.hpp"
#include "metrics/fakes/embed_server.hpp"

namespace {

using nlohmann::json;

int usage(const char* why) {
  std::cerr << "probity_fake_servers: " << why
            << "\nusage: probity_fake_servers [--llm MODEL]... [--tei MODEL]... "
               "[--vllm-embed MODEL]... [--embed-tokenizer roberta|golden] [--batch-api]\n"
               "       probity_fake_servers --run-batch MODEL -i IN.jsonl -o OUT.jsonl\n"
               "  --llm judge-overlap|judge-gullible|judge-first|judge-longer: a simulated judge\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using probity::test::EmbedFakeOptions;
  using probity::test::EmbedFlavour;
  using probity::test::EmbedServer;
  using probity::test::FakeServer;

  std::vector<std::pair<std::string, std::string>> wanted;  // (kind, model)
  std::string embed_tokenizer = "golden";
  bool batch_api = false;
  std::string run_batch_model, run_batch_in, run_batch_out;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--batch-api") {
      batch_api = true;
      continue;
    }
    if (i + 1 >= argc) return usage(("missing the value of " + flag).c_str());
    const std::string value = argv[++i];
    if (flag == "--llm") {
      wanted.emplace_back("llm", value);
    } else if (flag == "--tei") {
      wanted.emplace_back("tei", value);
    } else if (flag == "--vllm-embed") {
      wanted.emplace_back("vllm_embed", value);
    } else if (flag == "--embed-tokenizer") {
      if (value != "roberta" && value != "golden")
        return usage("--embed-tokenizer: roberta or golden");
      embed_tokenizer = value;
    } else if (flag == "--run-batch") {
      run_batch_model = value;
    } else if (flag == "-i") {
      run_batch_in = value;
    } else if (flag == "-o") {
      run_batch_out = value;
    } else {
      return usage(("unknown option " + flag).c_str());
    }
  }

  if (!run_batch_model.empty() || !run_batch_in.empty() || !run_batch_out.empty()) {
    if (run_batch_model.empty() || run_batch_in.empty() || run_batch_out.empty() || !wanted.empty())
      return usage("--run-batch MODEL needs -i IN.jsonl and -o OUT.jsonl, and no servers");
    auto o = probity::test::fake_llm_options(run_batch_model);
    if (!o) return usage(("unknown judge behaviour in " + run_batch_model).c_str());
    try {
      std::ifstream in(run_batch_in, std::ios::binary);
      if (!in) throw std::runtime_error("cannot read " + run_batch_in);
      std::ostringstream text;
      text << in.rdbuf();
      FakeServer server(*o);
      const std::string output = probity::test::vllm_run_batch(server, text.str());
      std::ofstream out(run_batch_out, std::ios::binary);
      out << output;
      if (!out) throw std::runtime_error("cannot write " + run_batch_out);
    } catch (const std::exception& e) {
      std::cerr << "probity_fake_servers: " << e.what() << '\n';
      return 1;
    }
    return 0;
  }

  // SIGTERM and SIGINT are taken by sigwait below: blocked before any server thread starts, so
  // every thread inherits the mask. EOF on stdin raises SIGTERM for the same path.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  signal(SIGPIPE, SIG_IGN);

  std::vector<std::unique_ptr<FakeServer>> llms;
  std::vector<std::unique_ptr<EmbedServer>> embedders;
  try {
    for (const auto& [kind, model] : wanted) {
      std::string url;
      if (kind == "llm") {
        auto o = probity::test::fake_llm_options(model);
        if (!o) return usage(("unknown judge behaviour in " + model).c_str());
        o->batch_api = batch_api;
        llms.push_back(std::make_unique<FakeServer>(*o));
        url = llms.back()->base_url();
      } else {
        EmbedFakeOptions o;
        o.flavour = kind == "tei" ? EmbedFlavour::kTei : EmbedFlavour::kVllm;
        o.tokenizer = embed_tokenizer;
        o.model = model;
        embedders.push_back(std::make_unique<EmbedServer>(o));
        url = embedders.back()->url();
      }
      std::cout << nlohmann::json{{"kind", kind}, {"model", model}, {"url", url}}.dump() << '\n';
    }
  } catch (const std::exception& e) {
    std::cerr << "probity_fake_servers: " << e.what() << '\n';
    return 1;
  }
  std::cout.flush();

  std::thread([] {
    char buffer[4096];
    while (read(STDIN_FILENO, buffer, sizeof buffer) > 0) {
    }
    kill(getpid(), SIGTERM);
  }).detach();
  int signal_number = 0;
  sigwait(&stop, &signal_number);
  llms.clear();
  embedders.clear();
  std::_Exit(0);  // the stdin reader may still be blocked in read()
}
