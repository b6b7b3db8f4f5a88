// Metrics computed by the user's own scorer, outside probity, over the probity-score/1 protocol
// (docs/external-scorers.md): `exec:COMMAND` (a persistent process speaking JSON lines on its
// stdin and stdout, started lazily through /bin/sh -c) and `http:URL` / `https:URL` (a POST of
// the same body). Unlike a scores: file they score any text, so they can be audited, attacked and
// used by `probity score`. The signature is the command or URL and the user's version= string,
// which the user bumps when the scorer changes: the audit's cache is keyed by it.
#include "metrics/external_scorer.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "llm/http_post.hpp"
#include "metrics/builtin.hpp"
#include "probity/error.hpp"
#include "probity/signature.hpp"
#include "util/line_process.hpp"

namespace probity::metrics {

std::string score_request(std::span<const MetricInput> inputs) {
  nlohmann::ordered_json items = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const MetricInput& in = inputs[i];
    nlohmann::ordered_json refs = nlohmann::ordered_json::array();
    for (auto r : in.references) refs.push_back(std::string(r));
    items.push_back({{"id", i},
                     {"candidate", std::string(in.candidate)},
                     {"references", std::move(refs)},
                     {"source", std::string(in.source)}});
  }
  nlohmann::ordered_json body = {{"protocol", kScoreProtocol}, {"items", std::move(items)}};
  // Invalid UTF-8 in a text becomes U+FFFD rather than stopping the run.
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {

std::string excerpt(std::string_view text, std::size_t max = 200) {
  if (text.size() <= max) return std::string(text);
  return fmt::format("{}… ({} bytes)", text.substr(0, max), text.size());
}

}  // namespace

ScoreAnswer parse_score_answer(std::string_view text, std::size_t expected, std::string_view who) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(fmt::format(
        "{} answered with malformed JSON at byte {}: {}{} (answer: {})", who, e.byte, e.what(),
        text.find("NaN") != std::string_view::npos
            ? "; NaN is not JSON: write null for an undefined score"
            : "",
        excerpt(text)));
  }
  if (!j.is_object())
    throw std::runtime_error(fmt::format(
        "{} answered with a JSON {}, not an object with \"scores\"", who, j.type_name()));
  if (auto e = j.find("error"); e != j.end() && !j.contains("scores"))
    throw std::runtime_error(fmt::format("{} reported an error: {}", who,
                                         e->is_string() ? e->get<std::string>() : e->dump()));
  auto s = j.find("scores");
  if (s == j.end())
    throw std::runtime_error(
        fmt::format("{} answered without the field \"scores\": {}", who, excerpt(text)));
  if (!s->is_array())
    throw std::runtime_error(
        fmt::format("{} answered \"scores\" as a JSON {}, not an array", who, s->type_name()));
  if (s->size() != expected)
    throw std::runtime_error(
        fmt::format("{} answered {} score{} for {} item{} (one per item, in the order sent)", who,
                    s->size(), s->size() == 1 ? "" : "s", expected, expected == 1 ? "" : "s"));
  ScoreAnswer a;
  a.scores.resize(expected, std::numeric_limits<double>::quiet_NaN());
  a.errors.resize(expected);
  for (std::size_t i = 0; i < expected; ++i) {
    const auto& v = (*s)[i];
    if (v.is_number())
      a.scores[i] = v.get<double>();
    else if (!v.is_null())
      throw std::runtime_error(
          fmt::format("{} answered scores[{}] as a JSON {} ({}), not a number "
                      "or null",
                      who, i, v.type_name(), excerpt(v.dump(), 60)));
  }
  if (auto e = j.find("errors"); e != j.end() && !e->is_null()) {
    if (!e->is_array() || e->size() != expected)
      throw std::runtime_error(fmt::format(
          "{} answered \"errors\" that is not an array of {} strings or nulls", who, expected));
    for (std::size_t i = 0; i < expected; ++i) {
      const auto& v = (*e)[i];
      if (v.is_string())
        a.errors[i] = v.get<std::string>();
      else if (!v.is_null())
        throw std::runtime_error(fmt::format(
            "{} answered errors[{}] as a JSON {}, not a string or null", who, i, v.type_name()));
    }
  }
  return a;
}

namespace {

// The item statistics: [score, reason]. reason indexes the metric's list of reasons an item is
// undefined (0: none given).
class ExternalMetric : public Metric {
 public:
  ExternalMetric(std::string name, std::string signature, std::size_t batch, bool references)
      : name_(std::move(name)),
        signature_(std::move(signature)),
        batch_(batch),
        references_(references) {}

