#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "probity/llm.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

using llm::CacheMode;
using llm::ConfigError;
using llm::parse_config;

const char* kConfig = R"(# probity.toml
[llm]
cache = "llm-cache.sqlite"
cache_mode = "read-only"

[llm.default]
base_url = "http://127.0.0.1:8000/v1"
model = "qwen"
api_key_env = "VLLM_KEY"
concurrency = 32
timeout = 60
seed = 1234

[llm.judge]
model = "judge-model"
temperature = 0.5
max_tokens = 16
rpm = 500
tpm = 200000.5
max_attempts = 6
price_in = 0.15
price_out = 0.6

[llm.judge.extra_body]
top_p = 0.9
stop = ["\n\n"]

[llm.lm]
base_url = "http://gpu:8000/v1"
)";

TEST(LlmConfig, RolesInheritTheDefault) {
  const auto config = parse_config(kConfig, "probity.toml");
  EXPECT_EQ(config.cache_path, "llm-cache.sqlite");
  EXPECT_EQ(config.cache_mode, CacheMode::kReadOnly);
  const auto judge = config.endpoint("judge");
  EXPECT_EQ(judge.name, "judge");
  EXPECT_EQ(judge.base_url, "http://127.0.0.1:8000/v1");  // inherited
  EXPECT_EQ(judge.model, "judge-model");                  // own
  EXPECT_EQ(judge.api_key_env, "VLLM_KEY");
  EXPECT_EQ(judge.concurrency, 32u);
  EXPECT_DOUBLE_EQ(judge.timeout_s, 60);
  EXPECT_DOUBLE_EQ(judge.temperature.value(), 0.5);
  EXPECT_EQ(judge.max_tokens, 16);
  EXPECT_DOUBLE_EQ(judge.rpm, 500);
  EXPECT_DOUBLE_EQ(judge.tpm, 200000.5);
  EXPECT_EQ(judge.max_attempts, 6);
  EXPECT_EQ(judge.seed, 1234);
  EXPECT_DOUBLE_EQ(judge.price_in, 0.15);
  EXPECT_DOUBLE_EQ(judge.price_out, 0.6);
  const auto extra = nlohmann::json::parse(judge.extra_body);
  EXPECT_DOUBLE_EQ(extra["top_p"].get<double>(), 0.9);
  EXPECT_EQ(extra["stop"][0], "\n\n");
  const auto lm = config.endpoint("lm");
  EXPECT_EQ(lm.base_url, "http://gpu:8000/v1");
  EXPECT_EQ(lm.model, "qwen");
  EXPECT_TRUE(lm.extra_body.empty());
  const auto oracle = config.endpoint("oracle");  // no table: the default
  EXPECT_EQ(oracle.model, "qwen");
  EXPECT_EQ(oracle.name, "oracle");
  EXPECT_FALSE(config.has_role("oracle"));
  EXPECT_THROW(config.endpoint("critic"), UsageError);
}

// Flags alone must give every generating role a bounded answer and a reproducible seed (a judge
// once ran to 481 tokens a rating); lm and embedder set their own per request.
TEST(LlmConfig, RolesHaveDefaultMaxTokensAndSeedThatTablesOverride) {
  const auto none = parse_config("", "");
  for (const char* role :
       {"default", "judge", "oracle", "perturber", "decomposer", "attacker", "guard"}) {
    const auto c = none.endpoint(role);
    EXPECT_TRUE(c.max_tokens.has_value()) << role;
    EXPECT_EQ(c.seed, 0) << role;
    EXPECT_EQ(c.structured, llm::StructuredMode::kSchema) << role;
    EXPECT_EQ(c.server, llm::ServerKind::kAuto) << role;
  }
  EXPECT_EQ(none.endpoint("judge").max_tokens, 512);
  EXPECT_EQ(none.endpoint("attacker").max_tokens, 4096);
  EXPECT_FALSE(none.endpoint("lm").max_tokens);
  EXPECT_FALSE(none.endpoint("lm").seed);
  EXPECT_FALSE(none.endpoint("embedder").max_tokens);
  const auto config = parse_config(kConfig, "probity.toml");
  EXPECT_EQ(config.endpoint("judge").max_tokens, 16);     // its table
  EXPECT_EQ(config.endpoint("judge").seed, 1234);         // [llm.default]
  EXPECT_EQ(config.endpoint("oracle").max_tokens, 1024);  // built in
  // max_completion_tokens (reasoning models) replaces the built-in max_tokens.
  const auto reasoning = parse_config(
      "[llm.default]\nbase_url = \"http://h/v1\"\n[llm.judge]\nmax_completion_tokens = 4000\n", "");
  EXPECT_FALSE(reasoning.endpoint("judge").max_tokens);
  EXPECT_EQ(reasoning.endpoint("judge").max_completion_tokens, 4000);
  EXPECT_EQ(reasoning.endpoint("oracle").max_tokens, 1024);
}

