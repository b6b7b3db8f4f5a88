// The asynchronous client: one I/O thread drives libcurl's multi interface; callers of run() hand
// it jobs and wait for their answers. Limits (concurrency, requests and tokens per period, a
// server-requested cooldown) are applied when a transfer starts, so they hold across callers.
#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "llm/batch.hpp"
#include "llm/internal.hpp"
#include "llm/redact.hpp"
#include "probity/signature.hpp"
#include "util/json_limits.hpp"

namespace probity::llm {
namespace {

using Clock = std::chrono::steady_clock;

// A server may ask for long pauses; beyond this the run is better failed and resumed later.
constexpr double kMaxRetryAfterS = 600;

double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}
Clock::duration duration(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
      throw std::runtime_error("libcurl initialisation failed");
  });
}

// What one run() call waits on. The I/O thread writes (*out)[i] and appends i to `finished`
// under the mutex, so the caller may read those answers once it has taken the mutex.
struct Batch {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<Response>* out = nullptr;
  std::vector<std::size_t> finished;
  std::size_t remaining = 0;
};

// Why a job ended without an answer of the server.
constexpr const char* kCancelled = "cancelled: the run was interrupted";

struct Job {
  Batch* batch = nullptr;
  std::size_t index = 0;
  const Request* request = nullptr;
  detail::WireRequest wire;
  int attempts = 0;
  int failures = 0;  // failed attempts other than 429s (those have a time budget instead)
  Clock::time_point first_sent{};
  std::size_t max_bytes = 0;  // the answer's size cap
  // State of the current attempt.
  std::string rx;
  bool too_large = false;
  std::optional<double> retry_after_s;
  std::array<char, CURL_ERROR_SIZE> errbuf{};
  Response response;
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* job = static_cast<Job*>(user);
  // A runaway answer must not take the memory (or the cache) with it: stop reading.
  if (job->rx.size() + size * count > job->max_bytes) {
    job->too_large = true;
    return 0;  // libcurl ends the transfer with CURLE_WRITE_ERROR
  }
  job->rx.append(data, size * count);
  return size * count;
}

bool is_tls_error(CURLcode code) {
  switch (code) {
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CRL_BADFILE:
      return true;
    default:
      return false;
  }
}

// Failures that say the endpoint itself is unreachable or refuses us, whatever the request.
bool counts_for_breaker(ErrorKind kind) {
  return kind == ErrorKind::kConnection || kind == ErrorKind::kTls || kind == ErrorKind::kAuth ||
         kind == ErrorKind::kTimeout;
}

bool iequals_prefix(std::string_view line, std::string_view name) {
  if (line.size() < name.size()) return false;
  for (std::size_t i = 0; i < name.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(line[i])) != name[i]) return false;
  return true;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* job = static_cast<Job*>(user);
  const std::string_view line(data, size * count);
  if (iequals_prefix(line, "retry-after-ms:")) {
    // OpenAI's millisecond variant is the more precise one: it wins.
    if (auto v = detail::parse_retry_after(line.substr(15), std::time(nullptr)))
      job->retry_after_s = *v / 1000.0;
  } else if (iequals_prefix(line, "retry-after:") && !job->retry_after_s) {
    job->retry_after_s = detail::parse_retry_after(line.substr(12), std::time(nullptr));
  }
  return size * count;
}

}  // namespace

struct Client::Impl {
  EndpointConfig config;
  ClientOptions options;
  Accounting* accounting;
  std::string secret;                // the API key, for the header and for redaction only
  std::vector<std::string> secrets;  // the key and the extra header values: redacted
  curl_slist* headers = nullptr;
  std::vector<std::string> batch_headers;  // the same credentials as "Name: value" lines
  CURLM* multi = nullptr;

  std::mutex mutex;  // guards incoming, cancelled and stop
  std::vector<std::unique_ptr<Job>> incoming;
  std::vector<const Batch*> cancelled;  // batches whose jobs are to be dropped now
  bool stop = false;
  std::thread thread;

  // Owned by the I/O thread.
  std::deque<std::unique_ptr<Job>> ready;
  std::multimap<Clock::time_point, std::unique_ptr<Job>> waiting;  // retries by due time
  std::unordered_map<CURL*, std::unique_ptr<Job>> active;
  std::vector<CURL*> idle_handles;
  detail::TokenBucket requests_bucket, tokens_bucket;
  Clock::time_point cooldown_until{};
  const Clock::time_point epoch = Clock::now();
  // Adaptive concurrency: halved on a rate-limit episode (at most once per second), raised by
  // one after as many successes in a row as the current limit, back up to the configured one.
  std::size_t limit = 0;
  std::size_t successes = 0;
  Clock::time_point last_decrease{};
  // Circuit breaker: failed attempts in a row for endpoint-level reasons, and once open, why.
  int consecutive_failures = 0;
  Clock::time_point last_success{};  // when a request last succeeded (epoch: never)
  std::atomic<bool> breaker_open{false};
  std::string breaker_reason;  // written by the I/O thread before breaker_open is set
  // The server rejected the structured-output fields once: every later request goes without
  // (I/O thread only).
  bool structured_rejected = false;

