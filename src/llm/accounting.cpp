// Per-endpoint usage: requests, cache hits, retries, failures by kind, tokens, time and cost.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "probity/llm.hpp"

namespace probity::llm {

namespace {

void merge(EndpointUsage& into, const EndpointUsage& delta) {
  into.answers += delta.answers;
  into.requests += delta.requests;
  into.cache_hits += delta.cache_hits;
  into.retries += delta.retries;
  for (const auto& [kind, n] : delta.failures) into.failures[kind] += n;
  for (const auto& [kind, messages] : delta.failure_examples) {
    auto& kept = into.failure_examples[kind];
    for (const auto& m : messages)
      if (kept.size() < 3 && std::find(kept.begin(), kept.end(), m) == kept.end())
        kept.push_back(m);
  }
  into.questions += delta.questions;
  into.reasks += delta.reasks;
  into.unparsed += delta.unparsed;
  into.unstructured += delta.unstructured;
  for (const auto& [check, n] : delta.rejected_by_check) into.rejected_by_check[check] += n;
  if (into.structured_rejection.empty()) into.structured_rejection = delta.structured_rejection;
  if (into.structured.empty()) into.structured = delta.structured;
  into.tokens_in += delta.tokens_in;
  into.tokens_out += delta.tokens_out;
  into.tokens_cached_in += delta.tokens_cached_in;
  into.wall_s += delta.wall_s;
  into.cost_usd += delta.cost_usd;
  into.batch_requests += delta.batch_requests;
  into.batches += delta.batches;
  into.batch_polls += delta.batch_polls;
  into.batch_tokens_in += delta.batch_tokens_in;
  into.batch_tokens_out += delta.batch_tokens_out;
  into.batch_cost_usd += delta.batch_cost_usd;
  into.batch_online_cost_usd += delta.batch_online_cost_usd;
}

std::uint64_t failed(const EndpointUsage& u) {
  std::uint64_t n = 0;
  for (const auto& [kind, count] : u.failures) n += count;
  return n;
}

nlohmann::json to_json_object(const EndpointUsage& u, bool with_endpoint) {
  nlohmann::json j;
  if (with_endpoint) {
    j["endpoint"] = u.endpoint;
    j["model"] = u.model;
    j["price_in_per_mtok"] = u.price_in;
    j["price_out_per_mtok"] = u.price_out;
    j["price_cached_in_per_mtok"] = u.price_cached_in.value_or(u.price_in);
  }
  j["answers"] = u.answers;
  j["requests"] = u.requests;
  j["cache_hits"] = u.cache_hits;
  j["retries"] = u.retries;
  j["failed"] = failed(u);
  j["failures"] = nlohmann::json::object();
  for (const auto& [kind, n] : u.failures) j["failures"][kind] = n;
  if (!u.failure_examples.empty()) {
    j["failure_examples"] = nlohmann::json::object();
    for (const auto& [kind, messages] : u.failure_examples) j["failure_examples"][kind] = messages;
  }
  j["questions"] = u.questions;
  j["reasks"] = u.reasks;
  j["unparsed"] = u.unparsed;
  if (with_endpoint) j["structured"] = u.structured;
  j["rejected_by_check"] = nlohmann::json::object();
  for (const auto& [check, n] : u.rejected_by_check) j["rejected_by_check"][check] = n;
  j["unstructured"] = u.unstructured;
  if (!u.structured_rejection.empty()) j["structured_rejection"] = u.structured_rejection;
  j["tokens_in"] = u.tokens_in;
  j["tokens_out"] = u.tokens_out;
  j["tokens_cached_in"] = u.tokens_cached_in;
  j["wall_s"] = u.wall_s;
  j["cost_usd"] = u.cost_usd;
  if (u.batches > 0 || u.batch_requests > 0) {
    j["batch"] = {{"requests", u.batch_requests},
                  {"batches", u.batches},
                  {"polls", u.batch_polls},
                  {"tokens_in", u.batch_tokens_in},
                  {"tokens_out", u.batch_tokens_out},
                  {"cost_usd", u.batch_cost_usd},
                  {"online_cost_usd", u.batch_online_cost_usd}};
    if (with_endpoint) {
      j["batch"]["price_in_per_mtok"] = u.price_batch_in.value_or(u.price_in / 2);
      j["batch"]["price_out_per_mtok"] = u.price_batch_out.value_or(u.price_out / 2);
    }
  }
  return j;
}

}  // namespace

void Accounting::register_endpoint(const EndpointConfig& config) {
  std::lock_guard lock(mutex_);
  EndpointUsage& u = by_endpoint_[{config.name, config.model}];
  u.endpoint = config.name;
  u.model = config.model;
  u.price_in = config.price_in;
  u.price_out = config.price_out;
  u.price_cached_in = config.price_cached_in;
  u.price_batch_in = config.price_batch_in;
  u.price_batch_out = config.price_batch_out;
  u.structured = structured_mode_name(config.structured);
}

void Accounting::add(const std::string& endpoint, const std::string& model,
                     const EndpointUsage& delta) {
  std::lock_guard lock(mutex_);
  EndpointUsage& u = by_endpoint_[{endpoint, model}];
  u.endpoint = endpoint;
  u.model = model;
  EndpointUsage priced = delta;
  // Tokens answered through a batch are billed at the batch prices (half the online ones unless
  // configured); of the rest, cached prompt tokens at their own rate when one is configured.
  const std::uint64_t batch_in = std::min(delta.batch_tokens_in, delta.tokens_in);
  const std::uint64_t batch_out = std::min(delta.batch_tokens_out, delta.tokens_out);
  const std::uint64_t online_in = delta.tokens_in - batch_in;
  const std::uint64_t cached = std::min(delta.tokens_cached_in, online_in);
  priced.batch_cost_usd =
      (static_cast<double>(batch_in) * u.price_batch_in.value_or(u.price_in / 2) +
       static_cast<double>(batch_out) * u.price_batch_out.value_or(u.price_out / 2)) /
      1e6;
  priced.batch_online_cost_usd =
      (static_cast<double>(batch_in) * u.price_in + static_cast<double>(batch_out) * u.price_out) /
      1e6;
  priced.cost_usd = (static_cast<double>(online_in - cached) * u.price_in +
                     static_cast<double>(cached) * u.price_cached_in.value_or(u.price_in) +
                     static_cast<double>(delta.tokens_out - batch_out) * u.price_out) /
                        1e6 +
                    priced.batch_cost_usd;
  merge(u, priced);
}

std::vector<EndpointUsage> Accounting::endpoints() const {
  std::lock_guard lock(mutex_);
  std::vector<EndpointUsage> out;
  out.reserve(by_endpoint_.size());
  for (const auto& [key, u] : by_endpoint_) out.push_back(u);
  return out;
}

EndpointUsage Accounting::total() const {
  EndpointUsage t;
  t.endpoint = "total";
  for (const auto& u : endpoints()) merge(t, u);
  return t;
}

std::string Accounting::summary() const {
  const auto rows = endpoints();
  std::string out = fmt::format(
      "{:<12} {:<24} {:>8} {:>9} {:>8} {:>8} {:>7} {:>9} {:>7} {:>9} {:>11} {:>11} {:>9} "
      "{:>10}\n",
      "endpoint", "model", "answers", "requests", "cached", "retries", "failed", "questions",
      "reasks", "unparsed", "tokens in", "tokens out", "wall s", "cost USD");
  auto line = [&](const EndpointUsage& u) {
    out += fmt::format(
        "{:<12} {:<24} {:>8} {:>9} {:>8} {:>8} {:>7} {:>9} {:>7} {:>9} {:>11} {:>11} {:>9.2f} "
        "{:>10.4f}\n",
        u.endpoint, u.model, u.answers, u.requests, u.cache_hits, u.retries, failed(u), u.questions,
        u.reasks, u.unparsed, u.tokens_in, u.tokens_out, u.wall_s, u.cost_usd);
  };
  for (const auto& u : rows) line(u);
  if (rows.size() > 1) line(total());
  for (const auto& u : rows)
    if (u.unstructured > 0)
      out += fmt::format(
          "structured output {}/{}: the server rejected it ({}); {} request{} sent without it\n",
          u.endpoint, u.model, u.structured_rejection, u.unstructured,
          u.unstructured == 1 ? " was" : "s were");
  for (const auto& u : rows)
    if (u.batches > 0 || u.batch_requests > 0)
      out += fmt::format(
          "batch {}/{}: {} of the requests answered through {} batch{} ({} poll{}), {} tokens in, "
          "{} out: {:.4f} USD at the batch prices, {:.4f} USD online\n",
          u.endpoint, u.model, u.batch_requests, u.batches, u.batches == 1 ? "" : "es",
          u.batch_polls, u.batch_polls == 1 ? "" : "s", u.batch_tokens_in, u.batch_tokens_out,
          u.batch_cost_usd, u.batch_online_cost_usd);
  for (const auto& u : rows) {
    if (u.rejected_by_check.empty()) continue;
    std::string checks;
    for (const auto& [check, n] : u.rejected_by_check)
      checks += fmt::format("{}{} {}", checks.empty() ? "" : ", ", check, n);
    out += fmt::format("unparsed {}/{} that failed a content check: {}\n", u.endpoint, u.model,
                       checks);
  }
  for (const auto& u : rows) {
    if (u.failures.empty()) continue;
    std::string kinds;
    for (const auto& [kind, n] : u.failures)
      kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", kind, n);
    out += fmt::format("failures {}/{}: {}\n", u.endpoint, u.model, kinds);
    for (const auto& [kind, messages] : u.failure_examples)
      for (const auto& m : messages) out += fmt::format("  {}: {}\n", kind, m);
  }
  return out;
}

std::string Accounting::to_json() const {
  nlohmann::json j;
  j["endpoints"] = nlohmann::json::array();
  for (const auto& u : endpoints()) j["endpoints"].push_back(to_json_object(u, true));
  j["total"] = to_json_object(total(), false);
  return j.dump(2);
}

}  // namespace probity::llm
