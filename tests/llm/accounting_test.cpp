#include <gtest/gtest.h>

#include "llm/llm_test_util.hpp"
#include "llm/mock_server.hpp"
#include "probity/llm.hpp"

namespace probity::test {
namespace {

using llm::Accounting;
using llm::Client;
using llm::ClientOptions;
using nlohmann::json;

TEST(LlmAccounting, UsageTokensAndCost) {
  MockServer server;
  server.set_handler([](const json&) { return "three word answer"; });
  Accounting accounting;
  auto config = mock_endpoint(server, "judge");
  config.price_in = 2.0;    // USD per 1M input tokens
  config.price_out = 10.0;  // USD per 1M output tokens
  ClientOptions options;
  options.accounting = &accounting;
  Client client(config, options);
  server.push_fault(MockFault::http(503));
  std::vector<llm::Request> requests;
  for (int i = 0; i < 10; ++i)
    requests.push_back(chat_request("four words prompt " + std::to_string(i)));
  for (const auto& r : client.run(requests)) ASSERT_TRUE(r.ok) << r.error;
  server.push_fault(MockFault::http(401));
  EXPECT_FALSE(client.call(chat_request("x")).ok);

  const auto rows = accounting.endpoints();
  ASSERT_EQ(rows.size(), 1u);
  const auto& u = rows[0];
  EXPECT_EQ(u.endpoint, "judge");
  EXPECT_EQ(u.model, "mock-model");
  EXPECT_EQ(u.answers, 11u);
  EXPECT_EQ(u.requests, 12u);  // 10 + 1 retry + 1 failed
  EXPECT_EQ(u.retries, 1u);
  EXPECT_EQ(u.failures.at("auth"), 1u);
  EXPECT_EQ(u.tokens_in, 40u);
  EXPECT_EQ(u.tokens_out, 30u);
  EXPECT_DOUBLE_EQ(u.cost_usd, (40 * 2.0 + 30 * 10.0) / 1e6);
  EXPECT_GT(u.wall_s, 0.0);

  const json j = json::parse(accounting.to_json());
  ASSERT_EQ(j["endpoints"].size(), 1u);
  EXPECT_EQ(j["endpoints"][0]["endpoint"], "judge");
  EXPECT_EQ(j["endpoints"][0]["tokens_in"], 40);
  EXPECT_EQ(j["endpoints"][0]["failed"], 1);
  EXPECT_EQ(j["endpoints"][0]["failures"]["auth"], 1);
  EXPECT_DOUBLE_EQ(j["total"]["cost_usd"].get<double>(), u.cost_usd);

  const std::string table = accounting.summary();
  EXPECT_NE(table.find("judge"), std::string::npos);
  EXPECT_NE(table.find("mock-model"), std::string::npos);
  EXPECT_NE(table.find("failures judge/mock-model: auth 1\n  auth: HTTP 401: mock fault: HTTP 401"),
            std::string::npos)
      << table;
}

TEST(LlmAccounting, SharedAcrossEndpointsWithATotal) {
  MockServer server;
  Accounting accounting;
  ClientOptions options;
  options.accounting = &accounting;
  auto judge = mock_endpoint(server, "judge");
  judge.price_out = 1e6;  // one dollar per output token
  auto oracle = mock_endpoint(server, "oracle");
  oracle.model = "other-model";
  oracle.price_in = 1e6;
  Client a(judge, options), b(oracle, options);
  a.call(chat_request("one two"));
  b.call(chat_request("one two three"));
  const auto rows = accounting.endpoints();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].endpoint, "judge");
  EXPECT_DOUBLE_EQ(rows[0].cost_usd, 1.0);  // "ok"
  EXPECT_DOUBLE_EQ(rows[1].cost_usd, 3.0);
  const auto total = accounting.total();
  EXPECT_EQ(total.answers, 2u);
  EXPECT_EQ(total.tokens_in, 5u);
  EXPECT_DOUBLE_EQ(total.cost_usd, 4.0);
  EXPECT_NE(accounting.summary().find("total"), std::string::npos);
}

}  // namespace
}  // namespace probity::test
