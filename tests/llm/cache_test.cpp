#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>
#include <thread>

#include "cli_runner.hpp"
#include "llm/internal.hpp"
#include "llm/llm_test_util.hpp"
#include "llm/mock_server.hpp"
#include "probity/dataset.hpp"
#include "probity/llm.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

using llm::Cache;
using llm::CacheMode;
using llm::Client;
using llm::ClientOptions;
using llm::ErrorKind;
using llm::Request;
using nlohmann::json;

std::vector<Request> numbered(int n, const std::string& prefix = "item") {
  std::vector<Request> out;
  for (int i = 0; i < n; ++i) out.push_back(chat_request(prefix + " " + std::to_string(i)));
  return out;
}

std::string reply_with(const std::string& tag, const json& request) {
  return tag + " " + request["messages"].back()["content"].get<std::string>();
}

TEST(LlmCache, HitsAndMisses) {
  MockServer server;
  server.set_handler([](const json& r) { return reply_with("v1", r); });
  const std::string path = temp_dir("llm-cache-hits") + "/c.sqlite";
  Cache cache(path);
  ClientOptions options;
  options.cache = &cache;
  Client client(mock_endpoint(server), options);
  auto first = client.run(numbered(5));
  EXPECT_EQ(server.count(), 5u);
  EXPECT_EQ(cache.size(), 5u);
  for (const auto& r : first) EXPECT_FALSE(r.from_cache);

  // Three old, two new: only the new ones are sent.
  auto mixed = numbered(5);
  mixed.resize(3);
  mixed.push_back(chat_request("new 1"));
  mixed.push_back(chat_request("new 2"));
  const auto second = client.run(mixed);
  EXPECT_EQ(server.count(), 7u);
  for (int i = 0; i < 5; ++i) {
    const auto& r = second[static_cast<std::size_t>(i)];
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.from_cache, i < 3);
    EXPECT_EQ(r.attempts, i < 3 ? 0 : 1);
  }
  EXPECT_EQ(second[0].text(), first[0].text());
  EXPECT_EQ(second[0].usage.completion_tokens, first[0].usage.completion_tokens);
  EXPECT_EQ(second[4].text(), "v1 new 2");
  const auto usage = client.accounting().total();
  EXPECT_EQ(usage.cache_hits, 3u);
  EXPECT_EQ(usage.requests, 7u);
  EXPECT_EQ(usage.answers, 10u);
}

TEST(LlmCache, OnlySuccessesAreCached) {
  MockServer server;
  server.push_fault(MockFault::http(400));
  const std::string path = temp_dir("llm-cache-fail") + "/c.sqlite";
  Cache cache(path);
  ClientOptions options;
  options.cache = &cache;
  Client client(mock_endpoint(server), options);
  EXPECT_FALSE(client.call(chat_request("x")).ok);
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_TRUE(client.call(chat_request("x")).ok);
  EXPECT_EQ(server.count(), 2u);
  EXPECT_EQ(cache.size(), 1u);
}

TEST(LlmCache, ReadOnlyModeServesHitsAndSendsNothing) {
  MockServer server;
  const std::string path = temp_dir("llm-cache-ro") + "/c.sqlite";
  {
    Cache cache(path);
    ClientOptions options;
    options.cache = &cache;
    Client client(mock_endpoint(server), options);
    client.run(numbered(3));
  }
  server.reset();
  Cache ro(path, CacheMode::kReadOnly);
  ClientOptions options;
  options.cache = &ro;
  Client client(mock_endpoint(server), options);
  auto requests = numbered(3);
  requests.push_back(chat_request("never seen"));
  const auto responses = client.run(requests);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(responses[static_cast<std::size_t>(i)].from_cache);
  EXPECT_FALSE(responses[3].ok);
  EXPECT_EQ(responses[3].error_kind, ErrorKind::kCacheMiss);
  EXPECT_EQ(responses[3].attempts, 0);
  EXPECT_FALSE(responses[3].error.empty());
  EXPECT_EQ(server.count(), 0u);
  EXPECT_EQ(ro.size(), 3u);
  EXPECT_EQ(client.accounting().total().failures.at("cache_miss"), 1u);
  EXPECT_THROW(Cache(temp_dir("llm-cache-ro-missing") + "/none.sqlite", CacheMode::kReadOnly),
               UsageError);
}