  std::string name() const override { return name_; }
  std::string signature() const override { return signature_; }
  std::size_t num_stats() const override { return 2; }
  bool needs_references() const override { return references_; }
  std::size_t batch_size() const override { return batch_; }
  CorpusAggregation corpus_aggregation() const override { return CorpusAggregation::kMeanScores; }
  void sentence_score(std::span<const double> stats, std::span<double> parts) const override {
    parts[0] = stats[0];
  }
  std::string undefined_reason(std::span<const double> stats) const override {
    std::lock_guard lock(mutex_);
    const auto k = static_cast<std::size_t>(stats[1]);
    return k > 0 && k < reasons_.size() ? reasons_[k] : "the scorer answered null";
  }

  void prefetch(std::span<const MetricInput> inputs) const override {
    std::vector<std::pair<double, double>> values = ask(inputs);
    std::lock_guard lock(mutex_);
    memo_.clear();
    for (std::size_t i = 0; i < inputs.size(); ++i) memo_[key(inputs[i])] = values[i];
  }
  void item_stats(const MetricInput& input, std::span<double> stats) const override {
    {
      std::lock_guard lock(mutex_);
      if (auto it = memo_.find(key(input)); it != memo_.end()) {
        stats[0] = it->second.first;
        stats[1] = it->second.second;
        return;
      }
    }
    auto v = ask(std::span<const MetricInput>(&input, 1));
    stats[0] = v[0].first;
    stats[1] = v[0].second;
  }

 protected:
  // One request body in, one answer body out; throws std::runtime_error naming what happened.
  virtual std::string exchange(const std::string& body) const = 0;

 private:
  static std::string key(const MetricInput& in) {
    std::string k(in.candidate);
    k += '\x1f';
    k += in.source;
    for (auto r : in.references) {
      k += '\x1e';
      k += r;
    }
    return k;
  }

  std::vector<std::pair<double, double>> ask(std::span<const MetricInput> inputs) const {
    std::vector<std::pair<double, double>> out;
    for (std::size_t begin = 0; begin < inputs.size(); begin += batch_) {
      const auto chunk = inputs.subspan(begin, std::min(batch_, inputs.size() - begin));
      std::string answer;
      {
        std::lock_guard lock(exchange_mutex_);  // one exchange at a time per scorer
        answer = exchange(score_request(chunk));
      }
      ScoreAnswer a = parse_score_answer(answer, chunk.size(), fmt::format("metric '{}'", name_));
      std::lock_guard lock(mutex_);
      for (std::size_t i = 0; i < chunk.size(); ++i) {
        double reason = 0;
        if (std::isnan(a.scores[i]) && !a.errors[i].empty()) {
          auto [it, fresh] = reason_ids_.emplace(a.errors[i], reasons_.size());
          if (fresh) reasons_.push_back("the scorer answered null: " + a.errors[i]);
          reason = static_cast<double>(it->second);
        }
        out.emplace_back(a.scores[i], reason);
      }
    }
    return out;
  }

  std::string name_, signature_;
  std::size_t batch_;
  bool references_;
  mutable std::mutex exchange_mutex_;
  mutable std::mutex mutex_;  // guards memo_ and the reasons
  mutable std::unordered_map<std::string, std::pair<double, double>> memo_;
  mutable std::vector<std::string> reasons_ = {""};
  mutable std::unordered_map<std::string, std::size_t> reason_ids_;
};

class ExecMetric final : public ExternalMetric {
 public:
  ExecMetric(std::string name, std::string signature, std::size_t batch, bool references,
             std::string command, double timeout_s)
      : ExternalMetric(std::move(name), std::move(signature), batch, references),
        process_(std::move(command)),
        timeout_s_(timeout_s) {}

 protected:
  std::string exchange(const std::string& body) const override {
    try {
      return process_.exchange(body, timeout_s_);
    } catch (const util::LineProcess::Failure& e) {
      throw std::runtime_error(fmt::format("metric '{}': the scorer {}", name(), e.what()));
    }
  }

 private:
  mutable util::LineProcess process_;
  double timeout_s_;
};

class HttpMetric final : public ExternalMetric {
 public:
  HttpMetric(std::string name, std::string signature, std::size_t batch, bool references,
             std::string url, llm::PostOptions options)
      : ExternalMetric(std::move(name), std::move(signature), batch, references),
        url_(std::move(url)),
        options_(std::move(options)) {}