TEST(LlmConfig, StructuredOutputModeAndServerPerRole) {
  const auto config = parse_config(R"([llm.default]
structured = "json"
server = "llamacpp"
[llm.judge]
structured = "off"
)",
                                   "p.toml");
  EXPECT_EQ(config.endpoint("judge").structured, llm::StructuredMode::kOff);
  EXPECT_EQ(config.endpoint("oracle").structured, llm::StructuredMode::kJson);
  EXPECT_EQ(config.endpoint("judge").server, llm::ServerKind::kLlamaCpp);
  try {
    parse_config("[llm.judge]\nstructured = \"grammar\"\n", "p.toml");
    FAIL() << "accepted an unknown mode";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.line(), 2u);
    EXPECT_EQ(e.key(), "llm.judge.structured");
    EXPECT_NE(std::string(e.what()).find("schema, json or off"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_config("[llm.judge]\nserver = \"tgi\"\n", "p.toml"), ConfigError);
  // The flags override [llm.default]; a role's own setting stays.
  auto flagged = config;
  llm::CliOverrides o;
  o.structured = llm::StructuredMode::kSchema;
  o.server = llm::ServerKind::kVllm;
  llm::apply_cli_overrides(flagged, o);
  EXPECT_EQ(flagged.endpoint("oracle").structured, llm::StructuredMode::kSchema);
  EXPECT_EQ(flagged.endpoint("judge").structured, llm::StructuredMode::kOff);
  EXPECT_EQ(flagged.endpoint("judge").server, llm::ServerKind::kVllm);
  EXPECT_EQ(llm::parse_structured_mode(llm::structured_mode_name(llm::StructuredMode::kJson)),
            llm::StructuredMode::kJson);
  EXPECT_EQ(llm::parse_server_kind(llm::server_kind_name(llm::ServerKind::kOllama)),
            llm::ServerKind::kOllama);
}

// Found by fuzz_config: a file without an [llm] table made the old parser (cpptoml) throw
// std::out_of_range.
TEST(LlmConfig, EmptyFileOrNoLlmTableIsAnEmptyConfiguration) {
  for (const char* text : {"", "# only a comment\n", "\n\n"}) {
    auto config = parse_config(text, "empty.toml");
    EXPECT_TRUE(config.endpoint("judge").base_url.empty()) << text;
    EXPECT_TRUE(config.cache_path.empty()) << text;
  }
}

TEST(LlmConfig, UnknownKeysNameFileLineAndKey) {
  const std::string text =
      "[llm.default]\nmodel = \"m\"\n\n[llm.judge]\nbase_url = \"x\"\nmodle = \"typo\"\n";
  try {
    parse_config(text, "conf/probity.toml");
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), "conf/probity.toml");
    EXPECT_EQ(e.line(), 6u);
    EXPECT_EQ(e.key(), "llm.judge.modle");
    EXPECT_NE(std::string(e.what()).find("conf/probity.toml:6: 'llm.judge.modle': unknown key"),
              std::string::npos)
        << e.what();
  }
  try {
    parse_config("[llm]\ncache = \"c\"\ncahce_mode = \"off\"\n", "p.toml");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.line(), 3u);
    EXPECT_EQ(e.key(), "llm.cahce_mode");
  }
  try {
    parse_config("[llm.critic]\nmodel = \"m\"\n", "p.toml");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.line(), 1u);
    EXPECT_NE(std::string(e.what()).find("unknown role"), std::string::npos);
  }
}

TEST(LlmConfig, ApiKeysAreRefusedWithoutRepeatingThem) {
  try {
    parse_config("[llm.default]\napi_key = \"sk-secret-in-file\"\n", "p.toml");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.line(), 2u);
    EXPECT_EQ(std::string(e.what()).find("sk-secret-in-file"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("api_key_env"), std::string::npos);
  }
}

