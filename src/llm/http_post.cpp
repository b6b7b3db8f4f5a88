#include "llm/http_post.hpp"

#include <curl/curl.h>
#include <fmt/format.h>

#include <array>
#include <chrono>
#include <ctime>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include "llm/internal.hpp"

namespace probity::llm {
namespace {

// An answer larger than this is neither a list of scores nor a batch's results file (OpenAI's
// input files are at most 200 MB): stop reading.
constexpr std::size_t kMaxBody = std::size_t{1} << 30;

struct Transfer {
  std::string body;
  bool too_large = false;
  std::optional<double> retry_after_s;
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  if (t->body.size() + size * count > kMaxBody) {
    t->too_large = true;
    return 0;
  }
  t->body.append(data, size * count);
  return size * count;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  std::string_view line(data, size * count);
  constexpr std::string_view kName = "retry-after:";
  if (line.size() > kName.size()) {
    bool match = true;
    for (std::size_t i = 0; i < kName.size() && match; ++i)
      match = std::tolower(static_cast<unsigned char>(line[i])) == kName[i];
    if (match)
      t->retry_after_s = detail::parse_retry_after(line.substr(kName.size()), std::time(nullptr));
  }
  return size * count;
}

bool transient(const PostResult& r) {
  return r.status == 0 || r.status == 429 || r.status >= 500;
}

}  // namespace

PostResult post_json(const std::string& url, const std::string& body, const PostOptions& options) {
  return http_request("POST", url, body, "application/json", options);
}

PostResult http_request(const std::string& method, const std::string& url, const std::string& body,
                        const std::string& content_type, const PostOptions& options) {
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
      throw std::runtime_error("libcurl initialisation failed");
  });
  const bool get = method == "GET";
  curl_slist* headers = nullptr;
  if (!get) headers = curl_slist_append(headers, ("Content-Type: " + content_type).c_str());
  headers = curl_slist_append(headers, "Accept: application/json");
  headers = curl_slist_append(headers, "Expect:");
  for (const auto& h : options.headers) headers = curl_slist_append(headers, h.c_str());
  CURL* easy = curl_easy_init();
  if (easy == nullptr) {
    curl_slist_free_all(headers);
    throw std::runtime_error("curl_easy_init failed");
  }
  EndpointConfig backoff;  // the LLM client's backoff, with these bounds
  backoff.backoff_base_s = options.backoff_base_s;
  backoff.backoff_max_s = options.backoff_max_s;
  PostResult r;
  for (int attempt = 0;; ++attempt) {
    Transfer t;
    std::array<char, CURL_ERROR_SIZE> errbuf{};
    curl_easy_reset(easy);
    curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
    if (get) {
      curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
    } else {
      curl_easy_setopt(easy, CURLOPT_POST, 1L);
      curl_easy_setopt(easy, CURLOPT_POSTFIELDS, body.data());
      curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
      if (method != "POST") curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, method.c_str());
    }
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, errbuf.data());
    const long timeout_ms = static_cast<long>(options.timeout_s * 1000);
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, std::min(timeout_ms, 30000L));
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    const CURLcode code = curl_easy_perform(easy);
    r = PostResult{};
    r.attempts = attempt + 1;
    if (code == CURLE_OK) {
      curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &r.status);
      r.body = std::move(t.body);
    } else {
      r.error = t.too_large ? fmt::format("the answer exceeded {} MiB", kMaxBody >> 20)
                : errbuf[0] ? fmt::format("{}: {}", curl_easy_strerror(code), errbuf.data())
                            : std::string(curl_easy_strerror(code));
    }
    if (!transient(r) || t.too_large || attempt >= options.retries) break;
    const double wait = t.retry_after_s
                            ? std::min(*t.retry_after_s, options.backoff_max_s)
                            : detail::backoff_delay(backoff, method + url + body, attempt + 1);
    std::this_thread::sleep_for(std::chrono::duration<double>(wait));
  }
  curl_easy_cleanup(easy);
  curl_slist_free_all(headers);
  return r;
}

}  // namespace probity::llm