  Impl(EndpointConfig c, ClientOptions o, Accounting* a)
      : config(std::move(c)), options(std::move(o)), accounting(a) {}

  ~Impl() {
    {
      std::lock_guard lock(mutex);
      stop = true;
    }
    if (multi) curl_multi_wakeup(multi);
    if (thread.joinable()) thread.join();
    for (auto& [easy, job] : active) {
      curl_multi_remove_handle(multi, easy);
      curl_easy_cleanup(easy);
    }
    for (CURL* easy : idle_handles) curl_easy_cleanup(easy);
    if (multi) curl_multi_cleanup(multi);
    // Do not leave the key in freed memory.
    for (curl_slist* h = headers; h; h = h->next)
      if (h->data) std::memset(h->data, 0, std::strlen(h->data));
    curl_slist_free_all(headers);
    std::fill(secret.begin(), secret.end(), '\0');
    for (auto& v : secrets) std::fill(v.begin(), v.end(), '\0');
    for (auto& v : batch_headers) std::fill(v.begin(), v.end(), '\0');
  }

  // --batch: the jobs' requests answered through batches (llm/batch.hpp); returns how many.
  std::size_t run_batched(const std::vector<std::unique_ptr<Job>>& jobs,
                          std::vector<Response>& out) {
    Cache* cache = options.cache;
    const bool writes =
        cache && (cache->mode() == CacheMode::kReadWrite || cache->mode() == CacheMode::kRefresh);
    // The answers of a batch file come back only through the cache (probity cache import).
    if (config.batch == BatchMode::kFile && !writes)
      throw UsageError(fmt::format(
          "llm[{}]: --batch file needs a response cache that is written (--cache FILE, "
          "cache_mode read-write): its answers come back through `probity cache import`",
          config.name));
    detail::BatchContext ctx;
    ctx.config = &config;
    ctx.cache = writes ? cache : nullptr;
    ctx.accounting = accounting;
    ctx.auth_headers = batch_headers;
    ctx.redact = [this](std::string text) { return redact(text); };
    ctx.log = options.log;
    ctx.interrupted = options.interrupted;
    std::vector<detail::BatchItem> items;
    items.reserve(jobs.size());
    for (const auto& job : jobs)
      items.push_back(
          {job->wire.key,
           job->request->endpoint == Endpoint::kChat ? "/v1/chat/completions" : "/v1/completions",
           job->wire.body, job->wire.est_tokens});
    EndpointUsage delta;
    std::vector<detail::BatchOutcome> outcomes;
    try {
      outcomes = detail::run_batches(ctx, items, delta);
    } catch (...) {
      count(delta);  // what was submitted before the stop is still counted
      throw;
    }
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      Response r;
      auto& o = outcomes[k];
      if (!o.ok) {
        r.error_kind = o.kind;
        r.error = o.error;
      } else if (detail::parse_success(*jobs[k]->request, o.body, r)) {
        r.body = std::move(o.body);
        ++delta.batch_requests;
        if (r.usage.present) {
          const auto in =
              static_cast<std::uint64_t>(std::max<std::int64_t>(r.usage.prompt_tokens, 0));
          const auto out_tokens =
              static_cast<std::uint64_t>(std::max<std::int64_t>(r.usage.completion_tokens, 0));
          delta.tokens_in += in;
          delta.tokens_out += out_tokens;
          delta.batch_tokens_in += in;
          delta.batch_tokens_out += out_tokens;
        }
      } else if (r.error_kind == ErrorKind::kNone) {
        r.error_kind = ErrorKind::kMalformed;
      }
      out[jobs[k]->index] = std::move(r);
    }
    count(delta);
    return jobs.size();
  }

  std::string redact(const std::string& s) const { return detail::redact_text(s, secrets); }
  std::string redact_body(std::string body) const {
    return detail::redact_body(std::move(body), secrets);
  }

  // From now on `job` is sent without its structured-output fields (under the same cache key).
  void drop_structured(Job& job) {
    job.wire.body = std::move(job.wire.unstructured_body);
    job.wire.unstructured_body.clear();
    EndpointUsage delta;
    delta.unstructured = 1;
    count(delta);
  }

  void open_breaker(std::string reason) {
    breaker_reason = std::move(reason);
    breaker_open = true;
    log(breaker_reason);
  }

  // A failed attempt for an endpoint-level reason; circuit_breaker of them in a row open it.
  void count_breaker_failure(const Response& r) {
    if (config.circuit_breaker <= 0 || breaker_open) return;
    if (++consecutive_failures < config.circuit_breaker) return;
    open_breaker(fmt::format(
        "llm endpoint '{}' ({}) given up after {} failed attempts in a row; the last: {} ({})",
        config.name, detail::normalize_base(config.base_url), consecutive_failures, r.error,
        error_kind_name(r.error_kind)));
  }

  void log(const std::string& message) const {
    if (!options.log) return;
    try {
      options.log(redact(message));
    } catch (...) {
      // A failing log sink must not take the I/O thread (and every waiting caller) down.
    }
  }

  void count(const EndpointUsage& delta) { accounting->add(config.name, config.model, delta); }

  void submit(std::vector<std::unique_ptr<Job>> jobs) {
    {
      std::lock_guard lock(mutex);
      for (auto& j : jobs) incoming.push_back(std::move(j));
    }
    curl_multi_wakeup(multi);
  }

  // Ends every job of the cancelled batches now: transfers in flight are aborted (a server such
  // as vLLM then stops generating), queued and waiting ones are not sent.
  void drop(const std::vector<const Batch*>& batches, Clock::time_point now) {
    auto is_cancelled = [&](const Job& job) {
      return std::find(batches.begin(), batches.end(), job.batch) != batches.end();
    };
    auto end_job = [&](std::unique_ptr<Job> job) {
      if (job->attempts == 0) job->first_sent = now;
      job->response = Response{};
      job->response.error_kind = ErrorKind::kConnection;
      job->response.error = kCancelled;
      complete(std::move(job), now);
    };
    for (auto it = active.begin(); it != active.end();) {
      if (!is_cancelled(*it->second)) {
        ++it;
        continue;
      }
      curl_multi_remove_handle(multi, it->first);
      idle_handles.push_back(it->first);
      auto job = std::move(it->second);
      it = active.erase(it);
      end_job(std::move(job));
    }
    for (auto it = waiting.begin(); it != waiting.end();) {
      if (!is_cancelled(*it->second)) {
        ++it;
        continue;
      }
      auto job = std::move(it->second);
      it = waiting.erase(it);
      end_job(std::move(job));
    }
    std::deque<std::unique_ptr<Job>> keep;
    for (auto& job : ready)
      if (is_cancelled(*job))
        end_job(std::move(job));
      else
        keep.push_back(std::move(job));
    ready.swap(keep);
  }

  // Fails a job without sending it: the breaker is open.
  void refuse(std::unique_ptr<Job> job, Clock::time_point now) {
    if (job->attempts == 0) job->first_sent = now;
    job->response = Response{};
    job->response.error_kind = ErrorKind::kCircuitOpen;
    job->response.error = breaker_reason;
    complete(std::move(job), now);
  }

  void start(std::unique_ptr<Job> job, Clock::time_point now) {
    if (breaker_open) {
      refuse(std::move(job), now);
      return;
    }
    CURL* easy = nullptr;
    if (idle_handles.empty()) {
      easy = curl_easy_init();
      if (!easy) {
        if (job->attempts == 0) job->first_sent = now;
        job->response = Response{};
        job->response.error_kind = ErrorKind::kConnection;
        job->response.error = "libcurl could not create a transfer (out of memory)";
        complete(std::move(job), now);
        return;
      }
    } else {
      easy = idle_handles.back();
      idle_handles.pop_back();
      curl_easy_reset(easy);
    }
    job->rx.clear();
    job->too_large = false;
    job->max_bytes = config.max_response_bytes;
    job->retry_after_s.reset();
    job->errbuf[0] = '\0';
    if (structured_rejected && !job->wire.unstructured_body.empty()) drop_structured(*job);
    const auto timeout_ms = static_cast<long>(std::ceil(config.timeout_s * 1000));
    curl_easy_setopt(easy, CURLOPT_URL, job->wire.url.c_str());
    curl_easy_setopt(easy, CURLOPT_POST, 1L);
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, job->wire.body.data());
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(job->wire.body.size()));
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, job.get());
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, job.get());
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, job->errbuf.data());
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, std::min(timeout_ms, 30000L));
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM from a non-main thread
    curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(easy, CURLOPT_PRIVATE, job.get());
    if (job->attempts == 0) job->first_sent = now;
    ++job->attempts;
    EndpointUsage delta;
    delta.requests = 1;
    count(delta);
    curl_multi_add_handle(multi, easy);
    active.emplace(easy, std::move(job));
  }

  // Starts what the limits allow; returns seconds until a limit lets the next job go
  // (infinity when nothing is waiting for a limit).
  double start_ready(Clock::time_point now) {
    const double t = seconds(now - epoch);
    while (!ready.empty() && active.size() < limit) {
      if (now < cooldown_until) return seconds(cooldown_until - now);
      Job& job = *ready.front();
      // Retries spent their budget on the first attempt: only the first attempt pays tokens.
      const double tokens = job.attempts == 0 ? job.wire.est_tokens : 0.0;
      const double wait = std::max(requests_bucket.wait(1, t), tokens_bucket.wait(tokens, t));
      if (wait > 0) return wait;
      requests_bucket.spend(1, t);
      tokens_bucket.spend(tokens, t);
      auto owned = std::move(ready.front());
      ready.pop_front();
      start(std::move(owned), now);
    }
    return std::numeric_limits<double>::infinity();
  }

  void complete(std::unique_ptr<Job> job, Clock::time_point now) {
    Response& r = job->response;
    r.attempts = job->attempts;
    r.latency_s = seconds(now - job->first_sent);
    if (!r.ok) {
      if (job->attempts > 1) r.error += fmt::format(" (after {} attempts)", job->attempts);
      r.error = redact(std::move(r.error));
      log(fmt::format("llm[{}]: request {} failed ({}): {}", config.name, job->index,
                      error_kind_name(r.error_kind), r.error));
    }
    Batch& batch = *job->batch;
    std::lock_guard lock(batch.mutex);
    (*batch.out)[job->index] = std::move(r);
    batch.finished.push_back(job->index);
    --batch.remaining;
    // Notified under the lock: once unlocked, the waiting caller may destroy the batch.
    batch.cv.notify_all();
  }

  void finish(CURL* easy, CURLcode code, Clock::time_point now) {
    auto it = active.find(easy);
    std::unique_ptr<Job> job = std::move(it->second);
    active.erase(it);
    long status = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    curl_multi_remove_handle(multi, easy);
    idle_handles.push_back(easy);

    Response& r = job->response;
    r = Response{};
    r.status = static_cast<int>(status);
    job->rx = redact_body(std::move(job->rx));  // before anything is parsed, kept or logged
    bool retryable = false;
    if (job->too_large) {
      r.error_kind = ErrorKind::kTooLarge;
      r.error = fmt::format(
          "the answer exceeded max_response_bytes ({} bytes); raise it in the "
          "configuration if such answers are expected",
          config.max_response_bytes);
    } else if (code != CURLE_OK) {
      r.error = job->errbuf[0] ? fmt::format("{}: {}", curl_easy_strerror(code), job->errbuf.data())
                               : std::string(curl_easy_strerror(code));
      if (code == CURLE_URL_MALFORMAT || code == CURLE_UNSUPPORTED_PROTOCOL) {
        r.error_kind = ErrorKind::kInvalidRequest;  // no retry can fix the base URL
      } else if (is_tls_error(code)) {
        r.error_kind = ErrorKind::kTls;  // a certificate does not fix itself on a retry
      } else {
        r.error_kind =
            code == CURLE_OPERATION_TIMEDOUT ? ErrorKind::kTimeout : ErrorKind::kConnection;
        retryable = true;
      }
    } else if (status >= 200 && status < 300) {
      if (detail::parse_success(*job->request, job->rx, r)) {
        r.body = std::move(job->rx);
        if (r.usage.present) {
          const auto in =
              static_cast<std::uint64_t>(std::max<std::int64_t>(r.usage.prompt_tokens, 0));
          const auto out =
              static_cast<std::uint64_t>(std::max<std::int64_t>(r.usage.completion_tokens, 0));
          // The estimate was spent before sending; settle the difference.
          tokens_bucket.adjust(job->wire.est_tokens - static_cast<double>(in + out),
                               seconds(now - epoch));
          EndpointUsage delta;
          delta.tokens_in = in;
          delta.tokens_out = out;
          delta.tokens_cached_in = std::min<std::uint64_t>(
              in,
              static_cast<std::uint64_t>(std::max<std::int64_t>(r.usage.cached_prompt_tokens, 0)));
          count(delta);
        }
      } else {
        retryable = r.error_kind == ErrorKind::kMalformed;  // a cut or garbled body is transient
      }
    } else {
      const std::string message = detail::error_message(job->rx);
      r.error = fmt::format("HTTP {}: {}", status, message);
      r.error_kind = detail::error_kind_of_status(static_cast<int>(status), job->rx);
      retryable = r.error_kind == ErrorKind::kRateLimited || r.error_kind == ErrorKind::kTimeout ||
                  r.error_kind == ErrorKind::kServer;
      if (r.error_kind == ErrorKind::kInvalidRequest) {
        if (!job->wire.unstructured_body.empty() &&
            detail::rejects_structured_output(static_cast<int>(status), message)) {
          // Sent again at once without the fields, noted in the usage table: a server without
          // structured output still answers, and the strict parser still checks the answer.
          if (!structured_rejected) {
            structured_rejected = true;
            EndpointUsage note;
            note.structured_rejection = r.error;
            count(note);
            log(fmt::format(
                "llm[{}]: the server rejected structured output ({}); sending without it",
                config.name, r.error));
          }
          drop_structured(*job);
          waiting.emplace(now, std::move(job));
          return;
        }
        if (status == 400) {
          const std::string hint = detail::config_hint(job->rx, config);
          if (!hint.empty()) r.error += " — " + hint;
        }
      }
    }
    if (r.ok) {
      consecutive_failures = 0;
      last_success = now;
    } else if (r.error_kind == ErrorKind::kQuota && !breaker_open) {
      // Every other request would get the same answer: stop now, with the server's words.
      open_breaker(fmt::format("llm endpoint '{}' ({}) is out of quota: {}", config.name,
                               detail::normalize_base(config.base_url), r.error));
    } else if (counts_for_breaker(r.error_kind)) {
      count_breaker_failure(r);
    }
    if (r.ok) {
      if (++successes >= limit && limit < config.concurrency) {
        ++limit;
        successes = 0;
      }
    } else if (status == 429) {
      successes = 0;
      if (limit > 1 && now - last_decrease >= std::chrono::seconds(1)) {
        const std::size_t before = limit;
        limit = std::max<std::size_t>(1, limit / 2);
        last_decrease = now;
        log(fmt::format("llm[{}]: rate limited; concurrency {} -> {}", config.name, before, limit));
      }
    }
    if (!r.ok && status != 429) ++job->failures;
    double delay = 0;
    if (!r.ok && retryable) {
      delay = detail::backoff_delay(config, job->wire.key, job->attempts);
      if (job->retry_after_s && (status == 429 || status == 503))
        delay = std::max(delay, std::clamp(*job->retry_after_s, 0.0, kMaxRetryAfterS));
      // 429s are waited out within a time budget; other transient failures get max_attempts.
      retryable = status == 429
                      ? seconds(now - job->first_sent) + delay <= config.rate_limit_budget_s
                      : job->failures < config.max_attempts;
      // A request still limited when its budget is spent counts toward the breaker; when nothing
      // at all succeeded meanwhile, the server has answered only 429 for a whole budget: it is
      // given up at once rather than after each queued request has waited its own budget. (A
      // budget of 0 gives up on single requests, not on the endpoint.)
      // Within the budget, a request limited again while nothing has succeeded since it was
      // sent counts toward the breaker: a server that answers only 429 is given up after
      // circuit_breaker such retries, not after a whole budget (600 s by default), while
      // ordinary rate limiting, where other requests get through, never counts.
      if (status == 429 && retryable && job->attempts >= 2 && last_success < job->first_sent)
        count_breaker_failure(r);
      if (status == 429 && !retryable) {
        if (config.rate_limit_budget_s > 0 && last_success < job->first_sent && !breaker_open)
          open_breaker(fmt::format(
              "llm endpoint '{}' ({}) answered only 429 for the whole rate_limit_budget ({} s); "
              "the last: {}",
              config.name, detail::normalize_base(config.base_url), config.rate_limit_budget_s,
              r.error));
        else
          count_breaker_failure(r);
      }
    }
    if (!r.ok && retryable && breaker_open) retryable = false;
    if (!r.ok && retryable) {
      // The whole endpoint is limited, not only this request: pause every start.
      if (job->retry_after_s && status == 429)
        cooldown_until = std::max(
            cooldown_until, now + duration(std::clamp(*job->retry_after_s, 0.0, kMaxRetryAfterS)));
      log(fmt::format("llm[{}]: request {} attempt {} failed ({}): {}; retrying in {:.2f} s",
                      config.name, job->index, job->attempts, error_kind_name(r.error_kind),
                      r.error, delay));
      EndpointUsage delta;
      delta.retries = 1;
      count(delta);
      waiting.emplace(now + duration(delay), std::move(job));
      return;
    }
    complete(std::move(job), now);
  }

  void loop() {
    for (;;) {
      std::vector<const Batch*> cancel;
      {
        std::lock_guard lock(mutex);
        if (stop) return;
        for (auto& j : incoming) ready.push_back(std::move(j));
        incoming.clear();
        cancel.swap(cancelled);
      }
      auto now = Clock::now();
      if (!cancel.empty()) drop(cancel, now);
      if (breaker_open) {
        // Given up: everything queued fails now instead of waiting for limits or backoff.
        for (auto& [due, job] : waiting) ready.push_back(std::move(job));
        waiting.clear();
        while (!ready.empty()) {
          auto job = std::move(ready.front());
          ready.pop_front();
          refuse(std::move(job), now);
        }
      }
      // Due retries go first: their items have waited longest.
      std::vector<std::unique_ptr<Job>> due;
      while (!waiting.empty() && waiting.begin()->first <= now) {
        due.push_back(std::move(waiting.begin()->second));
        waiting.erase(waiting.begin());
      }
      for (auto it = due.rbegin(); it != due.rend(); ++it) ready.push_front(std::move(*it));
      const double limit_wait = start_ready(now);

      int running = 0;
      curl_multi_perform(multi, &running);
      bool finished_any = false;
      int queued = 0;
      while (CURLMsg* msg = curl_multi_info_read(multi, &queued)) {
        if (msg->msg != CURLMSG_DONE) continue;
        finish(msg->easy_handle, msg->data.result, Clock::now());
        finished_any = true;
      }
      if (finished_any) continue;  // slots freed: start more before sleeping

      now = Clock::now();
      double timeout = 1.0;
      long curl_ms = -1;
      curl_multi_timeout(multi, &curl_ms);
      if (curl_ms >= 0) timeout = std::min(timeout, static_cast<double>(curl_ms) / 1000.0);
      if (!waiting.empty()) timeout = std::min(timeout, seconds(waiting.begin()->first - now));
      timeout = std::min(timeout, limit_wait);
      const int ms = static_cast<int>(std::clamp(std::ceil(timeout * 1000.0), 0.0, 1000.0));
      curl_multi_poll(multi, nullptr, 0, ms, nullptr);
    }
  }
};