TEST(LlmConfig, BadValuesAreErrors) {
  auto line_of = [](const std::string& text) -> std::size_t {
    try {
      parse_config(text, "p.toml");
    } catch (const ConfigError& e) {
      return e.line();
    }
    return 0;
  };
  EXPECT_EQ(line_of("[llm.default]\nconcurrency = 0\n"), 2u);
  EXPECT_EQ(line_of("[llm.default]\n\nconcurrency = 1000\n"), 3u);
  EXPECT_EQ(line_of("[llm.default]\nmodel = 3\n"), 2u);
  EXPECT_EQ(line_of("[llm.default]\ntemperature = \"hot\"\n"), 2u);
  EXPECT_EQ(line_of("[llm.default]\ntimeout = 0\n"), 2u);
  EXPECT_EQ(line_of("[llm]\ncache_mode = \"sometimes\"\n"), 2u);
  // A TOML syntax error keeps the parser's line.
  EXPECT_EQ(line_of("[llm.default]\nmodel = \"m\"\nbroken = = 3\n"), 3u);
}

TEST(LlmConfig, CommandLineOverridesTheDefaultRole) {
  auto config = parse_config(kConfig, "probity.toml");
  llm::CliOverrides o;
  o.base_url = "http://remote/v1";
  o.model = "cli-model";
  o.concurrency = 8;
  o.api_key_env = "OTHER_KEY";
  o.cache = "/tmp/elsewhere.sqlite";
  o.cache_mode = "refresh";
  llm::apply_cli_overrides(config, o);
  const auto def = config.endpoint("default");
  EXPECT_EQ(def.base_url, "http://remote/v1");
  EXPECT_EQ(def.model, "cli-model");
  EXPECT_EQ(def.concurrency, 8u);
  EXPECT_EQ(def.api_key_env, "OTHER_KEY");
  EXPECT_EQ(config.endpoint("oracle").model, "cli-model");   // inherits
  EXPECT_EQ(config.endpoint("judge").model, "judge-model");  // its own setting stays
  EXPECT_EQ(config.endpoint("lm").base_url, "http://gpu:8000/v1");
  EXPECT_EQ(config.cache_path, "/tmp/elsewhere.sqlite");
  EXPECT_EQ(config.cache_mode, CacheMode::kRefresh);
  o = {};
  o.concurrency = 0;
  EXPECT_THROW(llm::apply_cli_overrides(config, o), UsageError);

  llm::LlmConfig empty;  // no file at all: the command line alone
  llm::CliOverrides only;
  only.base_url = "http://x/v1";
  llm::apply_cli_overrides(empty, only);
  EXPECT_EQ(empty.endpoint("judge").base_url, "http://x/v1");
  EXPECT_EQ(empty.open_cache(), nullptr);
}

// Anything outside [llm] is a mistake: docs/cluster.md once put `cache` at the top level, where
// it was never read, so shards shared no cache.
TEST(LlmConfig, KeysOutsideTheLlmTableAreErrorsNamingTheLine) {
  try {
    parse_config("# shards share one cache\ncache = \"/run/c.sqlite\"\n\n[llm.default]\n",
                 "p.toml");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.line(), 2u);
    EXPECT_EQ(e.key(), "cache");
    EXPECT_NE(std::string(e.what()).find("belongs in the [llm] table"), std::string::npos)
        << e.what();
  }
  try {
    parse_config("[llm]\n\n[metrics]\nx = 1\n", "p.toml");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.line(), 3u);
    EXPECT_NE(std::string(e.what()).find("unknown table"), std::string::npos);
  }
}