TEST(LlmCache, RefreshModeResendsAndOverwrites) {
  MockServer server;
  server.set_handler([](const json& r) { return reply_with("old", r); });
  const std::string path = temp_dir("llm-cache-refresh") + "/c.sqlite";
  {
    Cache cache(path);
    ClientOptions options;
    options.cache = &cache;
    Client(mock_endpoint(server), options).run(numbered(3));
  }
  server.set_handler([](const json& r) { return reply_with("new", r); });
  {
    Cache cache(path, CacheMode::kRefresh);
    ClientOptions options;
    options.cache = &cache;
    const auto responses = Client(mock_endpoint(server), options).run(numbered(3));
    for (const auto& r : responses) {
      EXPECT_FALSE(r.from_cache);
      EXPECT_EQ(r.text().substr(0, 3), "new");
    }
  }
  EXPECT_EQ(server.count(), 6u);
  Cache cache(path);
  ClientOptions options;
  options.cache = &cache;
  const auto responses = Client(mock_endpoint(server), options).run(numbered(3));
  for (const auto& r : responses) {
    EXPECT_TRUE(r.from_cache);
    EXPECT_EQ(r.text().substr(0, 3), "new");
  }
  EXPECT_EQ(server.count(), 6u);
  EXPECT_EQ(cache.size(), 3u);
}