Client::Client(EndpointConfig config, ClientOptions options) : config_(std::move(config)) {
  const std::string& name = config_.name;
  if (config_.base_url.empty())
    throw UsageError(fmt::format("llm endpoint '{}': no base_url is set", name));
  if (!config_.base_url.starts_with("http://") && !config_.base_url.starts_with("https://"))
    throw UsageError(
        fmt::format("llm endpoint '{}': base_url '{}' must start with http:// or "
                    "https://",
                    name, config_.base_url));
  if (config_.model.empty())
    throw UsageError(fmt::format(
        "llm endpoint '{}': no model is set (--llm-model, or model in [llm.{}] or [llm.default]); "
        "servers that ignore it still need a name for the signature",
        name, name));
  if (!(config_.timeout_s <= 86400))
    throw UsageError(fmt::format("llm endpoint '{}': timeout must be at most 86400 s", name));
  if (config_.temperature && !(*config_.temperature >= 0 && *config_.temperature <= 2))
    throw UsageError(fmt::format("llm endpoint '{}': temperature must be in 0..2", name));
  if (config_.max_response_bytes < 1024)
    throw UsageError(
        fmt::format("llm endpoint '{}': max_response_bytes must be at least 1024", name));
  if (config_.concurrency < 1 || config_.concurrency > 512)
    throw UsageError(fmt::format("llm endpoint '{}': concurrency must be 1..512, got {}", name,
                                 config_.concurrency));
  if (config_.max_attempts < 1)
    throw UsageError(fmt::format("llm endpoint '{}': max_attempts must be at least 1", name));
  if (!(config_.timeout_s > 0))
    throw UsageError(fmt::format("llm endpoint '{}': timeout must be positive", name));
  if (!(config_.rate_limit_budget_s >= 0))
    throw UsageError(fmt::format("llm endpoint '{}': rate_limit_budget must be >= 0", name));
  for (const auto& [header, value] : config_.headers)
    if (auto problem = header_problem(header, value))
      throw UsageError(fmt::format("llm endpoint '{}': {}", name, *problem));
  if (config_.rpm < 0 || config_.tpm < 0 || !(config_.rate_period_s > 0))
    throw UsageError(
        fmt::format("llm endpoint '{}': rpm, tpm and the rate period must be "
                    "non-negative (period positive)",
                    name));
  if (config_.batch == BatchMode::kFile && config_.batch_dir.empty())
    throw UsageError(fmt::format(
        "llm endpoint '{}': --batch file needs a directory for the batch files (--batch-dir, or "
        "batch_dir in [llm.{}] or [llm.default])",
        name, name));
  if (!(config_.batch_poll_s > 0) || !(config_.batch_poll_max_s >= config_.batch_poll_s))
    throw UsageError(fmt::format(
        "llm endpoint '{}': batch_poll must be positive and batch_poll_max at least batch_poll",
        name));
  try {
    detail::build_request(config_, Request{});
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("llm endpoint '{}': {}", name, e.what()));
  }
  if (options.accounting) {
    accounting_ = options.accounting;
  } else {
    own_accounting_ = std::make_unique<Accounting>();
    accounting_ = own_accounting_.get();
  }
  accounting_->register_endpoint(config_);

  global_init();
  impl_ = std::make_unique<Impl>(config_, std::move(options), accounting_);
  if (!config_.api_key_env.empty()) {
    // A value where the NAME belongs (--llm-api-key-env "$KEY") must not end up in a message.
    const auto& var = config_.api_key_env;
    const bool is_name = (std::isalpha(static_cast<unsigned char>(var[0])) || var[0] == '_') &&
                         std::all_of(var.begin(), var.end(), [](char c) {
                           return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                         });
    if (!is_name)
      throw UsageError(fmt::format(
          "llm endpoint '{}': api_key_env must be the NAME of an environment variable (letters, "
          "digits and _), not the key itself; the value given ({} characters) is not shown",
          name, var.size()));
    const char* value = std::getenv(var.c_str());
    if (!value || !*value)
      throw UsageError(
          fmt::format("llm endpoint '{}': environment variable {} (api_key_env) is "
                      "not set",
                      name, var));
    for (const char* c = value; *c; ++c)
      if (static_cast<unsigned char>(*c) < 0x20 || *c == 0x7f)
        throw UsageError(
            fmt::format("llm endpoint '{}': the value of {} holds a control "
                        "character (CR, LF, ...); it would corrupt the request "
                        "headers",
                        name, var));
    impl_->secret = value;
    impl_->secrets.push_back(value);
  }
  for (const auto& [header, written] : config_.headers) {
    // "${NAME}" takes the value from the environment, so a key need not be in the file.
    std::string value = written;
    if (written.size() > 3 && written.starts_with("${") && written.ends_with("}")) {
      const std::string var = written.substr(2, written.size() - 3);
      const char* v = std::getenv(var.c_str());
      if (!v || !*v)
        throw UsageError(
            fmt::format("llm endpoint '{}': environment variable {} (header {}) is "
                        "not set",
                        name, var, header));
      value = v;
      if (auto problem = header_problem(header, value))
        throw UsageError(fmt::format("llm endpoint '{}': {} (from {})", name, *problem, var));
    }
    impl_->secrets.push_back(value);
    std::string line = header + ": " + value;
    impl_->batch_headers.push_back(line);
    std::fill(value.begin(), value.end(), '\0');
    impl_->headers = curl_slist_append(impl_->headers, line.c_str());
    std::fill(line.begin(), line.end(), '\0');
  }
  impl_->limit = config_.concurrency;
  impl_->headers = curl_slist_append(impl_->headers, "Content-Type: application/json");
  // No Accept-Encoding: answers are small and servers are usually near; compressing them costs
  // both ends more CPU than it saves (cpp-httplib would brotli-compress every answer).
  impl_->headers = curl_slist_append(impl_->headers, "Accept: application/json");
  // libcurl would otherwise wait for "100 Continue" before sending bodies over 1 KiB.
  impl_->headers = curl_slist_append(impl_->headers, "Expect:");
  if (!impl_->secret.empty()) {
    // Anthropic's native API (its Message Batches) takes the key as x-api-key.
    impl_->batch_headers.push_back(
        (config_.batch == BatchMode::kAnthropic ? "x-api-key: " : "Authorization: Bearer ") +
        impl_->secret);
    std::string header = "Authorization: Bearer " + impl_->secret;
    impl_->headers = curl_slist_append(impl_->headers, header.c_str());
    std::fill(header.begin(), header.end(), '\0');
  }
  impl_->multi = curl_multi_init();
  if (!impl_->multi) throw std::runtime_error("curl_multi_init failed");
  impl_->requests_bucket = detail::TokenBucket(config_.rpm, config_.rate_period_s);
  impl_->tokens_bucket = detail::TokenBucket(config_.tpm, config_.rate_period_s);
  impl_->thread = std::thread([impl = impl_.get()] { impl->loop(); });
}