TEST(LlmConfig, ReasoningModelsHeadersAndCachedPrices) {
  const auto config = parse_config(R"([llm.judge]
model = "gpt-5-mini"
temperature = "default"
max_completion_tokens = 2000
price_in = 0.25
price_cached_in = 0.025
price_out = 2.0
rate_limit_budget = 1200

[llm.judge.headers]
OpenAI-Project = "proj_123"
api-key = "azure-secret-value"
)",
                                   "p.toml");
  const auto judge = config.endpoint("judge");
  EXPECT_FALSE(judge.temperature.has_value());  // not sent at all
  EXPECT_EQ(judge.max_completion_tokens, 2000);
  EXPECT_FALSE(judge.max_tokens.has_value());
  EXPECT_EQ(judge.price_cached_in, 0.025);
  EXPECT_DOUBLE_EQ(judge.rate_limit_budget_s, 1200);
  ASSERT_EQ(judge.headers.size(), 2u);
  EXPECT_EQ(config.endpoint("oracle").temperature, 0.0);  // others keep the default

  auto line_of = [](const std::string& text, std::string& what) -> std::size_t {
    try {
      parse_config(text, "p.toml");
    } catch (const ConfigError& e) {
      what = e.what();
      return e.line();
    }
    return 0;
  };
  std::string what;
  EXPECT_EQ(line_of("[llm.judge]\nmax_tokens = 5\nmax_completion_tokens = 5\n", what), 3u);
  // A CR/LF in a header value would inject a header; the value is never repeated.
  EXPECT_EQ(line_of("[llm.judge.headers]\nX-Key = \"secret-value\\r\\nX-Evil: 1\"\n", what), 2u);
  EXPECT_NE(what.find("control character"), std::string::npos) << what;
  EXPECT_EQ(what.find("secret-value"), std::string::npos) << what;
  EXPECT_EQ(line_of("[llm.judge.headers]\nAuthorization = \"Bearer x\"\n", what), 2u);
  EXPECT_NE(what.find("api_key_env"), std::string::npos) << what;
  // extra_body cannot replace what probity sends (an echo turned off under a log-prob metric).
  EXPECT_EQ(line_of("[llm.lm.extra_body]\necho = false\n", what), 2u);
  EXPECT_NE(what.find("set by probity"), std::string::npos) << what;
  EXPECT_EQ(line_of("[llm.lm.extra_body]\nmax_tokens = 3\n", what), 2u);
  EXPECT_NE(what.find("set max_tokens in the role's table"), std::string::npos) << what;
}

// 100k nested tables, inline tables or dotted keys crashed the parser (and
// toml++, which bounds only inline nesting, still overflows on dotted keys).
TEST(LlmConfig, DeepNestingIsAnErrorNamingTheLine) {
  const std::size_t n = 100000;
  std::string dotted, inline_tables, arrays;
  for (std::size_t i = 0; i < n; ++i) dotted += "a.";
  for (std::size_t i = 0; i < n; ++i) inline_tables += "{a=";
  inline_tables += "1" + std::string(n, '}');
  arrays = std::string(n, '[') + std::string(n, ']');
  struct Case {
    std::string text;
    std::size_t line;
  };
  for (const Case& c :
       std::vector<Case>{{"[" + dotted + "a]\n", 1},
                         {"[llm]\n" + dotted + "a = 1\n", 2},
                         {"[llm.judge]\nmodel = \"m\"\nextra_body = " + inline_tables + "\n", 3},
                         {"[llm.judge.extra_body]\nstop = " + arrays + "\n", 2},
                         {"[llm.judge.extra_body]\nstop = [\n" + std::string(n, '[') + "\n", 3},
                         {std::string(n, '[') + "\n", 1}}) {
    try {
      parse_config(c.text, "deep.toml");
      FAIL() << c.text.substr(0, 40);
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.line(), c.line) << c.text.substr(0, 40);
      EXPECT_NE(std::string(e.what()).find("nested deeper than 128 levels"), std::string::npos)
          << e.what();
      EXPECT_LT(std::string(e.what()).size(), 200u);
    }
  }
  // What is counted: brackets and dots outside strings and comments; commas and line breaks
  // start the next key or value.
  std::string wide = "[llm.judge.extra_body]\nweights = [";
  for (int i = 0; i < 1000; ++i) wide += "1.5, ";
  wide += "2.5]\nnote = \"" + std::string(1000, '.') + std::string(1000, '[') + "\"\n";
  wide += "raw = '''" + std::string(1000, '{') + "'''\n# " + std::string(1000, '.') + "\n";
  for (int i = 0; i < 1000; ++i) wide += "k" + std::to_string(i) + ".x.y = 1\n";
  const auto config = parse_config(wide, "wide.toml");
  const auto body = nlohmann::json::parse(config.endpoint("judge").extra_body);
  EXPECT_EQ(body["weights"].size(), 1001u);
  EXPECT_EQ(body["k999"]["x"]["y"], 1);
  std::string nested_body = "[llm.judge.extra_body]\nx = ";
  for (int i = 0; i < 100; ++i) nested_body += "{a=";
  nested_body += "1" + std::string(100, '}') + "\n";
  EXPECT_NO_THROW(parse_config(nested_body, "ok.toml"));
}

// The fuzzer's seeds (tests/fuzz/corpus/config) in the normal build too: each one loads or is a
// ConfigError naming its file, and none crashes (deep nesting did).
TEST(LlmConfig, FuzzSeedsLoadOrNameTheFile) {
  std::size_t seeds = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(PROBITY_TEST_DIR) + "/fuzz/corpus/config")) {
    ++seeds;
    try {
      (void)llm::load_config(entry.path().string());
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.file(), entry.path().string());
      EXPECT_LT(std::string(e.what()).size(), 1000u) << entry.path();
    }
  }
  EXPECT_GE(seeds, 10u);
}

