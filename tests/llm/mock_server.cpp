#include "llm/mock_server.hpp"

#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <stdexcept>

namespace probity::test {

using nlohmann::json;
using ojson = nlohmann::ordered_json;

namespace {

std::string error_body(const std::string& message, const std::string& type) {
  return json{
      {"error", {{"message", message}, {"type", type}, {"param", nullptr}, {"code", nullptr}}}}
      .dump();
}

std::string join(const std::vector<std::string>& words, std::size_t begin, std::size_t end) {
  std::string out;
  for (std::size_t i = begin; i < end; ++i) {
    if (i > begin) out += ' ';
    out += words[i];
  }
  return out;
}

}  // namespace

// cpp-httplib listens with a backlog of 5: a burst of connections beyond that has its SYNs
// dropped and retried a second later. Listening again on the same socket raises the backlog.
void widen_backlog(int port) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    int fd = -1;
    try {
      fd = std::stoi(entry.path().filename().string());
    } catch (...) {
      continue;
    }
    sockaddr_in addr{};
    socklen_t len = sizeof addr;
    int listening = 0;
    socklen_t optlen = sizeof listening;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0 ||
        addr.sin_family != AF_INET || ntohs(addr.sin_port) != port)
      continue;
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &optlen) == 0 && listening)
      ::listen(fd, SOMAXCONN);
  }
}

MockServer::MockServer() : MockServer(Options{}) {}

MockServer::MockServer(Options options) : options_(std::move(options)) {
  vocab_["the"] = 1;
  words_[1] = "the";
  server_ = std::make_unique<httplib::Server>();
  const std::size_t threads = options_.threads;
  server_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server_->set_keep_alive_max_count(1000000);
  server_->set_tcp_nodelay(true);
  server_->Post(".*", [this](const httplib::Request& req, httplib::Response& res) {
    auto auth = req.get_header_value("Authorization");
    Reply reply = handle(req.path, req.body, auth);
    res.status = reply.status;
    for (const auto& [k, v] : reply.headers) res.set_header(k, v);
    if (reply.close) {
      // Headers announce a body that never comes: the client sees the connection drop.
      res.set_content_provider(reply.body.size(), "application/json",
                               [](std::size_t, std::size_t, httplib::DataSink&) { return false; });
    } else {
      res.set_content(reply.body, "application/json");
    }
  });
  port_ = server_->bind_to_any_port("127.0.0.1");
  if (port_ <= 0) throw std::runtime_error("mock server: cannot bind 127.0.0.1");
  widen_backlog(port_);
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  // cpp-httplib 0.11 has no wait_until_ready().
  for (int i = 0; i < 5000 && !server_->is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (!server_->is_running()) throw std::runtime_error("mock server did not start");
}

MockServer::~MockServer() {
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

std::string MockServer::base_url() const {
  return "http://127.0.0.1:" + std::to_string(port_) + "/v1";
}

void MockServer::set_handler(std::function<std::string(const json&)> handler) {
  std::lock_guard lock(mutex_);
  handler_ = std::move(handler);
}

void MockServer::set_fault_rule(std::function<std::optional<MockFault>(const json&)> rule) {
  std::lock_guard lock(mutex_);
  rule_ = std::move(rule);
}

void MockServer::push_fault(MockFault fault) {
  std::lock_guard lock(mutex_);
  faults_.push_back(std::move(fault));
}

void MockServer::set_latency_ms(int ms) {
  latency_ms_ = ms;
}

std::vector<MockCall> MockServer::calls() const {
  std::lock_guard lock(mutex_);
  return calls_;
}

std::size_t MockServer::count(std::string_view path) const {
  std::lock_guard lock(mutex_);
  if (path.empty()) return calls_.size();
  return static_cast<std::size_t>(std::count_if(calls_.begin(), calls_.end(),
                                                [&](const MockCall& c) { return c.path == path; }));
}

void MockServer::reset() {
  std::lock_guard lock(mutex_);
  calls_.clear();
  faults_.clear();
  rule_ = nullptr;
  handler_ = nullptr;
  latency_ms_ = 0;
  max_in_flight_ = 0;
}

double MockServer::now() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - epoch_).count();
}

