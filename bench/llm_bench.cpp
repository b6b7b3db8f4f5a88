// LLM client throughput against the mock OpenAI-compatible server (50 ms per answer), client CPU
// per request, and response-cache lookups per second. The server runs in a child process so that
// getrusage() counts the client alone.
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "llm/mock_server.hpp"
#include "probity/llm.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kLatencyMs = 50;

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto sec = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return sec(u.ru_utime) + sec(u.ru_stime);
}

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

// Serves until the parent closes the pipe; reports its port through the other pipe.
[[noreturn]] void serve(int port_fd, int stop_fd) {
  probity::test::MockServer server({600, "", ""});
  server.set_latency_ms(kLatencyMs);
  const int port = server.port();
  if (write(port_fd, &port, sizeof port) != sizeof port) _exit(1);
  char c;
  while (read(stop_fd, &c, 1) > 0) {
  }
  _exit(0);
}

std::vector<probity::llm::Request> requests(std::size_t n, const std::string& tag) {
  std::vector<probity::llm::Request> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    out[i].messages = {
        {"system", "You are a careful judge. Answer yes or no."},
        {"user", fmt::format("{} item {}: does the candidate support the reference?", tag, i)}};
    out[i].max_tokens = 8;
  }
  return out;
}

// Requests per second at each concurrency against a server in a child process (forked before
// this process starts any thread), the client's CPU per request and the answers' latency.
void bench_http(const std::vector<std::size_t>& levels) {
  int port_pipe[2], stop_pipe[2];
  if (pipe(port_pipe) != 0 || pipe(stop_pipe) != 0) throw std::runtime_error("pipe failed");
  const pid_t child = fork();
  if (child < 0) throw std::runtime_error("fork failed");
  if (child == 0) {
    close(stop_pipe[1]);
    serve(port_pipe[1], stop_pipe[0]);
  }
  close(stop_pipe[0]);
  int port = 0;
  if (read(port_pipe[0], &port, sizeof port) != sizeof port)
    throw std::runtime_error("the mock server did not start");

  probity::llm::EndpointConfig config;
  config.base_url = fmt::format("http://127.0.0.1:{}/v1", port);
  config.model = "mock-model";
  config.timeout_s = 30;
  fmt::print("\nthroughput against the mock server ({} ms per answer, in another process)\n",
             kLatencyMs);
  fmt::print("{:>11} {:>9} {:>8} {:>10} {:>10} {:>9} {:>14} {:>7} {:>7}\n", "concurrency",
             "requests", "wall s", "req/s", "bound/s", "achieved", "client CPU/req", "p50 ms",
             "p99 ms");
  std::size_t total_requests = 0;
  for (std::size_t concurrency : levels) {
    config.concurrency = concurrency;
    probity::llm::Client client(config);
    // The warm-up opens the connections; it is not timed.
    client.run(requests(concurrency, fmt::format("warm{}", concurrency)));
    const std::size_t n = std::max<std::size_t>(40, concurrency * 20);
    const auto batch = requests(n, fmt::format("c{}", concurrency));
    const double cpu0 = cpu_seconds();
    const auto t0 = Clock::now();
    const auto out = client.run(batch);
    const double wall = since(t0);
    const double cpu = cpu_seconds() - cpu0;
    total_requests += n + concurrency;
    std::size_t failed = 0;
    std::vector<double> latency;
    for (const auto& r : out) {
      failed += r.ok ? 0 : 1;
      latency.push_back(r.latency_s);
    }
    std::sort(latency.begin(), latency.end());
    const double p50 = latency[latency.size() / 2], p99 = latency[latency.size() * 99 / 100];
    const double rate = static_cast<double>(n) / wall;
    const double bound = static_cast<double>(concurrency) * 1000.0 / kLatencyMs;
    fmt::print(
        "{:>11} {:>9} {:>8.2f} {:>10.1f} {:>10.1f} {:>8.1f}% {:>11.1f} us {:>7.1f} {:>7.1f}{}\n",
        concurrency, n, wall, rate, bound, 100.0 * rate / bound, 1e6 * cpu / static_cast<double>(n),
        1e3 * p50, 1e3 * p99, failed ? fmt::format("  ({} failed)", failed) : "");
  }
  close(stop_pipe[1]);
  int status = 0;
  waitpid(child, &status, 0);
  rusage u{};
  getrusage(RUSAGE_CHILDREN, &u);
  const double server_cpu = static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
                            static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
  fmt::print("mock server CPU: {:.1f} us per request\n",
             1e6 * server_cpu / static_cast<double>(std::max<std::size_t>(total_requests, 1)));
}

