// The API key never reaches an output, whichever JSON escapes a server spells it with (a key
// holding "/" echoed as "\/" landed in perturb output, reports and caches).
#include "llm/redact.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_runner.hpp"
#include "llm/llm_test_util.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

using nlohmann::json;

// A key with "/", '"', '\' and non-ASCII; its tail is what the tests look for in outputs.
const std::string kKey = "sk-pr/oj\"x\\y-\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87-TAIL7f3a9c";
constexpr std::string_view kTail = "TAIL7f3a9c";

// The key as the body of a JSON string, each character escaped in the style `style` picks:
// 0 the usual ("\/" "\"" "\\", UTF-8 kept), 1 every character as \uXXXX (uppercase hex),
// 2 minimal ("/" unescaped), 3 lowercase \u for the non-ASCII and "\/" for the slash.
std::string escaped_key(int style) {
  std::string out;
  const std::u32string cps = [] {
    std::u32string s;
    for (std::size_t i = 0; i < kKey.size();) {
      const auto b = static_cast<unsigned char>(kKey[i]);
      if (b < 0x80) {
        s += b;
        ++i;
      } else {
        s += static_cast<char32_t>(((b & 0x1F) << 6) | (kKey[i + 1] & 0x3F));
        i += 2;
      }
    }
    return s;
  }();
  for (char32_t c : cps) {
    const bool ascii = c < 0x80;
    if (style == 1 || (style == 3 && !ascii)) {
      const auto unit = static_cast<unsigned>(c);
      out += style == 1 ? fmt::format("\\u{:04X}", unit) : fmt::format("\\u{:04x}", unit);
    } else if (c == '/') {
      out += style == 2 ? "/" : "\\/";
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (ascii) {
      out += static_cast<char>(c);
    } else {
      // Non-ASCII kept as UTF-8 (the key's are all two-byte sequences).
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

TEST(Redact, EveryJsonSpellingOfTheKeyIsRedacted) {
  const std::vector<std::string> secrets{kKey};
  for (int style = 0; style < 4; ++style) {
    // In a JSON string of the body: the decoded text must not hold the key.
    const std::string body = "{\"error\": {\"message\": \"bad key " + escaped_key(style) + "\"}}";
    const std::string clean = llm::detail::redact_body(body, secrets);
    const auto j = json::parse(clean);
    const std::string message = j["error"]["message"].get<std::string>();
    EXPECT_EQ(message, "bad key [redacted]") << style << " " << body;
    // As the text of an answer that is itself JSON (one more level of escaping).
    const std::string inner = "{\"text\": \"a " + escaped_key(style) + " b\"}";
    const std::string outer = json{{"content", inner}}.dump();
    const auto decoded = json::parse(llm::detail::redact_body(outer, secrets));
    const auto text = json::parse(decoded["content"].get<std::string>())["text"].get<std::string>();
    EXPECT_EQ(text, "a [redacted] b") << style << " " << outer;
  }
  // The key as an object name, and escaped in raw text that is not JSON.
  const auto named = json::parse(
      llm::detail::redact_body("{\"" + escaped_key(1) + "\": 1, \"x\": \"\\/\"}", secrets));
  EXPECT_TRUE(named.contains("[redacted]")) << named.dump();
  EXPECT_EQ(llm::detail::redact_text("<p>" + escaped_key(0) + "</p>", secrets),
            "<p>[redacted]</p>");
  // A literal backslash-n in a key is matched as written, not as a newline.
  EXPECT_EQ(llm::detail::redact_text("k=abc\\nopqrs;", {"abc\\nopqrs"}), "k=[redacted];");
  // Short placeholders are left alone; text without the key is unchanged.
  EXPECT_EQ(llm::detail::redact_text("EMPTY EMPTY", {"EMPTY"}), "EMPTY EMPTY");
  EXPECT_EQ(llm::detail::redact_body("{\"a\": \"\\/x\"}", secrets), "{\"a\": \"\\/x\"}");
}

// A server that echoes the key in every answer, rotating the escape styles (and escaping every
// "/" of the body once more, as JSON allows): perturbation prompts get {"text": ...} holding the
// key, rating prompts a valid rating with the key in a note.
class EchoServer {
 public:
  EchoServer() {
    server_.new_task_queue = [] { return new httplib::ThreadPool(32); };
    server_.Post(".*", [this](const httplib::Request& req, httplib::Response& res) {
      const int n = count_++;
      const auto body = json::parse(req.body, nullptr, false);
      std::string prompt;
      if (!body.is_discarded() && body.contains("messages"))
        prompt = body["messages"][0]["content"].get<std::string>();
      const std::string key = escaped_key(n % 4);
      // The inner JSON is written by hand so that the key keeps its escapes.
      const std::string content = prompt.find("\"rating\"") != std::string::npos
                                      ? "{\"rating\": 3, \"note\": \"" + key + "\"}"
                                      : "{\"text\": \"Echo " + key + " of the text.\"}";
      std::string out = json{{"id", "x"},
                             {"object", "chat.completion"},
                             {"choices",
                              {{{"index", 0},
                                {"finish_reason", "stop"},
                                {"message", {{"role", "assistant"}, {"content", content}}}}}},
                             {"usage", {{"prompt_tokens", 1}, {"completion_tokens", 1}}}}
                            .dump();
      if (n % 2 == 1)
        for (std::size_t p = out.find('/'); p != std::string::npos; p = out.find('/', p + 2))
          out.replace(p, 1, "\\/");
      res.set_content(out, "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 5000 && !server_.is_running(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~EchoServer() {
    server_.stop();
    thread_.join();
  }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  int count() const { return count_; }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::atomic<int> count_{0};
};

void expect_no_key_in_files(const std::string& dir) {
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const std::string bytes = read_file(e.path().string());
    EXPECT_EQ(bytes.find(kTail), std::string::npos) << e.path();
  }
}

TEST(Redact, TheKeyReachesNoOutputOrCacheOfPerturbOrAudit) {
  EchoServer server;
  ::setenv("PROBITY_TEST_SLASH_KEY", kKey.c_str(), 1);
  const std::string dir = temp_dir("redact-cli");
  const std::string data = data_path("summeval/summeval_sample20.jsonl");
  const std::string llm = " --llm-base-url " + server.base_url() +
                          " --llm-model m --llm-api-key-env PROBITY_TEST_SLASH_KEY --cache " + dir +
                          "/llm-cache.sqlite";
  auto r = run_probity("perturb --data " + data + " --degrade O --manipulate none --perturber llm" +
                       llm + " --out " + dir + "/perturbed.jsonl");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(server.count(), 0);
  EXPECT_NE(read_file(dir + "/perturbed.jsonl").find("[redacted]"), std::string::npos);
  r = run_probity("audit --data " + data +
                  " --metric llm-judge --perturber llm --degrade O --manipulate none "
                  "--bootstrap 10 --out " +
                  dir + "/audit" + llm);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find(kTail), std::string::npos);
  EXPECT_EQ(r.err.find(kTail), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir + "/audit/report.json"));
  expect_no_key_in_files(dir);
  ::unsetenv("PROBITY_TEST_SLASH_KEY");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace probity::test