Client::~Client() = default;

std::vector<Response> Client::run(const std::vector<Request>& requests, const Progress& progress) {
  if (impl_->breaker_open) throw EndpointDown(impl_->breaker_reason);
  const auto t0 = Clock::now();
  const std::size_t total = requests.size();
  std::vector<Response> out(total);
  std::vector<detail::WireRequest> wires;
  wires.reserve(total);
  for (const auto& r : requests) wires.push_back(detail::build_request(config_, r));
  std::vector<std::string> keys;
  keys.reserve(total);
  for (const auto& w : wires) keys.push_back(w.key);

  Cache* cache = impl_->options.cache;
  const CacheMode mode = cache ? cache->mode() : CacheMode::kOff;
  std::vector<char> pending(total, 1);
  std::uint64_t hits = 0;
  if (mode == CacheMode::kReadWrite || mode == CacheMode::kReadOnly) {
    auto bodies = cache->get_many(keys);
    for (std::size_t i = 0; i < total; ++i) {
      if (!bodies[i]) continue;
      Response r;
      // An entry that no longer parses is treated as a miss and replaced.
      if (!detail::parse_success(requests[i], *bodies[i], r)) continue;
      r.from_cache = true;
      r.body = std::move(*bodies[i]);
      out[i] = std::move(r);
      pending[i] = 0;
      ++hits;
    }
    if (mode == CacheMode::kReadOnly) {
      for (std::size_t i = 0; i < total; ++i) {
        if (!pending[i]) continue;
        out[i].error_kind = ErrorKind::kCacheMiss;
        out[i].error = "not in the cache, which is read-only: no request was sent";
        pending[i] = 0;
      }
    }
  }

  // Identical requests in one batch (e.g. the same log p(y) asked for many candidates) are sent
  // once; the copies take the answer of the first.
  std::unordered_map<std::string_view, std::size_t> first_of;
  std::unordered_map<std::size_t, std::vector<std::size_t>> copies;
  for (std::size_t i = 0; i < total; ++i) {
    if (!pending[i]) continue;
    auto [it, inserted] = first_of.emplace(keys[i], i);
    if (!inserted) {
      copies[it->second].push_back(i);
      pending[i] = 0;
    }
  }

  Batch batch;
  batch.out = &out;
  std::vector<std::unique_ptr<Job>> jobs;
  for (std::size_t i = 0; i < total; ++i) {
    if (!pending[i]) continue;
    auto job = std::make_unique<Job>();
    job->batch = &batch;
    job->index = i;
    job->request = &requests[i];
    job->wire = std::move(wires[i]);
    jobs.push_back(std::move(job));
  }
  batch.remaining = jobs.size();
  std::size_t copied = 0;
  for (const auto& [first, list] : copies) copied += list.size();
  std::size_t done = total - jobs.size() - copied;

  // Exceptions from the progress callback or the cache must not unwind while the I/O thread
  // still writes into this batch: they are kept and rethrown once every job is back.
  std::exception_ptr error;
  bool interrupted = false;
  auto report = [&] {
    if (!progress || error) return;
    try {
      progress(done, total);
    } catch (...) {
      error = std::current_exception();
    }
  };
  if (done > 0) report();
  if (config_.batch != BatchMode::kOff) {
    // Generation requests go through the batch; what a batch API does not take goes online.
    std::vector<std::unique_ptr<Job>> batched, online;
    for (auto& job : jobs)
      (job->request->endpoint == Endpoint::kChat || job->request->endpoint == Endpoint::kCompletion
           ? batched
           : online)
          .push_back(std::move(job));
    jobs = std::move(online);
    batch.remaining = jobs.size();
    if (!batched.empty()) done += impl_->run_batched(batched, out);
    for (const auto& job : batched) {
      auto it = copies.find(job->index);
      if (it == copies.end()) continue;
      for (std::size_t j : it->second) out[j] = out[job->index];
      done += it->second.size();
    }
    report();
  }
  if (!jobs.empty()) {
    impl_->submit(std::move(jobs));
    const bool write = mode == CacheMode::kReadWrite || mode == CacheMode::kRefresh;
    std::vector<std::size_t> finished;
    std::vector<std::pair<std::string, std::string>> writes;
    for (bool last = false; !last;) {
      {
        std::unique_lock lock(batch.mutex);
        while (!batch.cv.wait_for(lock, std::chrono::milliseconds(100),
                                  [&] { return !batch.finished.empty(); })) {
          if (interrupted || !impl_->options.interrupted) continue;
          lock.unlock();
          interrupted = impl_->options.interrupted();
          if (interrupted) {
            {
              std::lock_guard g(impl_->mutex);
              impl_->cancelled.push_back(&batch);
            }
            curl_multi_wakeup(impl_->multi);
          }
          lock.lock();
        }
        finished.swap(batch.finished);
        last = batch.remaining == 0;
      }
      if (write && !error) {
        writes.clear();
        for (std::size_t i : finished)
          if (out[i].ok) writes.emplace_back(keys[i], out[i].body);
        try {
          if (!writes.empty()) cache->put_many(writes);
        } catch (...) {
          error = std::current_exception();
        }
      }
      done += finished.size();
      for (std::size_t i : finished) {
        auto it = copies.find(i);
        if (it == copies.end()) continue;
        for (std::size_t j : it->second) out[j] = out[i];
        done += it->second.size();
      }
      finished.clear();
      report();
    }
  }

  EndpointUsage delta;
  delta.answers = total;
  delta.cache_hits = hits;
  for (std::size_t i = 0; i < total; ++i) {
    if (out[i].ok || (requests[i].probe && capability_absent(out[i])) ||
        (interrupted && out[i].error == kCancelled))
      continue;
    const std::string kind(error_kind_name(out[i].error_kind));
    ++delta.failures[kind];
    auto& examples = delta.failure_examples[kind];
    if (examples.size() < 3 &&
        std::find(examples.begin(), examples.end(), out[i].error) == examples.end())
      examples.push_back(out[i].error);
  }
  delta.wall_s = seconds(Clock::now() - t0);
  impl_->count(delta);
  if (error) std::rethrow_exception(error);
  if (interrupted) throw Interrupted();
  // The answers that came back are cached and counted; the run stops here.
  if (impl_->breaker_open) throw EndpointDown(impl_->breaker_reason);
  return out;
}