std::vector<std::string> MockServer::words(std::string_view text) {
  std::vector<std::string> out;
  std::istringstream in{std::string(text)};
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

double MockServer::logprob(const std::vector<std::string>& tokens, std::size_t i) {
  const auto end = tokens.begin() + static_cast<std::ptrdiff_t>(i);
  return std::find(tokens.begin(), end, tokens[i]) != end ? -1.0 : -5.0;
}

std::int64_t MockServer::token_id(const std::string& word) {
  std::lock_guard lock(mutex_);
  auto [it, inserted] = vocab_.emplace(word, static_cast<std::int64_t>(vocab_.size()) + 1);
  if (inserted) words_[it->second] = word;
  return it->second;
}

std::string MockServer::token_word(std::int64_t id) const {
  std::lock_guard lock(mutex_);
  auto it = words_.find(id);
  return it == words_.end() ? "<" + std::to_string(id) + ">" : it->second;
}

MockServer::Reply MockServer::handle(const std::string& path, const std::string& body,
                                     const std::string& auth) {
  const double start = now();
  const int current = ++in_flight_;
  for (int seen = max_in_flight_.load();
       current > seen && !max_in_flight_.compare_exchange_weak(seen, current);) {
  }
  if (int ms = latency_ms_.load(); ms > 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));

  Reply reply;
  try {
    const json request = json::parse(body, nullptr, false);
    std::optional<MockFault> fault;
    std::function<std::optional<MockFault>(const json&)> rule;
    {
      std::lock_guard lock(mutex_);
      rule = rule_;
    }
    if (rule && !request.is_discarded()) fault = rule(request);
    {
      std::lock_guard lock(mutex_);
      if (!fault && !faults_.empty()) {
        fault = faults_.front();
        faults_.pop_front();
      }
    }
    if (fault && fault->kind == MockFault::Kind::kDelay)
      std::this_thread::sleep_for(std::chrono::milliseconds(fault->delay_ms));
    if (!options_.api_key.empty() && auth != "Bearer " + options_.api_key) {
      reply = {401, error_body("Incorrect API key provided.", "invalid_request_error"), {}, false};
    } else if (fault && fault->kind == MockFault::Kind::kStatus) {
      reply.status = fault->status;
      reply.body =
          error_body(fault->message.empty() ? "mock fault: HTTP " + std::to_string(fault->status)
                                            : fault->message,
                     fault->status == 429      ? "rate_limit_error"
                     : !fault->message.empty() ? "invalid_request_error"
                                               : "server_error");
      if (!fault->retry_after.empty()) reply.headers["Retry-After"] = fault->retry_after;
    } else if (request.is_discarded() || !request.is_object()) {
      reply = {400,
               error_body("The request body is not valid JSON.", "invalid_request_error"),
               {},
               false};
    } else if (path == "/v1/chat/completions" || path == "/v1/completions") {
      reply = generate(path, request, fault);
    } else if (path == "/tokenize") {
      reply = tokenize(request);
    } else {
      reply = {404, error_body("Not found: " + path, "not_found_error"), {}, false};
    }
  } catch (const std::exception& e) {
    reply = {
        500, error_body(std::string("mock server error: ") + e.what(), "server_error"), {}, false};
  }

  --in_flight_;
  std::lock_guard lock(mutex_);
  calls_.push_back({path, body, auth, reply.close ? 0 : reply.status, start, now()});
  return reply;
}

