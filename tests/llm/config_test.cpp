#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "probity/llm.hpp"
#include "test_paths.hpp"

namespace probity::test {
namespace {

using llm::CacheMode;
using llm::ConfigError;
using llm::parse_config;

const char* kConfig = R"(# probity.toml
[metrics]
anything = "other sections belong to other parts of probity"

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
  EXPECT_DOUBLE_EQ(judge.temperature, 0.5);
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
  // A TOML syntax error keeps cpptoml's line.
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

}  // namespace
}  // namespace probity::test