void Client::forget(const std::vector<Request>& requests) {
  Cache* cache = impl_->options.cache;
  if (!cache || requests.empty()) return;
  std::vector<std::string> keys;
  keys.reserve(requests.size());
  for (const auto& r : requests) keys.push_back(key(r));
  cache->erase_many(keys);
}

Response Client::call(const Request& request) {
  return std::move(run({request}).front());
}

Response Client::chat(std::vector<Message> messages) {
  Request r;
  r.endpoint = Endpoint::kChat;
  r.messages = std::move(messages);
  return call(r);
}

Response Client::completion(std::string prompt) {
  Request r;
  r.endpoint = Endpoint::kCompletion;
  r.prompt = std::move(prompt);
  return call(r);
}

std::vector<std::int64_t> Client::tokenize(std::string_view text) {
  Request r;
  r.endpoint = Endpoint::kTokenize;
  r.prompt = std::string(text);
  Response resp = call(r);
  if (!resp.ok) throw std::runtime_error(fmt::format("tokenize failed: {}", resp.error));
  return resp.tokens;
}

std::string Client::key(const Request& request) const {
  return detail::build_request(config_, request).key;
}

std::string Client::signature() const {
  // The base URL is left out: the same model answers the same wherever it is served, and a
  // published signature should not carry a private host name.
  Signature s("");
  s.field("model", config_.model);
  if (config_.temperature)
    s.field("temp", *config_.temperature);
  else
    s.field("temp", "default");
  if (config_.max_tokens) s.field("max_tokens", *config_.max_tokens);
  if (config_.max_completion_tokens)
    s.field("max_completion_tokens", *config_.max_completion_tokens);
  if (config_.seed) s.field("seed", *config_.seed);
  if (config_.n != 1) s.field("n", config_.n);
  if (!config_.extra_body.empty()) s.field("extra", sha256_hex(config_.extra_body).substr(0, 12));
  // What was asked of the server's decoding: a constrained answer can differ from a free one.
  if (config_.structured != StructuredMode::kOff)
    s.field("structured", structured_mode_name(config_.structured));
  if (config_.server != ServerKind::kAuto) s.field("server", server_kind_name(config_.server));
  return s.format();
}

}  // namespace probity::llm
