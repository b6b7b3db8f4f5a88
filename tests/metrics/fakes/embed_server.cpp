#include "metrics/fakes/embed_server.hpp"

#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "llm/mock_server.hpp"

namespace probity::test {
namespace {

using nlohmann::json;

std::string reply_text(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

EmbedReply reply_json(int status, const json& j) {
  return {status, reply_text(j), "application/json", {}};
}

EmbedReply plain(int status, const std::string& text) {
  return {status, text, "text/plain; charset=utf-8", {}};
}

struct RobertaFixture {
  std::int64_t bos = 0, eos = 2;
  std::string bos_text, eos_text;
  std::map<std::string, json> texts;
};

const RobertaFixture& roberta() {
  static const RobertaFixture f = [] {
    std::ifstream in(std::string(PROBITY_TEST_DIR) + "/metrics/fixtures/roberta_tokens.json");
    if (!in) throw std::runtime_error("embed fake: cannot read roberta_tokens.json");
    const json j = json::parse(in);
    RobertaFixture out;
    out.bos = j["bos"].get<std::int64_t>();
    out.eos = j["eos"].get<std::int64_t>();
    out.bos_text = j["bos_text"].get<std::string>();
    out.eos_text = j["eos_text"].get<std::string>();
    for (const auto& [text, v] : j["texts"].items()) out.texts[text] = v;
    return out;
  }();
  return f;
}

struct GoldenTable {
  std::vector<std::string> vocab;
  std::vector<std::vector<double>> vectors;
};

const GoldenTable& golden() {
  static const GoldenTable g = [] {
    std::ifstream in(std::string(PROBITY_TEST_DIR) + "/golden/bertscore/bertscore.jsonl");
    std::string line;
    if (!std::getline(in, line)) throw std::runtime_error("embed fake: cannot read the golden");
    const json h = json::parse(line);
    GoldenTable out;
    for (const auto& w : h["vocab"]) out.vocab.push_back(w.get<std::string>());
    for (const auto& row : h["vectors"]) out.vectors.push_back(row.get<std::vector<double>>());
    return out;
  }();
  return g;
}

std::uint64_t fnv1a(std::uint64_t h, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) {
    h ^= (v >> (8 * i)) & 0xFF;
    h *= 1099511628211ull;
  }
  return h;
}

// Python's str.split(): runs of whitespace (ASCII here: the golden texts are ASCII).
std::vector<std::pair<std::size_t, std::size_t>> split_words(const std::string& s) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::size_t i = 0;
  auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  while (i < s.size()) {
    while (i < s.size() && space(s[i])) ++i;
    const std::size_t b = i;
    while (i < s.size() && !space(s[i])) ++i;
    if (i > b) out.emplace_back(b, i);
  }
  return out;
}

std::size_t tokens_of_input(const FakeTokens& t) {
  return t.ids.size();
}

// The vectors of a token sequence; vLLM's token_embed pooler normalises each row (the
// activation of the "token_embed" task is on by default), TEI's /embed_all returns the raw
// hidden states.
json rows_of(const std::string& tokenizer, const std::vector<std::int64_t>& ids, bool normalise) {
  json rows = json::array();
  for (std::int64_t id : ids) {
    std::vector<double> v = fake_vector(tokenizer, id);
    if (normalise) {
      double sq = 0;
      for (double x : v) sq += x * x;
      const double n = std::sqrt(sq);
      // In double precision (a server sends float32), so that the goldens hold to 1e-9.
      for (double& x : v) x /= n;
    }
    rows.push_back(v);
  }
  return rows;
}

}  // namespace

EmbedReply tei_error(int status, const std::string& type, const std::string& message) {
  return reply_json(status, json{{"error", message}, {"error_type", type}});
}

EmbedReply vllm_error(int status, const std::string& type, const std::string& message) {
  return reply_json(
      status, json{{"error",
                    {{"message", message}, {"type", type}, {"param", nullptr}, {"code", status}}}});
}