// Lookups and writes of the response cache, and a whole run() served from it.
void bench_cache() {
  const auto dir =
      std::filesystem::temp_directory_path() / fmt::format("probity-llm-bench-{}", getpid());
  std::filesystem::create_directories(dir);
  {
    probity::llm::Cache cache((dir / "cache.sqlite").string());
    constexpr std::size_t kEntries = 100000;
    // Realistic bodies: a short chat answer with usage.
    std::vector<std::string> keys;
    std::vector<std::pair<std::string, std::string>> entries;
    for (std::size_t i = 0; i < kEntries; ++i) {
      keys.push_back(probity::llm::sha256_hex(fmt::format("request {}", i)));
      entries.emplace_back(
          keys.back(),
          fmt::format(
              R"({{"id":"chatcmpl-{}","object":"chat.completion","model":"m","choices":[{{"index":0,"message":{{"role":"assistant","content":"Yes. The candidate states the same facts as the reference, item {}."}},"finish_reason":"stop"}}],"usage":{{"prompt_tokens":41,"completion_tokens":15,"total_tokens":56}}}})",
              i, i));
    }
    auto t0 = Clock::now();
    for (std::size_t i = 0; i < kEntries; i += 1000)
      cache.put_many({entries.begin() + static_cast<std::ptrdiff_t>(i),
                      entries.begin() + static_cast<std::ptrdiff_t>(i + 1000)});
    const double write_s = since(t0);
    // Lookups in a scattered order, half of them misses.
    std::vector<std::string> probe;
    for (std::size_t i = 0; i < kEntries; ++i) {
      const std::size_t j = (i * 7919) % kEntries;
      probe.push_back(i % 2 ? keys[j] : probity::llm::sha256_hex(fmt::format("miss {}", j)));
    }
    t0 = Clock::now();
    std::size_t found = 0;
    for (const auto& k : probe) found += cache.get(k) ? 1 : 0;
    const double single_s = since(t0);
    t0 = Clock::now();
    const auto many = cache.get_many(probe);
    const double batch_s = since(t0);
    const auto many_found =
        std::count_if(many.begin(), many.end(), [](const auto& v) { return v.has_value(); });
    const double n = static_cast<double>(kEntries);
    fmt::print("\nresponse cache (SQLite WAL, {} entries of ~{} bytes)\n", kEntries,
               entries[0].second.size());
    fmt::print("  writes, 1000 per transaction: {:>10.0f} /s\n", n / write_s);
    fmt::print("  lookups, one at a time:       {:>10.0f} /s  ({} hits)\n", n / single_s, found);
    fmt::print("  lookups, get_many (one txn):  {:>10.0f} /s  ({} hits)\n", n / batch_s,
               many_found);

    // Key hashing, lookup and answer parsing together; the endpoint is never contacted.
    probity::llm::EndpointConfig config;
    config.base_url = "http://127.0.0.1:9/v1";
    config.model = "mock-model";
    probity::llm::ClientOptions options;
    options.cache = &cache;
    probity::llm::Client client(config, options);
    const auto batch = requests(20000, "cached");
    std::vector<std::pair<std::string, std::string>> warm;
    for (const auto& r : batch) warm.emplace_back(client.key(r), entries[warm.size()].second);
    cache.put_many(warm);
    t0 = Clock::now();
    const auto out = client.run(batch);
    const double run_s = since(t0);
    std::size_t hits = 0;
    for (const auto& r : out) hits += r.from_cache ? 1 : 0;
    fmt::print("  run() with every item cached: {:>10.0f} items/s  ({} hits)\n",
               static_cast<double>(batch.size()) / run_s, hits);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace

// Arguments: concurrency levels (default 1 16 64 256); --http-only or --cache-only.
int main(int argc, char** argv) {
  std::vector<std::size_t> levels;
  bool http = true, cache = true;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      fmt::print(
          "usage: probity-llm-bench [--http-only|--cache-only] [CONCURRENCY ...]\n"
          "Requests/s against an in-process OpenAI-compatible mock server answering after "
          "50 ms\n(default concurrency levels 1 16 64 256), client CPU per request, and "
          "response-cache lookups/s.\n");
      return 0;
    }
    if (arg == "--http-only")
      cache = false;
    else if (arg == "--cache-only")
      http = false;
    else if (!arg.empty() && arg.find_first_not_of("0123456789") == std::string::npos)
      levels.push_back(std::stoul(arg));
    else {
      fmt::print(stderr, "probity-llm-bench: unknown argument '{}' (see --help)\n", arg);
      return 2;
    }
  }
  if (levels.empty()) levels = {1, 16, 64, 256};
  fmt::print("machine: {} ({} hardware threads)\n", cpu_model(),
             std::thread::hardware_concurrency());
  if (http) bench_http(levels);
  if (cache) bench_cache();
  return 0;
}