TEST(LlmCache, OffModeNeitherReadsNorWrites) {
  MockServer server;
  const std::string path = temp_dir("llm-cache-off") + "/c.sqlite";
  Cache cache(path, CacheMode::kOff);
  ClientOptions options;
  options.cache = &cache;
  Client client(mock_endpoint(server), options);
  client.run(numbered(2));
  client.run(numbered(2));
  EXPECT_EQ(server.count(), 4u);
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(LlmCache, SampleIndexGivesSeparateEntries) {
  MockServer server;
  const std::string path = temp_dir("llm-cache-sample") + "/c.sqlite";
  Cache cache(path);
  ClientOptions options;
  options.cache = &cache;
  auto config = mock_endpoint(server);
  config.seed = 100;
  Client client(config, options);
  std::vector<Request> samples;
  for (std::uint32_t s = 0; s < 5; ++s) samples.push_back(chat_request("same prompt", s));
  std::set<std::string> keys;
  for (const auto& r : samples) keys.insert(client.key(r));
  EXPECT_EQ(keys.size(), 5u);  // temperature 0, yet five distinct entries
  client.run(samples);
  EXPECT_EQ(server.count(), 5u);
  EXPECT_EQ(cache.size(), 5u);
  std::set<std::int64_t> seeds;
  for (const auto& c : server.calls())
    seeds.insert(json::parse(c.body)["seed"].get<std::int64_t>());
  EXPECT_EQ(seeds, (std::set<std::int64_t>{100, 101, 102, 103, 104}));
  // Drawing more samples later only requests the new ones.
  samples.push_back(chat_request("same prompt", 5));
  const auto again = client.run(samples);
  EXPECT_EQ(server.count(), 6u);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_TRUE(again[i].from_cache);
  EXPECT_FALSE(again[5].from_cache);
}

TEST(LlmCache, KeyCoversEverythingThatAffectsTheAnswer) {
  llm::EndpointConfig base;
  base.base_url = "http://h:8000/v1";
  base.model = "m";
  const Request req = chat_request("hello");
  const std::string k0 = llm::detail::build_request(base, req).key;
  EXPECT_EQ(k0.size(), 64u);
  EXPECT_EQ(k0, llm::detail::build_request(base, req).key);  // deterministic
  auto differs = [&](llm::EndpointConfig c, Request r) {
    return llm::detail::build_request(c, r).key != k0;
  };
  auto c = base;
  c.base_url = "http://h:8000/v1/";  // the same endpoint
  EXPECT_FALSE(differs(c, req));
  c = base;
  c.timeout_s = 3;
  c.concurrency = 2;
  c.max_attempts = 9;
  c.rpm = 5;
  c.api_key_env = "OTHER_KEY_VARIABLE";
  c.price_in = 4;
  EXPECT_FALSE(differs(c, req));  // how it is sent, not what
  c = base;
  c.model = "m2";
  EXPECT_TRUE(differs(c, req));
  c = base;
  c.base_url = "http://other:8000/v1";
  EXPECT_TRUE(differs(c, req));
  c = base;
  c.temperature = 0.7;
  EXPECT_TRUE(differs(c, req));
  c = base;
  c.max_tokens = 10;
  EXPECT_TRUE(differs(c, req));
  c = base;
  c.seed = 1;
  EXPECT_TRUE(differs(c, req));
  c = base;
  c.extra_body = R"({"top_p": 0.9})";
  EXPECT_TRUE(differs(c, req));
  Request r = req;
  r.messages[0].role = "system";
  EXPECT_TRUE(differs(base, r));
  r = req;
  r.sample = 1;
  EXPECT_TRUE(differs(base, r));
  r = req;
  r.logprobs = 1;
  EXPECT_TRUE(differs(base, r));
  r = req;
  r.endpoint = llm::Endpoint::kCompletion;
  r.prompt = "hello";
  EXPECT_TRUE(differs(base, r));
  // Extra fields in a different order are the same request.
  c = base;
  c.extra_body = R"({"a": 1, "b": 2})";
  auto c2 = base;
  c2.extra_body = R"({"b": 2, "a": 1})";
  EXPECT_EQ(llm::detail::build_request(c, req).key, llm::detail::build_request(c2, req).key);
}

// A run killed half-way (a child process that exits from the progress callback) keeps what
// finished; the next run sends only the rest.
TEST(LlmCache, ResumesAfterAKilledRun) {
  MockServer server;
  server.set_latency_ms(15);
  const std::string path = temp_dir("llm-cache-resume") + "/c.sqlite";
  const auto requests = numbered(20);
  const auto config = [&] {
    auto c = mock_endpoint(server);
    c.concurrency = 2;
    return c;
  }();

  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int code = 3;
    try {
      Cache cache(path);
      ClientOptions options;
      options.cache = &cache;
      Client client(config, options);
      client.run(requests, [](std::size_t done, std::size_t) {
        if (done >= 7) _exit(0);  // killed: no destructor, no clean shutdown
      });
    } catch (...) {
      code = 4;
    }
    _exit(code);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  // Requests the child left in flight still reach the server; let them end before counting.
  for (int i = 0; i < 500 && server.in_flight() > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const std::size_t sent_by_child = server.count();
  server.reset();
  server.set_latency_ms(1);

  Cache cache(path);
  const std::size_t kept = cache.size();
  EXPECT_GE(kept, 7u);
  EXPECT_LT(kept, 20u);
  EXPECT_LT(sent_by_child, 20u);
  ClientOptions options;
  options.cache = &cache;
  Client client(config, options);
  const auto responses = client.run(requests);
  EXPECT_EQ(server.count(), 20u - kept);
  std::size_t hits = 0;
  for (std::size_t i = 0; i < responses.size(); ++i) {
    ASSERT_TRUE(responses[i].ok) << responses[i].error;
    EXPECT_EQ(responses[i].text(), "ok");
    hits += responses[i].from_cache ? 1 : 0;
  }
  EXPECT_EQ(hits, kept);
  EXPECT_EQ(cache.size(), 20u);
}

TEST(LlmCache, SharedBetweenConnectionsAndBatches) {
  const std::string path = temp_dir("llm-cache-shared") + "/c.sqlite";
  Cache a(path), b(path);
  std::vector<std::pair<std::string, std::string>> entries;
  for (int i = 0; i < 1000; ++i)
    entries.emplace_back("k" + std::to_string(i), "v" + std::to_string(i));
  a.put_many(entries);
  std::vector<std::string> keys = {"k0", "k999", "missing"};
  const auto got = b.get_many(keys);
  ASSERT_TRUE(got[0]);
  EXPECT_EQ(*got[0], "v0");
  EXPECT_EQ(*got[1], "v999");
  EXPECT_FALSE(got[2]);
  b.put("k0", "replaced");
  EXPECT_EQ(*a.get("k0"), "replaced");
  EXPECT_EQ(a.size(), 1000u);
}

}  // namespace
}  // namespace probity::test