FakeTokens fake_tokenize(const std::string& tokenizer, const std::string& text,
                         bool add_special_tokens) {
  FakeTokens out;
  auto push = [&](std::int64_t id, bool special, std::string piece,
                  std::optional<std::pair<std::size_t, std::size_t>> offsets) {
    out.ids.push_back(id);
    out.special.push_back(special);
    out.texts.push_back(std::move(piece));
    out.offsets.push_back(offsets);
  };
  if (tokenizer == "golden") {
    const GoldenTable& g = golden();
    if (add_special_tokens) push(1, true, "[CLS]", std::nullopt);
    for (const auto& [b, e] : split_words(text)) {
      const std::string w = text.substr(b, e - b);
      const auto it = std::find(g.vocab.begin(), g.vocab.end(), w);
      if (it == g.vocab.end() || it - g.vocab.begin() < 3)
        throw std::runtime_error("fake: word not in the golden table: \"" + w + "\" of \"" + text +
                                 "\"");
      push(it - g.vocab.begin(), false, w, std::make_pair(b, e));
    }
    if (add_special_tokens) push(2, true, "[SEP]", std::nullopt);
    return out;
  }
  if (tokenizer != "roberta") throw std::runtime_error("fake: unknown tokenizer " + tokenizer);
  const RobertaFixture& f = roberta();
  const auto it = f.texts.find(text);
  if (it == f.texts.end())
    throw std::runtime_error("fake: text not in the roberta tokenizer fixture: " +
                             json(text).dump());
  if (add_special_tokens) push(f.bos, true, f.bos_text, std::nullopt);
  const json& ids = it->second["ids"];
  const json& offsets = it->second["offsets"];
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (offsets.is_array()) {
      const auto b = offsets[i][0].get<std::size_t>(), e = offsets[i][1].get<std::size_t>();
      push(ids[i].get<std::int64_t>(), false, text.substr(b, e - b), std::make_pair(b, e));
    } else {
      push(ids[i].get<std::int64_t>(), false, "", std::nullopt);
    }
  }
  if (add_special_tokens) push(f.eos, true, f.eos_text, std::nullopt);
  return out;
}

std::vector<double> fake_vector(const std::string& tokenizer, std::int64_t id) {
  if (tokenizer == "golden") return golden().vectors.at(static_cast<std::size_t>(id));
  std::vector<double> v(8);
  for (std::size_t k = 0; k < v.size(); ++k) {
    const std::uint64_t h =
        fnv1a(fnv1a(14695981039346656037ull, static_cast<std::uint64_t>(id)), k);
    v[k] = static_cast<double>(static_cast<float>(static_cast<double>(h % 2001) / 500.0 - 2.0));
  }
  return v;
}