 protected:
  std::string exchange(const std::string& body) const override {
    llm::PostResult r = llm::post_json(url_, body, options_);
    const std::string tries =
        r.attempts > 1 ? fmt::format(" (after {} attempts)", r.attempts) : std::string();
    if (r.status == 0)
      throw std::runtime_error(
          fmt::format("metric '{}': no answer from {}{}: {}", name(), url_, tries, r.error));
    if (r.status < 200 || r.status >= 300)
      throw std::runtime_error(fmt::format("metric '{}': {} answered HTTP {}{}: {}", name(), url_,
                                           r.status, tries, excerpt(r.body)));
    return r.body;
  }

 private:
  std::string url_;
  llm::PostOptions options_;
};

std::vector<OptionSpec> shared_options() {
  return {
      option_text("version", "1",
                  "your scorer's version: bump it when the scorer changes (it is part of the "
                  "signature, which keys the audit's cache)"),
      option_int("batch", 64, 1, 1000000, "items sent per request"),
      option_number("timeout", "60", 0.001, 1e6, "seconds allowed per request"),
      option_choice("references", "required", {"required", "optional"},
                    "optional: tasks without references are scored too (a reference-free "
                    "scorer)"),
  };
}

Signature external_signature(std::string head, const MetricSpec& spec) {
  Signature sig(std::move(head));
  sig.field("scorer_version", spec.get("version")).field("protocol", kScoreProtocol);
  return sig;
}

std::unique_ptr<Metric> make_exec(const MetricSpec& spec, const MetricContext&) {
  const std::string& command = spec.arg();
  if (command.empty())
    throw UsageError(
        "metric 'exec' needs a command: exec:COMMAND[,version=V] (run through /bin/sh -c)");
  return std::make_unique<ExecMetric>(
      spec.text(), external_signature("exec:" + command, spec).versioned(),
      static_cast<std::size_t>(spec.get_int("batch")), spec.get("references") == "required",
      command, spec.get_double("timeout"));
}

std::unique_ptr<Metric> make_http(const MetricSpec& spec, const MetricContext&) {
  if (spec.arg().empty() || !spec.arg().starts_with("//"))
    throw UsageError(
        fmt::format("metric '{}' needs a URL: {}://HOST[:PORT]/PATH", spec.text(), spec.base()));
  const std::string url = spec.base() + ":" + spec.arg();
  llm::PostOptions o;
  o.timeout_s = spec.get_double("timeout");
  o.retries = spec.get_int("retries");
  // The key travels in a header only: its variable's name is all the spec (and so the
  // signature, the records and the logs) ever holds.
  if (const std::string var = spec.get("key_env"); !var.empty()) {
    const char* value = std::getenv(var.c_str());
    if (value == nullptr || *value == '\0')
      throw UsageError(fmt::format(
          "metric '{}': key_env={} but that environment variable is not set", spec.text(), var));
    const std::string header = spec.get("key_header");
    o.headers.push_back(header == "Authorization" ? fmt::format("Authorization: Bearer {}", value)
                                                  : fmt::format("{}: {}", header, value));
  } else {
    (void)spec.get("key_header");
  }
  return std::make_unique<HttpMetric>(spec.text(), external_signature(url, spec).versioned(),
                                      static_cast<std::size_t>(spec.get_int("batch")),
                                      spec.get("references") == "required", url, std::move(o));
}

}  // namespace

void register_external(MetricRegistry& registry) {
  registry.add({"exec",
                "your own scorer as a process: exec:COMMAND (run once through /bin/sh -c, fed "
                "batches as JSON lines on stdin, answering one line each on stdout; "
                "docs/external-scorers.md); scores any text, so it can be audited and attacked",
                shared_options(), make_exec});
  auto http_options = shared_options();
  http_options.push_back(
      option_int("retries", 3, 0, 20, "further attempts after a connection error, 429 or 5xx"));
  http_options.push_back(option_text(
      "key_env", "",
      "the environment variable holding the scorer's key (sent in a header, never recorded)"));
  http_options.push_back(option_text(
      "key_header", "Authorization",
      "the header of the key (Authorization sends 'Bearer KEY', another the key itself)"));
  for (const char* scheme : {"http", "https"})
    registry.add({scheme,
                  fmt::format("your own scorer as a web service: {}://HOST[:PORT]/PATH, POSTed "
                              "the same JSON batches as exec: (docs/external-scorers.md)",
                              scheme),
                  http_options, make_http});
}

}  // namespace probity::metrics