MockServer::Reply MockServer::generate(const std::string& path, const json& request,
                                       const std::optional<MockFault>& fault) {
  const bool chat = path == "/v1/chat/completions";
  const std::string model = request.value("model", "");
  if (!options_.model.empty() && model != options_.model)
    return {
        404, error_body("The model `" + model + "` does not exist.", "NotFoundError"), {}, false};

  // The prompt as tokens and as text.
  std::vector<std::string> prompt;
  std::string prompt_text;
  if (chat) {
    const auto it = request.find("messages");
    if (it == request.end() || !it->is_array() || it->empty())
      return {400,
              error_body("'messages' must be a non-empty array", "invalid_request_error"),
              {},
              false};
    for (const auto& m : *it) {
      if (!m.is_object() || !m.contains("content") || !m["content"].is_string())
        return {400,
                error_body("each message needs a string 'content'", "invalid_request_error"),
                {},
                false};
      for (auto& w : words(m["content"].get<std::string>())) prompt.push_back(std::move(w));
    }
    prompt_text = join(prompt, 0, prompt.size());
  } else {
    const auto it = request.find("prompt");
    if (it == request.end())
      return {400, error_body("'prompt' is required", "invalid_request_error"), {}, false};
    if (it->is_string()) {
      prompt_text = it->get<std::string>();
      prompt = words(prompt_text);
    } else if (it->is_array() && std::all_of(it->begin(), it->end(),
                                             [](const json& v) { return v.is_number_integer(); })) {
      for (const auto& v : *it) prompt.push_back(token_word(v.get<std::int64_t>()));
      prompt_text = join(prompt, 0, prompt.size());
    } else {
      return {
          400,
          error_body("'prompt' must be a string or a list of token ids", "invalid_request_error"),
          {},
          false};
    }
  }
  if (request.value("echo", false) && chat)
    return {400, error_body("'echo' is not a chat parameter", "invalid_request_error"), {}, false};

  std::string reply_text;
  {
    std::function<std::string(const json&)> handler;
    {
      std::lock_guard lock(mutex_);
      handler = handler_;
    }
    reply_text = handler ? handler(request) : "ok";
  }
  std::vector<std::string> generated = words(reply_text);
  std::string finish = "stop";
  const int max_tokens = request.contains("max_tokens") && request["max_tokens"].is_number_integer()
                             ? request["max_tokens"].get<int>()
                             : -1;
  if (max_tokens >= 0 && generated.size() > static_cast<std::size_t>(max_tokens)) {
    generated.resize(static_cast<std::size_t>(max_tokens));
    reply_text = join(generated, 0, generated.size());
    finish = "length";
  }
  if (fault && fault->kind == MockFault::Kind::kEmptyContent) {
    generated.clear();
    reply_text.clear();
    finish = "length";
  }
  const bool echo = !chat && options_.scores_prompts && request.value("echo", false);
  std::string text = reply_text;
  if (echo) text = prompt_text + (reply_text.empty() ? "" : " " + reply_text);

  std::vector<std::string> all = prompt;
  all.insert(all.end(), generated.begin(), generated.end());
  const std::size_t P = prompt.size();
  const int n = request.value("n", 1);

  ojson choice;
  choice["index"] = 0;
  if (chat)
    choice["message"] = {{"role", "assistant"}, {"content", text}};
  else
    choice["text"] = text;
  choice["finish_reason"] = finish;
  choice["logprobs"] = nullptr;

  const auto lp_it = request.find("logprobs");
  if (!chat && lp_it != request.end() && lp_it->is_number_integer()) {
    // Legacy completions format; with echo it covers the prompt too.
    ojson tokens = ojson::array(), values = ojson::array(), tops = ojson::array(),
          offsets = ojson::array();
    std::size_t offset = 0;
    for (std::size_t i = echo ? 0 : P; i < all.size(); ++i) {
      const std::size_t at = text.find(all[i], offset);
      const std::size_t pos = at == std::string::npos ? offset : at;
      offsets.push_back(pos);
      offset = pos + all[i].size();
      tokens.push_back(all[i]);
      if (i == 0) {
        values.push_back(nullptr);
        tops.push_back(nullptr);
      } else {
        values.push_back(logprob(all, i));
        tops.push_back(ojson{{all[i], logprob(all, i)}});
      }
    }
    choice["logprobs"] = {{"tokens", tokens},
                          {"token_logprobs", values},
                          {"top_logprobs", tops},
                          {"text_offset", offsets}};
  } else if (chat && lp_it != request.end() && lp_it->is_boolean() && lp_it->get<bool>()) {
    const int k = request.value("top_logprobs", 0);
    ojson content = ojson::array();
    for (std::size_t i = P; i < all.size(); ++i) {
      ojson top = ojson::array();
      if (k > 0)
        top.push_back({{"token", all[i]}, {"logprob", logprob(all, i)}, {"bytes", nullptr}});
      content.push_back({{"token", all[i]},
                         {"logprob", logprob(all, i)},
                         {"bytes", nullptr},
                         {"top_logprobs", top}});
    }
    choice["logprobs"] = {{"content", content}};
  }

  ojson prompt_lps;
  const auto plp = request.find("prompt_logprobs");
  if (options_.scores_prompts && plp != request.end() && plp->is_number_integer()) {
    // vLLM: the prompt token first, then alternatives; "the" (id 1) is the alternative here so
    // that a parser sorting object keys would pick the wrong entry.
    const int k = plp->get<int>();
    prompt_lps = ojson::array();
    for (std::size_t i = 0; i < P; ++i) {
      if (i == 0) {
        prompt_lps.push_back(nullptr);
        continue;
      }
      const bool alt = k > 0 && prompt[i] != "the";
      ojson pos = ojson::object();
      pos[std::to_string(token_id(prompt[i]))] = {
          {"logprob", logprob(prompt, i)}, {"rank", alt ? 2 : 1}, {"decoded_token", prompt[i]}};
      if (alt) pos["1"] = {{"logprob", -0.5}, {"rank", 1}, {"decoded_token", "the"}};
      prompt_lps.push_back(pos);
    }
    if (!chat) choice["prompt_logprobs"] = prompt_lps;
  }

  ojson out;
  out["id"] = chat ? "chatcmpl-mock" : "cmpl-mock";
  out["object"] = chat ? "chat.completion" : "text_completion";
  out["created"] = 1700000000;
  out["model"] = model;
  out["choices"] = ojson::array();
  for (int i = 0; i < std::max(n, 1); ++i) {
    choice["index"] = i;
    out["choices"].push_back(choice);
  }
  if (chat && !prompt_lps.is_null()) out["prompt_logprobs"] = prompt_lps;  // top level in chat
  const auto completion_tokens = generated.size() * static_cast<std::size_t>(std::max(n, 1));
  out["usage"] = {{"prompt_tokens", P},
                  {"completion_tokens", completion_tokens},
                  {"total_tokens", P + completion_tokens}};

  Reply reply;
  reply.body = out.dump();
  if (fault) {
    if (fault->kind == MockFault::Kind::kMalformed) reply.body = "this is not JSON {";
    if (fault->kind == MockFault::Kind::kTruncated) reply.body.resize(reply.body.size() / 2);
    if (fault->kind == MockFault::Kind::kClose) reply.close = true;
  }
  return reply;
}

MockServer::Reply MockServer::tokenize(const json& request) {
  std::vector<std::string> tokens;
  if (auto m = request.find("messages"); m != request.end() && m->is_array()) {
    for (const auto& msg : *m)
      if (msg.is_object() && msg.contains("content") && msg["content"].is_string())
        for (auto& w : words(msg["content"].get<std::string>())) tokens.push_back(std::move(w));
  } else if (auto p = request.find("prompt"); p != request.end() && p->is_string()) {
    tokens = words(p->get<std::string>());
  } else {
    return {
        400, error_body("'prompt' or 'messages' is required", "invalid_request_error"), {}, false};
  }
  json ids = json::array();
  for (const auto& t : tokens) ids.push_back(token_id(t));
  json out = {{"count", tokens.size()}, {"max_model_len", 4096}, {"tokens", ids}};
  if (request.value("return_token_strs", false)) out["token_strs"] = tokens;
  return {200, out.dump(), {}, false};
}

}  // namespace probity::test