// NUL bytes and invalid UTF-8, which TOML forbids, were accepted.
TEST(LlmConfig, NulBytesAndInvalidUtf8AreErrorsNamingTheLine) {
  using namespace std::string_literals;
  for (const std::string& text :
       {"[llm]\ncache = \"a\0b\"\n"s, "[llm]\ncache = \"a\"\0garbage\n"s, "[llm]\n# \0\n"s,
        "[llm]\ncache = \"a\xff"
        "b\"\n"s,
        "[llm]\ncache = 'caf\xc3\x28'\n"s}) {
    try {
      parse_config(text, "bad.toml");
      FAIL() << text;
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.file(), "bad.toml");
      EXPECT_EQ(e.line(), 2u) << e.what();
    }
  }
}

// flags > configuration > environment (the OpenAI client conventions).
TEST(LlmConfig, OpenAiEnvironmentFillsWhatFlagsAndConfigLeaveOpen) {
  std::map<std::string, std::string> env = {{"OPENAI_BASE_URL", "http://env-host/v1"},
                                            {"OPENAI_API_KEY", "sk-from-env-1234"},
                                            {"OPENAI_MODEL", "env-model"}};
  auto getenv = [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  llm::LlmConfig none;
  llm::apply_environment(none, getenv);
  auto d = none.endpoint("judge");
  EXPECT_EQ(d.base_url, "http://env-host/v1");
  EXPECT_EQ(d.model, "env-model");
  EXPECT_EQ(d.api_key_env, "OPENAI_API_KEY");  // by name: the value stays in the environment
  EXPECT_TRUE(llm::environment_names_endpoint(getenv));

  auto config = parse_config("[llm.default]\nmodel = \"file-model\"\n", "p.toml");
  llm::CliOverrides o;
  o.base_url = "http://flag-host/v1";
  llm::apply_cli_overrides(config, o);
  llm::apply_environment(config, getenv);
  d = config.endpoint("default");
  EXPECT_EQ(d.base_url, "http://flag-host/v1");  // the flag
  EXPECT_EQ(d.model, "file-model");              // the file
  EXPECT_EQ(d.api_key_env, "OPENAI_API_KEY");    // the environment

  env.clear();
  EXPECT_FALSE(llm::environment_names_endpoint(getenv));
}

TEST(LlmConfig, LoadsAFileAndOpensTheCache) {
  const std::string dir = temp_dir("llm-config");
  const std::string path = dir + "/probity.toml";
  std::ofstream(path) << "[llm]\ncache = \"" << dir
                      << "/c.sqlite\"\n[llm.default]\nbase_url = \"http://h/v1\"\n";
  const auto config = llm::load_config(path);
  EXPECT_EQ(config.path, path);
  EXPECT_EQ(config.endpoint("judge").base_url, "http://h/v1");
  auto cache = config.open_cache();
  ASSERT_NE(cache, nullptr);
  EXPECT_EQ(cache->mode(), CacheMode::kReadWrite);
  EXPECT_THROW(llm::load_config(dir + "/missing.toml"), ConfigError);
  EXPECT_EQ(llm::parse_cache_mode("read-write"), CacheMode::kReadWrite);
  EXPECT_EQ(llm::cache_mode_name(CacheMode::kOff), "off");
}

// examples/probity.toml, the file docs/recipes.md passes with --config, loads as shipped and sets
// what its comments say.
TEST(LlmConfig, ShippedExampleLoads) {
  const auto config = llm::load_config(std::string(PROBITY_SOURCE_DIR) + "/examples/probity.toml");
  EXPECT_EQ(config.cache_path, "llm-cache.sqlite");
  EXPECT_EQ(config.cache_mode, CacheMode::kReadWrite);
  for (const char* role : {"default", "judge", "oracle", "perturber", "lm"})
    EXPECT_TRUE(config.has_role(role)) << role;
  const auto judge = config.endpoint("judge");
  EXPECT_EQ(judge.base_url, "http://127.0.0.1:8000/v1");  // inherited from [llm.default]
  EXPECT_EQ(judge.model, "meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_EQ(judge.api_key_env, "VLLM_API_KEY");
  EXPECT_EQ(config.endpoint("lm").base_url, "http://127.0.0.1:8001/v1");
  EXPECT_EQ(config.endpoint("lm").model, "meta-llama/Llama-3.1-8B");
}

}  // namespace
}  // namespace probity::test