namespace probity::test {
namespace {

// Read-only mode opened the file read-write (and switched it to WAL), so it
// failed on a read-only file system ("unable to open database file"). Tests run as root, which
// writes where permissions forbid it, so what is checked is what a read-only file system needs:
// the file is not changed (a cache in rollback-journal mode stays so) and nothing is created
// beside it.
TEST(LlmCache, ReadOnlyModeChangesAndCreatesNothing) {
  MockServer server;
  const std::string dir = temp_dir("llm-cache-rofs");
  const std::string path = dir + "/c.sqlite";
  {
    Cache cache(path);
    ClientOptions options;
    options.cache = &cache;
    Client client(mock_endpoint(server), options);
    client.run(numbered(3));
  }
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "PRAGMA journal_mode=DELETE", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  const std::string before = read_file(path);
  server.reset();
  {
    Cache ro(path, CacheMode::kReadOnly);
    ClientOptions options;
    options.cache = &ro;
    Client client(mock_endpoint(server), options);
    const auto responses = client.run(numbered(3));
    for (const auto& r : responses) EXPECT_TRUE(r.from_cache) << r.error;
    EXPECT_EQ(server.count(), 0u);
  }
  EXPECT_EQ(read_file(path), before);  // a switch to WAL would have rewritten the header
  EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
  EXPECT_FALSE(std::filesystem::exists(path + "-journal"));
}

// A --cache that is not a cache, has another schema or is cut short exited
// 1 ("internal error") without naming the file.
TEST(LlmCache, AFileThatIsNotACacheIsBadInputNamingIt) {
  const std::string dir = temp_dir("llm-cache-bad");
  auto expect_input_error = [](const std::string& path, CacheMode mode, const std::string& what) {
    try {
      Cache cache(path, mode);
      ADD_FAILURE() << path << " opened";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  const std::string text = dir + "/notes.sqlite";
  std::ofstream(text) << "these are notes, not a database\n" << std::string(4096, 'x');
  expect_input_error(text, CacheMode::kReadWrite, "not an SQLite database");
  expect_input_error(text, CacheMode::kReadOnly, "not an SQLite database");
  EXPECT_EQ(read_file(text).substr(0, 9), "these are");
  // Another program's database.
  const std::string other = dir + "/other.sqlite";
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(other.c_str(), &db), SQLITE_OK);
    sqlite3_exec(db, "CREATE TABLE contacts (name TEXT)", nullptr, nullptr, nullptr);
    sqlite3_close(db);
  }
  expect_input_error(other, CacheMode::kReadWrite, "no llm_responses table (its tables: contacts)");
  // Our table with other columns.
  const std::string schema = dir + "/schema.sqlite";
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(schema.c_str(), &db), SQLITE_OK);
    sqlite3_exec(db, "CREATE TABLE llm_responses (k TEXT, v TEXT)", nullptr, nullptr, nullptr);
    sqlite3_close(db);
  }
  expect_input_error(schema, CacheMode::kReadOnly, "another schema");
  // A real cache cut in half.
  MockServer server;
  const std::string good = dir + "/good.sqlite";
  {
    Cache cache(good);
    ClientOptions options;
    options.cache = &cache;
    Client client(mock_endpoint(server), options);
    server.set_handler([](const json&) { return std::string(3000, 'a'); });
    client.run(numbered(40));
  }
  const std::string cut = dir + "/cut.sqlite";
  const std::string bytes = read_file(good);
  ASSERT_GT(bytes.size(), 16384u);
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  expect_input_error(cut, CacheMode::kReadWrite, "truncated");
  expect_input_error(cut, CacheMode::kReadOnly, "truncated");
  // The CLI: exit 3 naming the file, for each.
  const std::string data = data_path("summeval/summeval_sample20.jsonl");
  for (const std::string& path : {text, other, schema, cut}) {
    auto r = run_probity("score --data " + data + " --metric llm-judge --llm-base-url " +
                         server.base_url() + " --llm-model m --cache " + path);
    EXPECT_EQ(r.exit_code, 3) << path << "\n" << r.err;
    EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace probity::test