EmbedServer::EmbedServer(EmbedFakeOptions options) : options_(std::move(options)) {
  if (options_.tokenizer == "golden")
    golden();
  else
    roberta();  // fail at construction, not inside a request
  server_ = std::make_unique<httplib::Server>();
  // More threads than a client's concurrency (16 by default): cpp-httplib holds a thread per
  // kept-alive connection, where the real servers are asynchronous.
  server_->new_task_queue = [] { return new httplib::ThreadPool(64); };
  server_->set_keep_alive_max_count(1000000);
  server_->set_tcp_nodelay(true);
  auto handler = [this](const httplib::Request& req, httplib::Response& res) {
    std::size_t nth = 0;
    {
      std::lock_guard lock(mutex_);
      for (const auto& c : calls_) nth += c.path == req.path;
    }
    EmbedReply reply;
    std::optional<EmbedReply> injected;
    if (options_.fault) injected = options_.fault(req.path, nth);
    if (injected) {
      reply = *injected;
    } else {
      try {
        reply = handle(req.method, req.path, req.body);
      } catch (const std::exception& e) {
        reply = options_.flavour == EmbedFlavour::kTei
                    ? tei_error(500, "Backend", e.what())
                    : vllm_error(500, "InternalServerError", e.what());
      }
    }
    res.status = reply.status;
    for (const auto& [k, v] : reply.headers) res.set_header(k, v);
    res.set_content(reply.body, reply.content_type.c_str());
    std::lock_guard lock(mutex_);
    calls_.push_back({req.path, req.body, reply.status});
  };
  server_->Post(".*", handler);
  server_->Get(".*", handler);
  port_ = server_->bind_to_any_port("127.0.0.1");
  if (port_ <= 0) throw std::runtime_error("embed fake: cannot bind 127.0.0.1");
  widen_backlog(port_);
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  for (int i = 0; i < 5000 && !server_->is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (!server_->is_running()) throw std::runtime_error("embed fake did not start");
}

EmbedServer::~EmbedServer() {
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

std::string EmbedServer::url() const {
  return "http://127.0.0.1:" + std::to_string(port_);
}

std::vector<EmbedCall> EmbedServer::calls() const {
  std::lock_guard lock(mutex_);
  return calls_;
}

std::size_t EmbedServer::count(const std::string& path) const {
  std::lock_guard lock(mutex_);
  std::size_t n = 0;
  for (const auto& c : calls_) n += path.empty() || c.path == path;
  return n;
}

EmbedReply EmbedServer::handle(const std::string& method, const std::string& path,
                               const std::string& body) {
  if (options_.flavour == EmbedFlavour::kTei) {
    if (method == "GET" && path == "/info")
      return reply_json(200, json{{"model_id", options_.model},
                                  {"model_dtype", "float32"},
                                  {"model_type", {{"embedding", {{"pooling", "mean"}}}}},
                                  {"max_concurrent_requests", 512},
                                  {"max_input_length", options_.max_input_length},
                                  {"max_batch_tokens", 16384},
                                  {"max_client_batch_size", options_.max_client_batch_size},
                                  {"auto_truncate", options_.auto_truncate},
                                  {"tokenization_workers", 1},
                                  {"version", "1.9.3"}});
    if (method != "POST" || (path != "/tokenize" && path != "/embed_all")) return plain(404, "");
    return tei(path, body);
  }
  if (method == "GET" && path == "/v1/models")
    return reply_json(
        200, json{{"object", "list"},
                  {"data", json::array({json{{"id", options_.model},
                                             {"object", "model"},
                                             {"owned_by", "vllm"},
                                             {"root", options_.model},
                                             {"max_model_len", options_.max_input_length}}})}});
  if (method != "POST" || (path != "/tokenize" && path != "/pooling"))
    return reply_json(404, json{{"detail", "Not Found"}});
  return vllm(path, body);
}

// TEI: axum's Json extractor, then the handlers of router/src/http/server.rs.
EmbedReply EmbedServer::tei(const std::string& path, const std::string& body) {
  const EmbedFakeOptions& o = options_;
  if (body.size() > o.payload_limit)
    return plain(413, "Failed to buffer the request body: length limit exceeded");
  const json r = json::parse(body, nullptr, false);
  if (r.is_discarded())
    return plain(400,
                 "Failed to parse the request body as JSON: expected value at line 1 column 1");
  if (!r.is_object())
    return plain(422,
                 "Failed to deserialize the JSON body into the target type: invalid type: "
                 "expected struct");
  if (!r.contains("inputs"))
    return plain(422,
                 "Failed to deserialize the JSON body into the target type: missing field "
                 "`inputs`");
  // serde: unknown fields are ignored; `inputs` is a string or a list of strings.
  std::vector<std::string> inputs;
  const bool batch = r["inputs"].is_array();
  if (r["inputs"].is_string()) {
    inputs.push_back(r["inputs"].get<std::string>());
  } else if (batch) {
    for (const auto& v : r["inputs"]) {
      if (!v.is_string())
        return plain(422,
                     "Failed to deserialize the JSON body into the target type: inputs: data did "
                     "not match any variant of untagged enum Input");
      inputs.push_back(v.get<std::string>());
    }
  } else {
    return plain(422,
                 "Failed to deserialize the JSON body into the target type: inputs: data did not "
                 "match any variant of untagged enum Input");
  }
  auto bool_field = [&](const char* name, bool fallback) -> std::optional<bool> {
    if (!r.contains(name) || r[name].is_null()) return fallback;
    if (!r[name].is_boolean()) return std::nullopt;
    return r[name].get<bool>();
  };
  if (batch && inputs.empty()) return tei_error(400, "Empty", "`inputs` cannot be empty");
  if (batch && inputs.size() > o.max_client_batch_size)
    return tei_error(422, "Validation",
                     "batch size " + std::to_string(inputs.size()) +
                         " > maximum allowed batch size " +
                         std::to_string(o.max_client_batch_size));
  if (path == "/tokenize") {
    const auto add_special = bool_field("add_special_tokens", true);
    if (!add_special)
      return plain(422,
                   "Failed to deserialize the JSON body into the target type: "
                   "add_special_tokens: invalid type, expected a boolean");
    json out = json::array();
    for (const auto& text : inputs) {
      if (text.empty())
        return tei_error(400, "Empty", "Input validation error: `inputs` cannot be empty");
      const FakeTokens t = fake_tokenize(o.tokenizer, text, *add_special);
      json list = json::array();
      for (std::size_t i = 0; i < t.ids.size(); ++i) {
        json tok = {{"id", t.ids[i]}, {"text", t.texts[i]}, {"special", t.special[i]}};
        tok["start"] = t.offsets[i] ? json(t.offsets[i]->first) : json(nullptr);
        tok["stop"] = t.offsets[i] ? json(t.offsets[i]->second) : json(nullptr);
        list.push_back(tok);
      }
      out.push_back(list);
    }
    return reply_json(200, out);
  }
  // /embed_all: truncate is Option<bool>, None = the server's --auto-truncate.
  const auto truncate = bool_field("truncate", o.auto_truncate);
  if (!truncate)
    return plain(422,
                 "Failed to deserialize the JSON body into the target type: truncate: invalid "
                 "type, expected a boolean");
  if (r.contains("truncation_direction") && !r["truncation_direction"].is_null()) {
    const auto& d = r["truncation_direction"];
    if (!d.is_string() || (d != "left" && d != "Left" && d != "right" && d != "Right"))
      return plain(422,
                   "Failed to deserialize the JSON body into the target type: "
                   "truncation_direction: unknown variant");
  }
  if (r.contains("prompt_name") && !r["prompt_name"].is_null())
    return tei_error(422, "Validation",
                     "Input validation error: `default-prompt-name` is set to `" +
                         r["prompt_name"].dump() +
                         "` but no prompts were found in the Sentence Transformers configuration");
  json out = json::array();
  for (const auto& text : inputs) {
    if (text.empty())
      return tei_error(400, "Empty", "Input validation error: `inputs` cannot be empty");
    FakeTokens t = fake_tokenize(o.tokenizer, text, true);
    if (tokens_of_input(t) > o.max_input_length) {
      if (!*truncate)
        return tei_error(422, "Validation",
                         "Input validation error: `inputs` must have less than " +
                             std::to_string(o.max_input_length) +
                             " tokens. Given: " + std::to_string(t.ids.size()));
      // Right truncation keeps the first tokens and the closing special token.
      const std::int64_t last = t.ids.back();
      t.ids.resize(o.max_input_length - 1);
      t.ids.push_back(last);
    }
    out.push_back(rows_of(o.tokenizer, t.ids, false));
  }
  return reply_json(200, out);
}

// vLLM: FastAPI + pydantic (unknown fields ignored; validation errors are 400 in vLLM's
// handler), serving_tokenization.py and pooling/serving.py.
EmbedReply EmbedServer::vllm(const std::string& path, const std::string& body) {
  const EmbedFakeOptions& o = options_;
  const json r = json::parse(body, nullptr, false);
  if (r.is_discarded() || !r.is_object())
    return vllm_error(400, "Bad Request", "JSON decode error");
  if (r.contains("model") && !r["model"].is_null() && r["model"] != o.model)
    return vllm_error(404, "NotFoundError",
                      "The model `" + r["model"].get<std::string>() + "` does not exist.");
  const bool add_special = !r.contains("add_special_tokens") || r["add_special_tokens"] == true;
  if (path == "/tokenize") {
    if (!r.contains("prompt") || !r["prompt"].is_string())
      return vllm_error(400, "Bad Request",
                        "1 validation error:\n  {'type': 'missing', 'loc': ('body', 'prompt'), "
                        "'msg': 'Field required'}");
    const FakeTokens t = fake_tokenize(o.tokenizer, r["prompt"].get<std::string>(), add_special);
    const bool strs = r.contains("return_token_strs") && r["return_token_strs"] == true;
    json token_strs = nullptr;
    if (strs) {
      token_strs = json::array();
      for (const auto& s : t.texts) token_strs.push_back(s);
    }
    return reply_json(200, json{{"count", t.ids.size()},
                                {"max_model_len", o.max_input_length},
                                {"tokens", t.ids},
                                {"token_strs", token_strs}});
  }
  // /pooling
  if (r.contains("normalize"))
    return vllm_error(400, "Bad Request",
                      "Parameter `normalize` was removed; use `use_activation` instead.");
  if (!r.contains("input"))
    return vllm_error(400, "Bad Request",
                      "1 validation error:\n  {'type': 'missing', 'loc': ('body', 'input'), "
                      "'msg': 'Field required'}");
  static const std::vector<std::string> tasks = {
      "embed", "classify", "token_embed", "token_classify", "plugin", "embed&token_classify"};
  std::string task = o.token_embed ? "token_embed" : "embed";  // the model's default task
  if (r.contains("task") && !r["task"].is_null()) {
    if (!r["task"].is_string() ||
        std::find(tasks.begin(), tasks.end(), r["task"].get<std::string>()) == tasks.end())
      return vllm_error(400, "Bad Request",
                        "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', "
                        "'task'), 'msg': \"Input should be 'embed', 'classify', 'token_embed', "
                        "'token_classify', 'plugin' or 'embed&token_classify'\"}");
    task = r["task"].get<std::string>();
  }
  if ((task == "token_embed" && !o.token_embed) || (task != "token_embed" && task != "embed"))
    return vllm_error(400, "BadRequestError",
                      "Unsupported task: '" + task + "' Supported tasks: ('embed',)");
  std::vector<std::string> inputs;
  if (r["input"].is_string()) {
    inputs.push_back(r["input"].get<std::string>());
  } else if (r["input"].is_array() && !r["input"].empty() && r["input"][0].is_string()) {
    for (const auto& v : r["input"]) inputs.push_back(v.get<std::string>());
  } else {
    return vllm_error(500, "InternalServerError", "fake: token-id inputs are not modelled");
  }
  json data = json::array();
  std::size_t prompt_tokens = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const FakeTokens t = fake_tokenize(o.tokenizer, inputs[i], add_special);
    if (t.ids.size() > o.max_input_length)
      return vllm_error(400, "BadRequestError",
                        "This model's maximum context length is " +
                            std::to_string(o.max_input_length) +
                            " tokens. However, you requested " + std::to_string(t.ids.size()) +
                            " tokens in the input for embedding generation. Please reduce the "
                            "length of the input.");
    prompt_tokens += t.ids.size();
    json rows = rows_of(o.tokenizer, t.ids, true);
    json item_data = rows;
    if (task == "embed") {  // mean pooling, normalised: one vector
      std::vector<double> mean(rows[0].size(), 0.0);
      for (const auto& row : rows)
        for (std::size_t k = 0; k < mean.size(); ++k) mean[k] += row[k].get<double>();
      item_data = mean;
    }
    data.push_back({{"index", i}, {"object", "pooling"}, {"data", item_data}});
  }
  return reply_json(200, json{{"id", "pool-fake"},
                              {"object", "list"},
                              {"created", 1764633600},
                              {"model", o.model},
                              {"data", data},
                              {"usage",
                               {{"prompt_tokens", prompt_tokens},
                                {"total_tokens", prompt_tokens},
                                {"completion_tokens", 0},
                                {"prompt_tokens_details", nullptr}}}});
}

}  // namespace probity::test
