#include "predict/llm_oracle.hpp"

#include <fmt/format.h>

#include <cmath>
#include <numbers>
#include <set>

#include "llm/schema.hpp"
#include "probity/signature.hpp"
#include "probity/text.hpp"

namespace probity::predict {
namespace {

std::string numbered(const std::vector<std::string_view>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += fmt::format("{}. {}\n", i + 1, items[i]);
  return out;
}

}  // namespace

LlmOracle::LlmOracle(LlmOracleOptions options, std::shared_ptr<llm::Session> session)
    : options_(std::move(options)),
      session_(std::move(session)),
      client_(&session_->client(options_.role)),
      critic_statement_(llm::load_prompt("oracle_critic_statement.v1", options_.prompts_dir)),
      critic_report_(llm::load_prompt("oracle_critic_report.v1", options_.prompts_dir)),
      ordinal_(llm::load_prompt("oracle_ordinal.v1", options_.prompts_dir)),
      batch_statements_(llm::load_prompt("oracle_batch_statements.v1", options_.prompts_dir)),
      batch_ordinal_(llm::load_prompt("oracle_batch_ordinal.v1", options_.prompts_dir)) {}

std::string LlmOracle::signature() const {
  // Batched and single prompts are different questions, so both the mode and every template
  // hash are part of the signature.
  return Signature("oracle:llm")
      .field("role", options_.role)
      .part(client_->signature())
      .field("batch", options_.batch ? "true" : "false")
      .field("reasks", options_.reasks)
      .field("prompts", llm::prompt_ids({&critic_statement_, &critic_report_, &ordinal_,
                                         &batch_statements_, &batch_ordinal_}))
      .format();
}

void LlmOracle::fit(std::span<const Task>, bool) {
  // Nothing to learn: the model is the oracle; the granularity was fixed at construction.
}

std::string LlmOracle::key(bool critic, std::string_view x, std::string_view y) {
  std::string k(critic ? "c" : "o");
  k += '\x1f';
  k += x;
  k += '\x1f';
  k += y;
  return k;
}

void LlmOracle::prefetch(std::span<const mi::TargetGroup> groups, bool critic) const {
  const bool stmt = options_.statement_targets;
  struct Job {
    std::string x;
    std::vector<std::string> ys;  // one pair, or a reference's statements (batch prompt)
    bool list = false;
  };
  std::vector<Job> jobs;
  {
    std::lock_guard lock(mutex_);
    std::set<std::string> seen;  // pairs already queued in this call
    for (const auto& g : groups) {
      if (text::is_blank(g.x)) continue;  // answered without asking (see lookup)
      std::vector<std::string> missing;
      for (auto y : g.targets) {
        std::string k = key(critic, g.x, y);
        if (memo_.count(k) || !seen.insert(k).second) continue;
        missing.emplace_back(y);
      }
      if (missing.empty()) continue;
      if (stmt && options_.batch && missing.size() > 1) {
        jobs.push_back({std::string(g.x), std::move(missing), true});
      } else {
        for (auto& y : missing) jobs.push_back({std::string(g.x), {std::move(y)}, false});
      }
    }
  }
  if (jobs.empty()) return;

  std::vector<std::string> prompts;
  prompts.reserve(jobs.size());
  for (const auto& job : jobs) {
    if (job.list) {
      std::vector<std::string_view> views(job.ys.begin(), job.ys.end());
      const auto& t = critic ? batch_statements_ : batch_ordinal_;
      prompts.push_back(t.render({{"candidate", job.x},
                                  {"statements", numbered(views)},
                                  {"count", std::to_string(job.ys.size())}}));
    } else if (critic) {
      prompts.push_back(
          stmt ? critic_statement_.render({{"candidate", job.x}, {"statement", job.ys[0]}})
               : critic_report_.render({{"candidate", job.x}, {"reference", job.ys[0]}}));
    } else {
      prompts.push_back(ordinal_.render({{"candidate", job.x}, {"target", job.ys[0]}}));
    }
  }
  // The parser turns every answer into a list of per-pair values (critic ±1 or level).
  auto parser = [&](std::size_t i, const nlohmann::json& j,
                    std::string& error) -> std::optional<nlohmann::json> {
    const Job& job = jobs[i];
    if (job.list) {
      const char* field = critic ? "supported" : "levels";
      if (!j.contains(field) || !j.at(field).is_array()) {
        error = fmt::format("the JSON object needs a \"{}\" list", field);
        return std::nullopt;
      }
      const auto& arr = j.at(field);
      if (arr.size() != job.ys.size()) {
        error =
            fmt::format("\"{}\" has {} entries for {} claims", field, arr.size(), job.ys.size());
        return std::nullopt;
      }
      nlohmann::json out = nlohmann::json::array();
      for (std::size_t e = 0; e < arr.size(); ++e) {
        nlohmann::json one{{"v", arr[e]}};
        std::string err;
        if (critic) {
          auto b = llm::get_bool_field(one, "v", err);
          if (!b) {
            error = fmt::format("claim {}: {}", e + 1, err);
            return std::nullopt;
          }
          out.push_back(*b ? 1 : -1);
        } else {
          auto lv = llm::get_int_field(one, "v", -3, 3, err);
          if (!lv) {
            error = fmt::format("claim {}: {}", e + 1, err);
            return std::nullopt;
          }
          out.push_back(*lv);
        }
      }
      return out;
    }
    if (critic) {
      auto b = llm::get_bool_field(j, stmt ? "supported" : "same", error);
      if (!b) return std::nullopt;
      return nlohmann::json::array({*b ? 1 : -1});
    }
    auto lv = llm::get_int_field(j, "level", -3, 3, error);
    if (!lv) return std::nullopt;
    return nlohmann::json::array({*lv});
  };
  // The shape each prompt asks for: per-claim lists of exactly the claims' count, or one value.
  auto schema = [&](std::size_t i) {
    namespace s = llm::schema;
    const Job& job = jobs[i];
    const nlohmann::json one = critic ? s::boolean() : s::integer(-3, 3);
    if (job.list)
      return s::object(
          {{critic ? "supported" : "levels", s::array(one, job.ys.size(), job.ys.size())}});
    return s::object({{critic ? (stmt ? "supported" : "same") : "level", one}});
  };
  auto answers = llm::ask_structured(*client_, prompts, schema, parser, options_.reasks);

  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& job = jobs[i];
    const auto& a = answers[i];
    if (!a.ok) failures_.add(a.error);
    for (std::size_t e = 0; e < job.ys.size(); ++e) {
      Result r;
      r.ok = a.ok;
      if (a.ok) {
        r.value = a.value.at(e).get<int>();
      } else {
        r.error = a.error;
      }
      memo_.emplace(key(critic, job.x, job.ys[e]), std::move(r));
    }
  }
}

const LlmOracle::Result& LlmOracle::lookup(bool critic, std::string_view x,
                                           std::string_view y) const {
  // An empty candidate supports nothing: "no", the lowest support level, without a request.
  static const Result kNo{true, -1, {}}, kLowest{true, -3, {}};
  if (text::is_blank(x)) return critic ? kNo : kLowest;
  const std::string k = key(critic, x, y);
  {
    std::lock_guard lock(mutex_);
    auto it = memo_.find(k);
    if (it != memo_.end()) return it->second;
  }
  // Not announced: ask it alone.
  mi::TargetGroup g{x, {y}};
  prefetch(std::span<const mi::TargetGroup>(&g, 1), critic);
  std::lock_guard lock(mutex_);
  return memo_.at(k);
}

double LlmOracle::log_ratio(std::string_view x, std::string_view y) const {
  const Result& r = lookup(false, x, y);
  if (!r.ok) throw mi::PredictionError(r.error);
  return r.value * std::numbers::ln2;
}

int LlmOracle::critic(std::string_view x, std::string_view y) const {
  const Result& r = lookup(true, x, y);
  if (!r.ok) throw mi::PredictionError(r.error);
  return r.value;
}

}  // namespace probity::predict
