#include "llm/fakes/fake_server.hpp"

#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>

#include "llm/fakes/fake_batch.hpp"
#include "llm/mock_server.hpp"
#include "text/ascii.hpp"

namespace probity::test {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

// What a flavour remembers between requests.
struct FakeState {
  std::mutex mutex;
  std::vector<std::vector<std::int64_t>> llama_slots;  // llama.cpp: the tokens each slot holds
  std::vector<std::uint64_t> llama_used;               // and when it last served
  std::uint64_t llama_clock = 0;
  std::int64_t started = 0;  // llama.cpp's /v1/models `created`: when the model was loaded
  std::vector<std::vector<std::int64_t>> openai_prompts;  // OpenAI: prompts seen, for caching
};

namespace {

constexpr const char* kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// ---------------------------------------------------------------------------------------------
// UTF-8

void append_cp(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Length of the valid UTF-8 sequence starting at i, or 0 with `consumed` = the maximal subpart
// to replace by one U+FFFD (the Unicode "maximal subpart" practice that Python's
// errors="replace" and Rust's from_utf8_lossy both follow).
std::size_t utf8_step(std::string_view s, std::size_t i, std::size_t& consumed) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  std::size_t need = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (b0 < 0x80) return consumed = 1;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    consumed = 1;
    return 0;
  }
  std::size_t k = 1;
  for (; k <= need; ++k) {
    if (i + k >= s.size()) break;
    const auto b = static_cast<unsigned char>(s[i + k]);
    const unsigned char l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xBF;
    if (b < l || b > h) break;
  }
  if (k == need + 1) return consumed = need + 1;
  consumed = k;  // lead byte plus the valid continuation bytes seen
  return 0;
}

bool utf8_valid(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    std::size_t consumed = 0;
    if (utf8_step(s, i, consumed) == 0) return false;
    i += consumed;
  }
  return true;
}

std::string utf8_lossy(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t consumed = 0;
    if (utf8_step(s, i, consumed) == 0) {
      out += kReplacement;
    } else {
      out.append(s.substr(i, consumed));
    }
    i += consumed;
  }
  return out;
}

// Length of the longest prefix that does not end inside an incomplete sequence (llama.cpp's
// validate_utf8 cuts a trailing partial character only).
std::size_t utf8_complete_prefix(std::string_view s) {
  for (std::size_t back = 1; back <= 4 && back <= s.size(); ++back) {
    const auto c = static_cast<unsigned char>(s[s.size() - back]);
    if ((c & 0xC0) == 0x80) continue;  // continuation byte
    std::size_t len = c < 0x80           ? 1
                      : (c >> 5) == 0x6  ? 2
                      : (c >> 4) == 0xE  ? 3
                      : (c >> 3) == 0x1E ? 4
                                         : 1;
    return len > back ? s.size() - back : s.size();
  }
  return s.size();
}

std::vector<int> byte_array(std::string_view s) {
  std::vector<int> out;
  for (unsigned char c : s) out.push_back(c);
  return out;
}

bool ends_with_replacement(std::string_view s) {
  return s.size() >= 3 && s.substr(s.size() - 3) == kReplacement;
}

std::string hex_to_bytes(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

std::vector<std::uint32_t> code_point_list(std::string_view s) {
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < s.size();) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    std::size_t len = b0 < 0x80 ? 1 : (b0 >> 5) == 0x6 ? 2 : (b0 >> 4) == 0xE ? 3 : 4;
    std::uint32_t cp = len == 1   ? b0
                       : len == 2 ? (b0 & 0x1Fu)
                       : len == 3 ? (b0 & 0x0Fu)
                                  : (b0 & 0x07u);
    for (std::size_t k = 1; k < len && i + k < s.size(); ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3Fu);
    out.push_back(cp);
    i += len;
  }
  return out;
}

// GPT-2's bytes_to_unicode, inverted: byte-level BPE pieces ("ĠA") back to bytes.
const std::map<std::uint32_t, unsigned char>& byte_level_decoder() {
  static const std::map<std::uint32_t, unsigned char> table = [] {
    std::map<std::uint32_t, unsigned char> t;
    std::set<int> direct;
    for (int b = '!'; b <= '~'; ++b) direct.insert(b);
    for (int b = 0xA1; b <= 0xAC; ++b) direct.insert(b);
    for (int b = 0xAE; b <= 0xFF; ++b) direct.insert(b);
    int n = 0;
    for (int b = 0; b < 256; ++b) {
      if (direct.count(b)) {
        t[static_cast<std::uint32_t>(b)] = static_cast<unsigned char>(b);
      } else {
        t[static_cast<std::uint32_t>(256 + n)] = static_cast<unsigned char>(b);
        ++n;
      }
    }
    return t;
  }();
  return table;
}

// ---------------------------------------------------------------------------------------------
// Fixtures

struct Fixture {
  std::string name;
  bool sentencepiece = false;
  std::optional<std::int64_t> bos, eos;
  std::string bos_piece, eos_piece;
  std::map<std::string, FixtureTokens> texts;
  std::map<std::int64_t, std::string> vocab;  // id -> piece, union over the fixture's texts
  std::vector<std::int64_t> clean;            // ids whose decode is complete text (alternatives)
};

std::string fixture_path(const std::string& name) {
  return std::string(PROBITY_TEST_DIR) + "/llm/fixtures/tokens/" + name + ".json";
}

bool is_special(const Fixture& fx, std::int64_t id) {
  return (fx.bos && *fx.bos == id) || (fx.eos && *fx.eos == id);
}

std::optional<unsigned char> spm_byte(const std::string& piece) {
  if (piece.size() == 6 && piece.rfind("<0x", 0) == 0 && piece.back() == '>')
    return static_cast<unsigned char>(std::stoi(piece.substr(3, 2), nullptr, 16));
  return std::nullopt;
}

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  for (std::size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size())
    s.replace(pos, from.size(), to);
  return s;
}

const std::string& piece_of(const Fixture& fx, std::int64_t id) {
  auto it = fx.vocab.find(id);
  if (it == fx.vocab.end())
    throw std::runtime_error("fake: token id " + std::to_string(id) + " is not in the " + fx.name +
                             " fixture vocabulary");
  return it->second;
}

std::string token_bytes(const Fixture& fx, std::int64_t id) {
  const std::string& piece = piece_of(fx, id);
  if (is_special(fx, id)) return piece;
  if (fx.sentencepiece) {
    if (auto b = spm_byte(piece)) return std::string(1, static_cast<char>(*b));
    return replace_all(piece, "\xE2\x96\x81", " ");
  }
  std::string out;
  const auto& table = byte_level_decoder();
  for (std::uint32_t cp : code_point_list(piece)) {
    auto it = table.find(cp);
    if (it == table.end()) {
      append_cp(out, cp);  // added tokens are stored as their text
    } else {
      out += static_cast<char>(it->second);
    }
  }
  return out;
}

std::string decode_one(const Fixture& fx, std::int64_t id) {
  if (is_special(fx, id)) return piece_of(fx, id);
  if (!fx.sentencepiece) return utf8_lossy(token_bytes(fx, id));
  const std::string& piece = piece_of(fx, id);
  if (auto b = spm_byte(piece))
    return *b < 0x80 ? std::string(1, static_cast<char>(*b)) : kReplacement;
  std::string text = replace_all(piece, "\xE2\x96\x81", " ");
  if (!text.empty() && text[0] == ' ') text.erase(0, 1);  // the Strip decoder
  return text;
}

std::string decode_seq(const Fixture& fx, std::span<const std::int64_t> ids, bool skip_special) {
  if (!fx.sentencepiece) {
    std::string bytes;
    for (auto id : ids) {
      if (skip_special && is_special(fx, id)) continue;
      bytes += token_bytes(fx, id);
    }
    return utf8_lossy(bytes);
  }
  std::string out, run;
  std::size_t run_tokens = 0;
  auto flush = [&] {
    if (run_tokens == 0) return;
    if (utf8_valid(run)) {
      out += run;
    } else {
      for (std::size_t i = 0; i < run_tokens; ++i) out += kReplacement;
    }
    run.clear();
    run_tokens = 0;
  };
  for (auto id : ids) {
    if (skip_special && is_special(fx, id)) continue;
    const std::string& piece = piece_of(fx, id);
    if (auto b = spm_byte(piece); b && !is_special(fx, id)) {
      run += static_cast<char>(*b);
      ++run_tokens;
      continue;
    }
    flush();
    out += is_special(fx, id) ? piece : replace_all(piece, "\xE2\x96\x81", " ");
  }
  flush();
  if (!out.empty() && out[0] == ' ') out.erase(0, 1);
  return out;
}

const Fixture& load_fixture(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Fixture>> cache;
  std::lock_guard lock(mutex);
  if (auto it = cache.find(name); it != cache.end()) return *it->second;
  std::ifstream in(fixture_path(name));
  if (!in) throw std::runtime_error("fake: no tokenizer fixture " + fixture_path(name));
  const json doc = json::parse(in);
  auto fx = std::make_unique<Fixture>();
  fx->name = name;
  fx->sentencepiece = doc.value("kind", "") == "sentencepiece";
  for (const char* key : {"bos", "eos"}) {
    if (!doc.contains(key) || doc[key].is_null()) continue;
    const auto id = doc[key]["id"].get<std::int64_t>();
    const auto piece = doc[key]["piece"].get<std::string>();
    (std::string(key) == "bos" ? fx->bos : fx->eos) = id;
    (std::string(key) == "bos" ? fx->bos_piece : fx->eos_piece) = piece;
    fx->vocab[id] = piece;
  }
  for (const auto& [text, t] : doc["texts"].items()) {
    FixtureTokens tokens;
    tokens.ids = t["ids"].get<std::vector<std::int64_t>>();
    tokens.pieces = t["pieces"].get<std::vector<std::string>>();
    tokens.bytes = t["bytes"].get<std::vector<std::string>>();
    tokens.offsets = t["offsets"].get<std::vector<std::size_t>>();
    tokens.dummy_prefix = t.value("dummy_prefix", false);
    for (std::size_t i = 0; i < tokens.ids.size() && i < tokens.pieces.size(); ++i)
      fx->vocab.emplace(tokens.ids[i], tokens.pieces[i]);
    fx->texts.emplace(text, std::move(tokens));
  }
  for (const auto& [id, piece] : fx->vocab) {
    if (is_special(*fx, id)) continue;
    const std::string text = decode_one(*fx, id);
    if (!text.empty() && text.find(kReplacement) == std::string::npos) fx->clean.push_back(id);
  }
  auto& ref = *fx;
  cache.emplace(name, std::move(fx));
  return ref;
}

void record_missing(const std::string& text) {
  const char* path = std::getenv("PROBITY_FIXTURE_RECORD");
  if (path == nullptr || *path == '\0') return;
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  std::ofstream out(path, std::ios::app);
  out << json(text).dump() << '\n';
}

// A request a replayed transcript does not hold, in the form record_transcript.py send reads.
void record_unmatched(const std::string& method, const std::string& path, const std::string& body) {
  const char* file = std::getenv("PROBITY_TRANSCRIPT_RECORD");
  if (file == nullptr || *file == '\0') return;
  json line = {{"method", method}, {"path", path}};
  const json parsed = json::parse(body, nullptr, false);
  if (body.empty()) {
    line["request"] = nullptr;
  } else if (parsed.is_discarded()) {
    line["request_text"] = body;
  } else {
    line["request"] = parsed;
  }
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  std::ofstream out(file, std::ios::app);
  out << line.dump() << '\n';
}

const FixtureTokens* find_tokens(const Fixture& fx, const std::string& text) {
  auto it = fx.texts.find(text);
  return it == fx.texts.end() ? nullptr : &it->second;
}

const FixtureTokens& require_tokens(const Fixture& fx, const std::string& text) {
  if (const auto* t = find_tokens(fx, text)) return *t;
  record_missing(text);
  throw std::runtime_error("fake: text not in the " + fx.name +
                           " tokenizer fixture: " + json(text).dump() +
                           " (add it to tests/llm/fixtures/extra_texts.txt and regenerate)");
}

// ---------------------------------------------------------------------------------------------
// The log-probability table

std::uint64_t fnv(std::span<const std::int64_t> context, std::int64_t token) {
  std::uint64_t h = 14695981039346656037ull;
  auto mix = [&h](std::int64_t v) {
    const auto u = static_cast<std::uint64_t>(v);
    for (int i = 0; i < 8; ++i) {
      h ^= (u >> (8 * i)) & 0xFFu;
      h *= 1099511628211ull;
    }
  };
  for (auto v : context) mix(v);
  mix(token);
  return h;
}

struct Scored {
  std::int64_t id;
  double logprob;
  int rank;
};

// The top-k list (ranks 1..k) of a position: the actual token holds its fake_rank when that is
// within k; alternatives (fixture tokens that decode to complete text) fill the other ranks with
// log-probabilities stepped by 1/16 around the actual token's.
std::vector<Scored> top_k(const Fixture& fx, std::span<const std::int64_t> context,
                          std::int64_t token, int k) {
  std::vector<Scored> out;
  if (k <= 0) return out;
  const double lp = fake_logprob(context, token);
  const int r = fake_rank(context, token);
  const std::uint64_t h = fnv(context, token);
  std::set<std::int64_t> used{token};
  for (int j = 1; j <= k; ++j) {
    if (j == r) {
      out.push_back({token, lp, r});
      continue;
    }
    std::int64_t alt = 0;
    for (std::uint64_t step = 0; step < fx.clean.size() + 1; ++step) {
      alt = fx.clean.empty()
                ? 0
                : fx.clean[(h + static_cast<std::uint64_t>(j) * 7919u + step) % fx.clean.size()];
      if (!used.count(alt)) break;
    }
    used.insert(alt);
    out.push_back({alt, lp + static_cast<double>(r - j) * 0.0625, j});
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Requests and replies

std::string header(const std::map<std::string, std::string>& headers, const std::string& name) {
  for (const auto& [k, v] : headers)
    if (text::ascii_lower(k) == text::ascii_lower(name)) return v;
  return "";
}

std::string random_hex(std::size_t n) {
  static std::atomic<std::uint64_t> counter{0x9E3779B97F4A7C15ull};
  std::mt19937_64 rng(counter.fetch_add(0x632BE59BD9B4E019ull));
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += digits[rng() % 16];
  return out;
}

std::string random_alnum(std::size_t n) {
  static std::atomic<std::uint64_t> counter{0x2545F4914F6CDD1Dull};
  std::mt19937_64 rng(counter.fetch_add(0x9E3779B97F4A7C15ull));
  static const std::string chars = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += chars[rng() % chars.size()];
  return out;
}

std::int64_t now_s() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

using Reply = FakeServer::Reply;

Reply reply_json(int status, const ojson& body) {
  return {status, body.dump(), "application/json", {}};
}

// A prompt after the server's tokenization.
struct Prompt {
  std::vector<std::int64_t> ids;    // what the model sees (BOS included where added)
  std::optional<std::string> text;  // the text as sent (absent for token-id prompts)
};

// The generated continuation.
struct Generated {
  std::vector<std::int64_t> ids;
  std::vector<std::string> bytes;  // each token's bytes within `text`
  std::vector<bool> synthetic;     // not a fixture token (the whole reply as one token)
  std::string text;
  bool truncated = false;
};

Generated generate(const Fixture& fx, const std::string& reply, std::optional<std::int64_t> max) {
  Generated g;
  if (const auto* t = find_tokens(fx, reply); t != nullptr) {
    for (std::size_t i = 0; i < t->ids.size(); ++i) {
      g.ids.push_back(t->ids[i]);
      g.bytes.push_back(hex_to_bytes(t->bytes[i]));
      g.synthetic.push_back(false);
    }
  } else if (!reply.empty()) {
    // Not in the fixture: one plausible token holding the whole reply.
    const auto h = static_cast<std::int64_t>(std::hash<std::string>{}(reply) % 1000u);
    g.ids.push_back(1000000 + h);
    g.bytes.push_back(reply);
    g.synthetic.push_back(true);
  }
  if (max && *max >= 0 && static_cast<std::size_t>(*max) < g.ids.size()) {
    g.ids.resize(static_cast<std::size_t>(*max));
    g.bytes.resize(g.ids.size());
    g.synthetic.resize(g.ids.size());
    g.truncated = true;
  }
  for (const auto& b : g.bytes) g.text += b;
  return g;
}

// request_schema() for either JSON type: llama.cpp's errors print the schema in its key order.
template <class J>
std::optional<J> schema_in(const J& request, Flavour flavour) {
  if (!request.is_object()) return std::nullopt;
  std::optional<J> schema;
  // llama.cpp's own field; response_format, when it asks for JSON, takes its place.
  if (flavour == Flavour::kLlamaCpp && request.contains("json_schema") &&
      request["json_schema"].is_object())
    schema = request["json_schema"];
  const J rf = request.value("response_format", J());
  if (rf.is_object()) {
    std::string type = rf.value("type", "");
    if (flavour == Flavour::kOllama) {
      // Ollama compares the type trimmed and case-insensitively.
      type = text::ascii_lower(type);
      type.erase(0, type.find_first_not_of(" \t\n\r"));
      type.erase(type.find_last_not_of(" \t\n\r") + 1);
    }
    if (type == "json_schema") {
      const J wrapper = rf.value("json_schema", J());
      if (wrapper.is_object() && wrapper.contains("schema") && wrapper["schema"].is_object()) {
        schema = wrapper["schema"];
      } else if (flavour == Flavour::kLlamaCpp) {
        schema = J::object();  // any JSON: its grammar of an empty schema
      }
    } else if (type == "json_object") {
      if (flavour == Flavour::kLlamaCpp && rf.contains("schema")) {
        schema = rf["schema"];
      } else if (!schema || flavour != Flavour::kLlamaCpp) {
        schema = J{{"type", "object"}};
      }
    }
  }
  return schema;
}

std::string reply_for(const FakeOptions& o, const json& request) {
  if (o.reply) return o.reply(request);
  // Real servers constrain decoding to the schema they are given.
  if (o.structured_replies)
    if (auto text = schema_reply(request, o.flavour)) return *text;
  return "ok";
}

// Approximate chat prompt size: 3 tokens per message plus a quarter of its content bytes,
// plus 3 for the reply primer (the shape of OpenAI's published counting recipe).
std::int64_t approx_chat_prompt_tokens(const json& messages) {
  std::int64_t n = 3;
  for (const auto& m : messages) {
    n += 3;
    if (m.contains("content") && m["content"].is_string())
      n += static_cast<std::int64_t>((m["content"].get<std::string>().size() + 3) / 4);
  }
  return n;
}

// The pseudo context of a chat reply's first token: chats are not tokenized.
std::vector<std::int64_t> chat_context(const json& messages) {
  return {
      static_cast<std::int64_t>(std::hash<std::string>{}(messages.dump()) & 0x3FFFFFFFFFFFFFFFull)};
}

std::optional<std::int64_t> int_field(const json& r, const char* key) {
  if (r.contains(key) && r[key].is_number_integer()) return r[key].get<std::int64_t>();
  return std::nullopt;
}

bool truthy(const json& r, const char* key) {
  if (!r.contains(key)) return false;
  const auto& v = r[key];
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number_integer()) return v.get<std::int64_t>() != 0;
  if (v.is_number()) return v.get<double>() != 0.0;
  if (v.is_string()) return !v.get<std::string>().empty();
  return !v.is_null();
}

std::vector<std::int64_t> with_bos(const Fixture& fx, const std::vector<std::int64_t>& ids,
                                   bool add) {
  std::vector<std::int64_t> out;
  if (add && fx.bos) out.push_back(*fx.bos);
  out.insert(out.end(), ids.begin(), ids.end());
  return out;
}

bool is_int_array(const json& v) {
  return v.is_array() && !v.empty() &&
         std::all_of(v.begin(), v.end(), [](const json& e) { return e.is_number_integer(); });
}

bool is_str_array(const json& v) {
  return v.is_array() && !v.empty() &&
         std::all_of(v.begin(), v.end(), [](const json& e) { return e.is_string(); });
}

// Prompts of a completions request: a string, a list of strings, a list of token ids, or a list
// of such lists; text prompts get BOS when add_bos.
std::vector<Prompt> prompts_of(const Fixture& fx, const json& p, bool add_bos) {
  std::vector<Prompt> out;
  auto text = [&](const std::string& s) {
    // Every tokenizer makes no tokens of "": no fixture entry needed.
    static const std::vector<std::int64_t> none;
    out.push_back({with_bos(fx, s.empty() ? none : require_tokens(fx, s).ids, add_bos), s});
  };
  if (p.is_string()) {
    text(p.get<std::string>());
  } else if (is_int_array(p)) {
    out.push_back({p.get<std::vector<std::int64_t>>(), std::nullopt});
  } else if (is_str_array(p)) {
    for (const auto& s : p) text(s.get<std::string>());
  } else if (p.is_array() && !p.empty() && std::all_of(p.begin(), p.end(), is_int_array)) {
    for (const auto& ids : p) out.push_back({ids.get<std::vector<std::int64_t>>(), std::nullopt});
  } else {
    throw std::invalid_argument("prompt");
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// vLLM (vllm/entrypoints/openai/completion/*, serve/*)

ojson vllm_error(int status, const std::string& type, const std::string& message,
                 const json& param = nullptr) {
  return ojson{
      {"error", {{"message", message}, {"type", type}, {"param", param}, {"code", status}}}};
}

// A pydantic validation failure as vLLM's validation_exception_handler reports it.
Reply vllm_validation(const std::string& msg, const json& param, std::size_t fields) {
  const std::string message =
      "1 validation error:\n  {'type': 'value_error', 'loc': 'body', "
      "'msg': 'Value error, " +
      msg + "', 'input': '<dict of " + std::to_string(fields) + " items>'}";
  return reply_json(400, vllm_error(400, "Bad Request", message, param));
}

const Reply kFastApiNotFound{404, R"({"detail":"Not Found"})", "application/json", {}};

std::string vllm_token_string(const Fixture& fx, std::int64_t id, bool first, bool synthetic,
                              const std::string& bytes, bool as_ids) {
  if (as_ids) return "token_id:" + std::to_string(id);
  if (synthetic) return utf8_lossy(bytes);
  // The first prompt position has no Logprob, so the server calls tokenizer.decode(id); the
  // others carry decoded_token from convert_ids_list_to_tokens + _verify_tokens, which turns a
  // token ending in U+FFFD into "" when no neighbour completes it.
  std::string text = decode_one(fx, id);
  if (!first && ends_with_replacement(text)) text.clear();
  return text;
}

struct VllmStep {
  // Position dictionary {token id: Logprob}: the actual token first, then ranks 1..k.
  std::vector<Scored> entries;
};

VllmStep vllm_step(const Fixture& fx, std::span<const std::int64_t> context, std::int64_t token,
                   int k) {
  VllmStep s;
  s.entries.push_back({token, fake_logprob(context, token), fake_rank(context, token)});
  for (const auto& e : top_k(fx, context, token, k))
    if (e.id != token) s.entries.push_back(e);
  return s;
}

ojson vllm_prompt_logprobs(const Fixture& fx, const std::vector<std::int64_t>& ids, int k) {
  ojson list = ojson::array();
  list.push_back(nullptr);
  for (std::size_t i = 1; i < ids.size(); ++i) {
    std::span<const std::int64_t> ctx(ids.data(), i);
    ojson pos = ojson::object();
    for (const auto& e : vllm_step(fx, ctx, ids[i], k).entries) {
      std::string decoded = decode_one(fx, e.id);
      if (ends_with_replacement(decoded)) decoded.clear();
      pos[std::to_string(e.id)] = {
          {"logprob", std::max(e.logprob, -9999.0)}, {"rank", e.rank}, {"decoded_token", decoded}};
    }
    list.push_back(std::move(pos));
  }
  return list;
}

// vLLM's and SGLang's context: FakeOptions::context_tokens, else kMaxModelLen.
std::int64_t max_model_len(const FakeOptions& o) {
  return o.context_tokens > 0 ? static_cast<std::int64_t>(o.context_tokens)
                              : FakeServer::kMaxModelLen;
}

// TokenizeParams (vllm/renderers/params.py): the output budget must fit the context, and the
// prompt must fit what the budget leaves; both are 400s naming the parameter.
std::optional<Reply> vllm_context_check(const FakeOptions& o, std::int64_t input_len,
                                        std::int64_t max_output, const std::string& output_param) {
  const std::int64_t total = max_model_len(o);
  if (max_output > total)
    return reply_json(
        400, vllm_error(400, "BadRequestError",
                        output_param + "=" + std::to_string(max_output) +
                            "cannot be greater than max_model_len=max_total_tokens=" +
                            std::to_string(total) + ". Please request fewer output tokens.",
                        output_param));
  if (input_len > total - max_output)
    return reply_json(
        400,
        vllm_error(400, "BadRequestError",
                   "You passed " + std::to_string(input_len) + " input tokens and requested " +
                       std::to_string(max_output) +
                       " output tokens. However, the model's context length is only " +
                       std::to_string(total) + " tokens, resulting in a maximum input length of " +
                       std::to_string(total - max_output) +
                       " tokens. Please reduce the length of the input prompt.",
                   "input_tokens"));
  return std::nullopt;
}

// response_format as the request models read it: ResponseFormat{type: text | json_object |
// json_schema, json_schema: {name, schema, strict}} or a structural tag, and the validator
// requiring json_schema with that type.
std::optional<Reply> vllm_response_format(const json& r) {
  if (!r.contains("response_format") || r["response_format"].is_null()) return std::nullopt;
  const json& rf = r["response_format"];
  const std::string type = rf.is_object() ? rf.value("type", "") : "";
  if (type == "json_schema" && (!rf.contains("json_schema") || rf["json_schema"].is_null()))
    return vllm_validation(
        "When response_format type is 'json_schema', the 'json_schema' field must be provided.",
        "response_format", r.size());
  auto pydantic = [&](const std::string& kind, const std::string& loc, const std::string& msg) {
    return reply_json(400, vllm_error(400, "Bad Request",
                                      "1 validation error:\n  {'type': '" + kind + "', 'loc': '" +
                                          loc + "', 'msg': \"" + msg + "\"}",
                                      loc));
  };
  if (type == "json_schema" &&
      (!rf["json_schema"].is_object() || !rf["json_schema"].contains("name")))
    return pydantic("missing", "body.response_format.ResponseFormat.json_schema.name",
                    "Field required");
  if (type != "text" && type != "json_object" && type != "json_schema" && type != "structural_tag")
    return pydantic("literal_error", "body.response_format.ResponseFormat.type",
                    "Input should be 'text', 'json_object' or 'json_schema'");
  return std::nullopt;
}

Reply vllm_completions(const FakeOptions& o, const Fixture& fx, const json& r) {
  const std::string model =
      r.contains("model") && r["model"].is_string() ? r["model"].get<std::string>() : "";
  const std::size_t fields = r.size();
  // CompletionRequest model validators (mode="before") run first.
  for (const char* key : {"prompt_logprobs", "logprobs"}) {
    if (r.contains(key) && !r[key].is_null() && !r[key].is_number())
      return vllm_validation(std::string("`") + key + "` must be an integer.", key, fields);
  }
  if (r.contains("prompt_logprobs") && r["prompt_logprobs"].is_number()) {
    const auto v = r["prompt_logprobs"].get<double>();
    if (truthy(r, "stream") && (v > 0 || v == -1))
      return vllm_validation("`prompt_logprobs` are not available when `stream=True`.",
                             "prompt_logprobs", fields);
    if (v < 0 && v != -1)
      return vllm_validation("`prompt_logprobs` must be a positive value or -1.", "prompt_logprobs",
                             fields);
  }
  if (r.contains("logprobs") && r["logprobs"].is_number()) {
    const auto v = r["logprobs"].get<double>();
    if (v < 0 && v != -1)
      return vllm_validation("`logprobs` must be a positive value or -1.", "logprobs", fields);
  }
  if (auto e = vllm_response_format(r)) return *e;
  if (!r.contains("prompt") || r["prompt"].is_null() ||
      (r["prompt"].is_string() && r["prompt"].get<std::string>().empty()))
    return vllm_validation("Either prompt or prompt_embeds must be provided and non-empty.",
                           "prompt", fields);
  if (!model.empty() && model != o.model)
    return reply_json(404, vllm_error(404, "NotFoundError",
                                      "The model `" + model + "` does not exist.", "model"));

  const bool echo = truthy(r, "echo");
  const auto logprobs = int_field(r, "logprobs");
  auto prompt_logprobs = int_field(r, "prompt_logprobs");
  if ((logprobs && *logprobs == -1) || (prompt_logprobs && *prompt_logprobs == -1))
    return reply_json(500, vllm_error(500, "InternalServerError",
                                      "fake: full-vocabulary log-probabilities (-1) are not "
                                      "modelled"));
  // to_sampling_params: echo without prompt_logprobs scores the prompt with `logprobs`.
  if (!prompt_logprobs && echo) prompt_logprobs = logprobs;
  std::int64_t max_tokens = 16;  // the field default; null is normalised to it too
  if (r.contains("max_tokens") && r["max_tokens"].is_number_integer())
    max_tokens = r["max_tokens"].get<std::int64_t>();
  const bool return_token_ids = truthy(r, "return_token_ids");
  const bool as_ids = truthy(r, "return_tokens_as_token_ids");
  const std::int64_t n = int_field(r, "n").value_or(1);
  const bool add_special = !r.contains("add_special_tokens") || truthy(r, "add_special_tokens");

  std::vector<Prompt> prompts;
  try {
    prompts = prompts_of(fx, r["prompt"], add_special);
  } catch (const std::invalid_argument&) {
    return vllm_validation("Input should be a valid string or list of non-negative integers",
                           "prompt", fields);
  }
  const std::string reply = reply_for(o, r);
  ojson choices = ojson::array();
  std::int64_t prompt_tokens = 0, completion_tokens = 0;
  for (const auto& p : prompts) {
    const auto input_len = static_cast<std::int64_t>(p.ids.size());
    if (auto e = vllm_context_check(o, input_len, max_tokens, "max_tokens")) return *e;
    const bool echo_only = echo && max_tokens == 0;
    const std::int64_t engine_max = echo_only ? 1 : max_tokens;
    if (engine_max < 1)
      return reply_json(400, vllm_error(400, "BadRequestError",
                                        "max_tokens must be at least 1, got " +
                                            std::to_string(engine_max) + "."));
    Generated g = generate(fx, reply, engine_max);
    if (g.ids.empty()) g = generate(fx, "ok", engine_max);  // the engine emits at least one token
    const std::string prompt_text = return_token_ids ? ""
                                    : p.text         ? *p.text
                                                     : decode_seq(fx, p.ids, false);
    for (std::int64_t c = 0; c < n; ++c) {
      // Token ids and their scoring contexts as request_output_to_completion_response lays them.
      std::vector<std::int64_t> all = p.ids;
      all.insert(all.end(), g.ids.begin(), g.ids.end());
      const std::size_t shown = echo ? (echo_only ? p.ids.size() : all.size()) : 0;
      std::string text = echo ? prompt_text + (echo_only ? "" : g.text) : g.text;
      ojson lp = nullptr;
      if (logprobs) {
        lp = ojson{{"text_offset", ojson::array()},
                   {"token_logprobs", ojson::array()},
                   {"tokens", ojson::array()},
                   {"top_logprobs", ojson::array()}};
        std::size_t begin = echo ? 0 : p.ids.size();
        std::size_t end = echo ? shown : all.size();
        std::size_t offset = 0, last_len = 0;
        for (std::size_t i = begin; i < end; ++i) {
          const bool gen_tok = i >= p.ids.size();
          const std::size_t gi = gen_tok ? i - p.ids.size() : 0;
          const bool synthetic = gen_tok && g.synthetic[gi];
          const std::string bytes = gen_tok ? g.bytes[gi] : "";
          std::string token;
          if (i == 0) {
            token = vllm_token_string(fx, all[i], true, false, "", as_ids);
            lp["token_logprobs"].push_back(nullptr);
            lp["top_logprobs"].push_back(nullptr);
          } else {
            std::span<const std::int64_t> ctx(all.data(), i);
            const int k = gen_tok ? static_cast<int>(*logprobs)
                                  : static_cast<int>(prompt_logprobs.value_or(0));
            token = vllm_token_string(fx, all[i], false, synthetic, bytes, as_ids);
            const double v = fake_logprob(ctx, all[i]);
            lp["token_logprobs"].push_back(std::max(v, -9999.0));
            ojson top = ojson::object();
            const auto entries = synthetic
                                     ? std::vector<Scored>{{all[i], v, fake_rank(ctx, all[i])}}
                                     : vllm_step(fx, ctx, all[i], k).entries;
            for (std::size_t e = 0; e < entries.size(); ++e) {
              if (static_cast<std::int64_t>(e) > *logprobs) break;  // num_output_top_logprobs >= i
              const std::string key =
                  entries[e].id == all[i]
                      ? token
                      : vllm_token_string(fx, entries[e].id, false, false, "", as_ids);
              top[key] = std::max(entries[e].logprob, -9999.0);
            }
            lp["top_logprobs"].push_back(std::move(top));
          }
          offset = lp["text_offset"].empty() ? 0 : offset + last_len;
          lp["text_offset"].push_back(offset);
          last_len = code_points(token);
          lp["tokens"].push_back(token);
        }
      }
      ojson choice;
      choice["index"] = choices.size();
      choice["text"] = text;
      choice["logprobs"] = lp;
      choice["finish_reason"] = g.truncated || echo_only ? "length" : "stop";
      choice["stop_reason"] = nullptr;
      choice["token_ids"] = return_token_ids ? ojson(g.ids) : ojson(nullptr);
      choice["prompt_logprobs"] =
          prompt_logprobs ? vllm_prompt_logprobs(fx, p.ids, static_cast<int>(*prompt_logprobs))
                          : ojson(nullptr);
      choice["prompt_token_ids"] = return_token_ids ? ojson(p.ids) : ojson(nullptr);
      choice["routed_experts"] = nullptr;
      choices.push_back(std::move(choice));
      completion_tokens += static_cast<std::int64_t>(g.ids.size());
    }
    prompt_tokens += input_len;
  }
  ojson body;
  body["id"] = "cmpl-" + random_hex(32);
  body["object"] = "text_completion";
  body["created"] = now_s();
  body["model"] = o.model;
  body["choices"] = std::move(choices);
  body["service_tier"] = nullptr;
  body["system_fingerprint"] = nullptr;
  body["usage"] = {{"prompt_tokens", prompt_tokens},
                   {"total_tokens", prompt_tokens + completion_tokens},
                   {"completion_tokens", completion_tokens},
                   {"prompt_tokens_details", nullptr},
                   {"completion_tokens_details", nullptr}};
  body["kv_transfer_params"] = nullptr;
  body["ec_transfer_params"] = nullptr;
  body["metrics"] = nullptr;
  return reply_json(200, body);
}

// Chat logprobs ({"content": [{token, logprob, bytes, top_logprobs}]}) for generated tokens.
ojson chat_logprobs(const Fixture& fx, const Generated& g, std::vector<std::int64_t> ctx, int k) {
  ojson content = ojson::array();
  for (std::size_t i = 0; i < g.ids.size(); ++i) {
    const std::string token = g.synthetic[i] ? g.bytes[i] : utf8_lossy(g.bytes[i]);
    ojson top = ojson::array();
    if (!g.synthetic[i]) {
      for (const auto& e : top_k(fx, ctx, g.ids[i], k)) {
        const bool self = e.id == g.ids[i];
        top.push_back({{"token", self ? token : decode_one(fx, e.id)},
                       {"logprob", e.logprob},
                       {"bytes", byte_array(self ? g.bytes[i] : token_bytes(fx, e.id))}});
      }
    }
    content.push_back({{"token", token},
                       {"logprob", fake_logprob(ctx, g.ids[i])},
                       {"bytes", byte_array(g.bytes[i])},
                       {"top_logprobs", top}});
    ctx.push_back(g.ids[i]);
  }
  return ojson{{"content", content}};
}

std::optional<std::int64_t> chat_max_tokens(const json& r) {
  if (auto v = int_field(r, "max_completion_tokens")) return v;
  return int_field(r, "max_tokens");
}

Reply vllm_chat(const FakeOptions& o, const Fixture& fx, const json& r) {
  if (!r.contains("messages") || !r["messages"].is_array())
    return reply_json(400,
                      vllm_error(400, "Bad Request",
                                 "1 validation error:\n  {'type': 'missing', 'loc': "
                                 "'body.messages', 'msg': 'Field required', 'input': '<dict of " +
                                     std::to_string(r.size()) + " items>'}",
                                 "body.messages"));
  if (auto e = vllm_response_format(r)) return *e;
  if (auto k = int_field(r, "top_logprobs"); k && (*k > 0 || *k == -1) && !truthy(r, "logprobs"))
    return vllm_validation("when using `top_logprobs`, `logprobs` must be set to true.",
                           "top_logprobs", r.size());
  const std::string model = r.value("model", "");
  if (!model.empty() && model != o.model)
    return reply_json(404, vllm_error(404, "NotFoundError",
                                      "The model `" + model + "` does not exist.", "model"));
  const std::int64_t prompt_tokens = approx_chat_prompt_tokens(r["messages"]);
  const bool completion_param = int_field(r, "max_completion_tokens").has_value();
  if (auto e = vllm_context_check(o, prompt_tokens, chat_max_tokens(r).value_or(0),
                                  completion_param ? "max_completion_tokens" : "max_tokens"))
    return *e;
  const Generated g = generate(fx, reply_for(o, r), chat_max_tokens(r));
  const std::int64_t n = int_field(r, "n").value_or(1);
  ojson choices = ojson::array();
  for (std::int64_t c = 0; c < n; ++c) {
    ojson choice;
    choice["index"] = c;
    choice["message"] = {{"role", "assistant"},    {"content", g.text}, {"refusal", nullptr},
                         {"annotations", nullptr}, {"audio", nullptr},  {"function_call", nullptr},
                         {"reasoning", nullptr}};
    choice["logprobs"] =
        truthy(r, "logprobs")
            ? chat_logprobs(fx, g, chat_context(r["messages"]),
                            static_cast<int>(int_field(r, "top_logprobs").value_or(0)))
            : ojson(nullptr);
    choice["finish_reason"] = g.truncated ? "length" : "stop";
    choice["stop_reason"] = nullptr;
    choice["token_ids"] = nullptr;
    choice["routed_experts"] = nullptr;
    choices.push_back(std::move(choice));
  }
  const auto completion_tokens = static_cast<std::int64_t>(g.ids.size()) * n;
  ojson body;
  body["id"] = "chatcmpl-" + random_hex(32);
  body["object"] = "chat.completion";
  body["created"] = now_s();
  body["model"] = o.model;
  body["choices"] = std::move(choices);
  body["service_tier"] = nullptr;
  body["system_fingerprint"] = nullptr;
  body["usage"] = {{"prompt_tokens", prompt_tokens},
                   {"total_tokens", prompt_tokens + completion_tokens},
                   {"completion_tokens", completion_tokens},
                   {"prompt_tokens_details", nullptr},
                   {"completion_tokens_details", nullptr}};
  for (const char* key : {"prompt_logprobs", "prompt_token_ids", "prompt_text",
                          "kv_transfer_params", "ec_transfer_params", "metrics"})
    body[key] = nullptr;
  return reply_json(200, body);
}

Reply vllm_tokenize(const FakeOptions& o, const Fixture& fx, const json& r) {
  const std::string model = r.value("model", "");
  if (r.contains("messages"))
    return reply_json(500, vllm_error(500, "InternalServerError",
                                      "fake: chat-template tokenization is not modelled"));
  if (!r.contains("prompt") || !r["prompt"].is_string())
    return reply_json(400, vllm_error(400, "Bad Request",
                                      "1 validation error:\n  {'type': 'missing', 'loc': "
                                      "'body.prompt', 'msg': 'Field required'}",
                                      "body.prompt"));
  if (!model.empty() && model != o.model)
    return reply_json(404, vllm_error(404, "NotFoundError",
                                      "The model `" + model + "` does not exist.", "model"));
  const bool add_special = !r.contains("add_special_tokens") || truthy(r, "add_special_tokens");
  const auto ids =
      with_bos(fx, require_tokens(fx, r["prompt"].get<std::string>()).ids, add_special);
  ojson strs = nullptr;
  if (truthy(r, "return_token_strs")) {
    strs = ojson::array();
    for (auto id : ids) strs.push_back(piece_of(fx, id));  // convert_ids_to_tokens
  }
  return reply_json(200, ojson{{"count", ids.size()},
                               {"max_model_len", max_model_len(o)},
                               {"tokens", ids},
                               {"token_strs", strs}});
}

Reply vllm_detokenize(const FakeOptions&, const Fixture& fx, const json& r) {
  const auto ids = r.value("tokens", std::vector<std::int64_t>{});
  return reply_json(200, ojson{{"prompt", decode_seq(fx, ids, false)}});
}

// ---------------------------------------------------------------------------------------------
// SGLang (python/sglang/srt/entrypoints/openai/serving_completions.py, utils.py, protocol.py)

ojson sglang_error(int status, const std::string& type, const std::string& message) {
  return ojson{{"object", "error"},
               {"message", message},
               {"type", type},
               {"param", nullptr},
               {"code", status}};
}

std::optional<std::string> sglang_validate(const json& prompt) {
  if (prompt.is_null() || (prompt.is_string() && prompt.get<std::string>().empty()) ||
      (prompt.is_array() && prompt.empty()))
    return "Prompt cannot be None";
  if (prompt.is_string()) {
    const auto s = prompt.get<std::string>();
    if (s.find_first_not_of(" \t\n\r\f\v") == std::string::npos)
      return "Prompt cannot be empty or whitespace only";
    return std::nullopt;
  }
  if (!prompt.is_array()) return "Prompt must be string or list";
  if (is_str_array(prompt)) {
    for (std::size_t i = 0; i < prompt.size(); ++i)
      if (prompt[i].get<std::string>().find_first_not_of(" \t\n\r\f\v") == std::string::npos)
        return "Prompt at index " + std::to_string(i) + " cannot be empty or whitespace only";
    return std::nullopt;
  }
  if (is_int_array(prompt)) {
    for (const auto& v : prompt)
      if (v.get<std::int64_t>() < 0) return "Token IDs must be non-negative";
    return std::nullopt;
  }
  if (std::all_of(prompt.begin(), prompt.end(), [](const json& e) { return e.is_array(); })) {
    for (std::size_t i = 0; i < prompt.size(); ++i) {
      if (prompt[i].empty())
        return "Token sequence at index " + std::to_string(i) + " cannot be empty";
      if (!is_int_array(prompt[i]))
        return "Token sequence at index " + std::to_string(i) + " must contain only integers";
    }
    return std::nullopt;
  }
  return "Prompt must be string, list of strings, list of integers, or list of integer lists";
}

// TokenizerManager._validate_one_request: a prompt of the context length or more, then prompt plus
// max_new_tokens beyond it (when max_new_tokens is set), are ValueErrors: 400 BadRequestError.
std::optional<Reply> sglang_context_check(const FakeOptions& o, std::int64_t input_len,
                                          std::optional<std::int64_t> max_new) {
  const std::int64_t ctx = max_model_len(o);
  if (input_len >= ctx)
    return reply_json(400, sglang_error(400, "BadRequestError",
                                        "The input (" + std::to_string(input_len) +
                                            " tokens) is longer than the model's context length (" +
                                            std::to_string(ctx) + " tokens)."));
  if (max_new && *max_new + input_len > ctx)
    return reply_json(
        400, sglang_error(400, "BadRequestError",
                          "Requested token count exceeds the model's maximum context length of " +
                              std::to_string(ctx) + " tokens. You requested a total of " +
                              std::to_string(*max_new + input_len) +
                              " tokens: " + std::to_string(input_len) +
                              " tokens from the input messages and " + std::to_string(*max_new) +
                              " tokens for the completion. Please reduce the number of tokens in "
                              "the input messages or the completion to fit within the limit."));
  return std::nullopt;
}

// ResponseFormat{type: text | json_object | json_schema, json_schema: {name, ...}} or a
// structural tag; pydantic's rejection is reported by the server's validation handler.
std::optional<Reply> sglang_response_format(const json& r) {
  if (!r.contains("response_format") || r["response_format"].is_null()) return std::nullopt;
  const json& rf = r["response_format"];
  const std::string type = rf.is_object() ? rf.value("type", "") : "";
  if (type == "text" || type == "json_object" || type == "structural_tag") return std::nullopt;
  if (type == "json_schema") {
    const json wrapper = rf.value("json_schema", json());
    if (wrapper.is_null() || (wrapper.is_object() && wrapper.contains("name"))) return std::nullopt;
    return reply_json(400, sglang_error(400, "BadRequestError",
                                        "response_format.json_schema.name: Field required"));
  }
  return reply_json(400, sglang_error(400, "BadRequestError",
                                      "response_format.type: Input should be 'text', "
                                      "'json_object' or 'json_schema'"));
}

Reply sglang_completions(const FakeOptions& o, const Fixture& fx, const json& r) {
  if (auto v = int_field(r, "max_tokens"); v && *v <= 0)
    return reply_json(400, sglang_error(400, "BadRequestError", "max_tokens must be positive"));
  if (auto msg = sglang_validate(r.contains("prompt") ? r["prompt"] : json(nullptr)))
    return reply_json(400, sglang_error(400, "BadRequestError", *msg));
  if (auto e = sglang_response_format(r)) return *e;
  const bool echo = truthy(r, "echo");
  const auto logprobs = int_field(r, "logprobs");
  // Prompt log-probabilities only when `request.echo and request.logprobs` (0 is falsy).
  const bool input_logprobs = echo && logprobs && *logprobs != 0;
  const int k = static_cast<int>(logprobs.value_or(0));
  const std::int64_t n = int_field(r, "n").value_or(1);
  const auto prompts = prompts_of(fx, r["prompt"], true);
  for (const auto& p : prompts)
    if (auto e = sglang_context_check(o, static_cast<std::int64_t>(p.ids.size()),
                                      int_field(r, "max_tokens").value_or(16)))
      return *e;
  const std::string reply = reply_for(o, r);
  const Generated g = generate(fx, reply, int_field(r, "max_tokens").value_or(16));
  ojson choices = ojson::array();
  std::int64_t prompt_tokens = 0, completion_tokens = 0;
  for (const auto& p : prompts) {
    const std::string echo_text = p.text ? *p.text : decode_seq(fx, p.ids, true);
    for (std::int64_t c = 0; c < n; ++c) {
      ojson lp = nullptr;
      if (logprobs) {
        lp = ojson{{"text_offset", ojson::array()},
                   {"token_logprobs", ojson::array()},
                   {"tokens", ojson::array()},
                   {"top_logprobs", ojson::array()}};
        std::vector<std::int64_t> all = p.ids;
        all.insert(all.end(), g.ids.begin(), g.ids.end());
        // batch_decode of single ids: special tokens kept, partial UTF-8 left as U+FFFD.
        auto text_of = [&](std::size_t i) {
          return i >= p.ids.size() && g.synthetic[i - p.ids.size()] ? g.bytes[i - p.ids.size()]
                                                                    : decode_one(fx, all[i]);
        };
        ojson tops = ojson::array();
        for (std::size_t i = input_logprobs ? 0 : p.ids.size(); i < all.size(); ++i) {
          lp["tokens"].push_back(text_of(i));
          lp["text_offset"].push_back(-1);
          if (i == 0) {
            lp["token_logprobs"].push_back(nullptr);
            if (k > 0) tops.push_back(nullptr);
            continue;
          }
          std::span<const std::int64_t> ctx(all.data(), i);
          lp["token_logprobs"].push_back(fake_logprob(ctx, all[i]));
          if (k > 0) {
            ojson top = ojson::object();
            for (const auto& e : top_k(fx, ctx, all[i], k))
              top[e.id == all[i] ? text_of(i) : decode_one(fx, e.id)] = e.logprob;
            tops.push_back(std::move(top));
          }
        }
        lp["top_logprobs"] = std::move(tops);
      }
      ojson choice;
      choice["index"] = choices.size();
      choice["text"] = (echo ? echo_text : std::string()) + g.text;
      choice["logprobs"] = lp;
      choice["finish_reason"] = g.truncated ? "length" : "stop";
      choice["matched_stop"] = !g.truncated && fx.eos ? ojson(*fx.eos) : ojson(nullptr);
      choices.push_back(std::move(choice));
      completion_tokens += static_cast<std::int64_t>(g.ids.size());
    }
    prompt_tokens += static_cast<std::int64_t>(p.ids.size());
  }
  ojson body;
  body["id"] = "cmpl-" + random_hex(32);
  body["object"] = "text_completion";
  body["created"] = now_s();
  body["model"] = r.value("model", o.model);
  body["choices"] = std::move(choices);
  body["usage"] = {{"prompt_tokens", prompt_tokens},
                   {"total_tokens", prompt_tokens + completion_tokens},
                   {"completion_tokens", completion_tokens},
                   {"prompt_tokens_details", nullptr},
                   {"reasoning_tokens", 0}};
  return reply_json(200, body);
}

Reply sglang_chat(const FakeOptions& o, const Fixture& fx, const json& r) {
  if (!r.contains("messages") || !r["messages"].is_array())
    return reply_json(400, sglang_error(400, "BadRequestError", "Field required: messages"));
  if (auto e = sglang_response_format(r)) return *e;
  const std::int64_t prompt_tokens = approx_chat_prompt_tokens(r["messages"]);
  if (auto e = sglang_context_check(o, prompt_tokens, chat_max_tokens(r))) return *e;
  const Generated g = generate(fx, reply_for(o, r), chat_max_tokens(r));
  // n choices of the same prompt: the prompt counted once, the completions of all.
  const std::int64_t n = int_field(r, "n").value_or(1);
  ojson choices = ojson::array();
  for (std::int64_t c = 0; c < n; ++c) {
    ojson choice;
    choice["index"] = c;
    choice["message"] = {{"role", "assistant"},
                         {"content", g.text},
                         {"reasoning_content", nullptr},
                         {"tool_calls", nullptr}};
    choice["logprobs"] = nullptr;
    choice["finish_reason"] = g.truncated ? "length" : "stop";
    choice["matched_stop"] = !g.truncated && fx.eos ? ojson(*fx.eos) : ojson(nullptr);
    choices.push_back(std::move(choice));
  }
  const auto completion_tokens = static_cast<std::int64_t>(g.ids.size()) * n;
  ojson body;
  body["id"] = random_hex(32);
  body["object"] = "chat.completion";
  body["created"] = now_s();
  body["model"] = r.value("model", o.model);
  body["choices"] = std::move(choices);
  body["usage"] = {{"prompt_tokens", prompt_tokens},
                   {"total_tokens", prompt_tokens + completion_tokens},
                   {"completion_tokens", completion_tokens},
                   {"prompt_tokens_details", nullptr},
                   {"reasoning_tokens", 0}};
  return reply_json(200, body);
}

Reply sglang_tokenize(const FakeOptions& o, const Fixture& fx, const json& r) {
  const bool add_special = !r.contains("add_special_tokens") || truthy(r, "add_special_tokens");
  const json p = r.value("prompt", json(nullptr));
  if (p.is_string()) {
    const auto ids = with_bos(fx, require_tokens(fx, p.get<std::string>()).ids, add_special);
    return reply_json(
        200, ojson{{"tokens", ids}, {"count", ids.size()}, {"max_model_len", max_model_len(o)}});
  }
  if (is_str_array(p)) {
    ojson tokens = ojson::array(), counts = ojson::array();
    for (const auto& s : p) {
      const auto ids = with_bos(fx, require_tokens(fx, s.get<std::string>()).ids, add_special);
      tokens.push_back(ids);
      counts.push_back(ids.size());
    }
    return reply_json(
        200, ojson{{"tokens", tokens}, {"count", counts}, {"max_model_len", max_model_len(o)}});
  }
  return reply_json(
      400, sglang_error(400, "BadRequestError", "Invalid prompt type. Expected str or List[str]."));
}

// ---------------------------------------------------------------------------------------------
// llama.cpp server, as a real one answered (tests/llm/fixtures/transcripts/llamacpp-*-probes.jsonl;
// tools/server/server-context.cpp, server-common.cpp, server-schema.cpp for the why)

ojson llamacpp_error(int code, const std::string& type, const std::string& message) {
  return ojson{{"error", {{"code", code}, {"message", message}, {"type", type}}}};
}

// What the HTTP layer makes of an exception that escapes a handler (a JSON parse error, a
// std::runtime_error of the chat parser): 500. Request errors it reports itself are 400.
Reply llamacpp_server_error(const std::string& message) {
  return reply_json(500, llamacpp_error(500, "server_error", message));
}

Reply llamacpp_invalid(const std::string& message) {
  return reply_json(400, llamacpp_error(400, "invalid_request_error", message));
}

ojson llamacpp_probs(const Fixture& fx, const Generated& g, std::vector<std::int64_t> ctx, int k) {
  // completion_token_output::probs_vector_to_json: token text cut to complete UTF-8, raw bytes.
  auto entry = [](std::int64_t id, const std::string& bytes, double lp) {
    return ojson{{"id", id},
                 {"token", bytes.substr(0, utf8_complete_prefix(bytes))},
                 {"bytes", byte_array(bytes)},
                 {"logprob", lp}};
  };
  ojson content = ojson::array();
  for (std::size_t i = 0; i < g.ids.size(); ++i) {
    ojson e = entry(g.ids[i], g.bytes[i], fake_logprob(ctx, g.ids[i]));
    // Always k alternatives (the real server lists n_probs of them), a synthetic reply token too.
    ojson top = ojson::array();
    for (const auto& t : top_k(fx, ctx, g.ids[i], k))
      top.push_back(entry(t.id, t.id == g.ids[i] ? g.bytes[i] : token_bytes(fx, t.id), t.logprob));
    e["top_logprobs"] = std::move(top);
    content.push_back(std::move(e));
    ctx.push_back(g.ids[i]);
  }
  return content;
}

// The numeric request fields, read as the server's field table does: the first of a field's
// names that is present and not null; a value outside hard limits or not a number is a 400
// "Field '<name>': …".
struct LlamaFields {
  std::optional<std::int64_t> n_predict;  // -1: until the context is full
  std::int64_t n_cmpl = 1;
  int n_probs = 0;
};

std::optional<Reply> llamacpp_fields(const FakeOptions& o, const json& r, LlamaFields& f) {
  auto read = [&](std::initializer_list<const char*> names, std::int64_t lo, std::int64_t hi,
                  bool hard, std::optional<std::int64_t>& out) -> std::optional<Reply> {
    for (const char* name : names) {
      if (!r.contains(name) || r[name].is_null()) continue;
      const json& v = r[name];
      if (!v.is_number() && !v.is_boolean())
        return llamacpp_invalid(std::string("Field '") + name +
                                "': [json.exception.type_error.302] type must be number, but is " +
                                v.type_name());
      const auto value =
          v.is_boolean() ? std::int64_t{v.get<bool>()} : static_cast<std::int64_t>(v.get<double>());
      if (hard && (value < lo || value > hi))
        return llamacpp_invalid(std::string("Field '") + name + "': Value must be between " +
                                std::to_string(lo) + " <= value <= " + std::to_string(hi) +
                                ", but got " + std::to_string(value));
      out = std::clamp(value, lo, hi);
      return std::nullopt;
    }
    return std::nullopt;
  };
  std::optional<std::int64_t> n_cmpl, n_probs;
  if (auto e = read({"n_predict", "max_completion_tokens", "max_tokens"}, -1, INT32_MAX, true,
                    f.n_predict))
    return e;
  if (auto e = read({"n_cmpl", "n"}, 1, static_cast<std::int64_t>(o.slots), true, n_cmpl)) return e;
  if (auto e = read({"n_probs", "logprobs"}, INT32_MIN, INT32_MAX, false, n_probs)) return e;
  f.n_cmpl = n_cmpl.value_or(1);
  f.n_probs = static_cast<int>(std::max<std::int64_t>(0, n_probs.value_or(0)));
  return std::nullopt;
}

std::size_t llamacpp_n_ctx(const FakeOptions& o) {
  return o.context_tokens > 0 ? o.context_tokens
                              : static_cast<std::size_t>(FakeServer::kLlamaCppContext);
}

std::optional<Reply> llamacpp_overflow(const FakeOptions& o, std::size_t n_tokens) {
  const std::size_t n_ctx = llamacpp_n_ctx(o);
  if (n_tokens < n_ctx) return std::nullopt;
  ojson body = llamacpp_error(400, "exceed_context_size_error",
                              "request (" + std::to_string(n_tokens) +
                                  " tokens) exceeds the available context size (" +
                                  std::to_string(n_ctx) + " tokens), try increasing it");
  body["error"]["n_prompt_tokens"] = n_tokens;
  body["error"]["n_ctx"] = n_ctx;
  return reply_json(400, body);
}

// The KV cache of each slot: a request goes to the idle slot whose tokens share the longest
// prefix with its prompt (more than 10% of it), else to the least recently used one, and reuses
// that prefix except the prompt's last token, which is always evaluated again.
std::size_t llamacpp_reuse(FakeState& state, std::size_t slots,
                           const std::vector<std::int64_t>& prompt, const Generated& g) {
  std::lock_guard lock(state.mutex);
  auto& s = state.llama_slots;
  if (s.size() < std::max<std::size_t>(slots, 1)) {
    s.resize(std::max<std::size_t>(slots, 1));
    state.llama_used.resize(s.size(), 0);
  }
  std::size_t best = 0, best_common = 0, lru = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    std::size_t common = 0;
    while (common < s[i].size() && common < prompt.size() && s[i][common] == prompt[common])
      ++common;
    if (common > best_common) {
      best = i;
      best_common = common;
    }
    if (state.llama_used[i] < state.llama_used[lru]) lru = i;
  }
  const bool similar = !prompt.empty() &&
                       static_cast<double>(best_common) / static_cast<double>(prompt.size()) > 0.1;
  const std::size_t slot = similar ? best : lru;
  std::size_t common = 0;
  while (common < s[slot].size() && common < prompt.size() && s[slot][common] == prompt[common])
    ++common;
  s[slot] = prompt;
  s[slot].insert(s[slot].end(), g.ids.begin(), g.ids.end());
  state.llama_used[slot] = ++state.llama_clock;
  return prompt.empty() ? 0 : std::min(common, prompt.size() - 1);
}

ojson llamacpp_timings(std::size_t cached, std::size_t prompt, std::size_t predicted) {
  // Fixed speeds: the fields and their relations are what the real server reports.
  const double prompt_ms = 0.5 * static_cast<double>(prompt - cached);
  const double predicted_ms = 2.0 * static_cast<double>(predicted);
  auto per_token = [](double ms, std::size_t n) { return n ? ms / static_cast<double>(n) : 0.0; };
  auto per_second = [](double ms, std::size_t n) {
    return ms > 0 ? 1000.0 * static_cast<double>(n) / ms : 0.0;
  };
  return ojson{{"cache_n", cached},
               {"prompt_n", prompt - cached},
               {"prompt_ms", prompt_ms},
               {"prompt_per_token_ms", per_token(prompt_ms, prompt - cached)},
               {"prompt_per_second", per_second(prompt_ms, prompt - cached)},
               {"predicted_n", predicted},
               {"predicted_ms", predicted_ms},
               {"predicted_per_token_ms", per_token(predicted_ms, predicted)},
               {"predicted_per_second", per_second(predicted_ms, predicted)}};
}

constexpr const char* kLlamaCppFingerprint = "b10587-3f545becc";  // the recorded build

// One generation: n_predict 0 still samples one token, -1 runs to the reply's end.
Generated llamacpp_generate(const FakeOptions& o, const Fixture& fx, const json& r,
                            const LlamaFields& f) {
  std::optional<std::int64_t> max;
  if (f.n_predict && *f.n_predict >= 0) max = std::max<std::int64_t>(*f.n_predict, 1);
  return generate(fx, reply_for(o, r), max);
}

ojson llamacpp_body(const FakeOptions& o, const char* object, ojson choices,
                    std::size_t prompt_tokens, std::size_t completion_tokens, std::size_t cached) {
  // Usage and timings are those of the first task only, whatever `n` and the prompt count.
  ojson body;
  body["choices"] = std::move(choices);
  body["created"] = now_s();
  body["model"] = o.model;  // the served alias, whatever the request names
  body["system_fingerprint"] = kLlamaCppFingerprint;
  body["object"] = object;
  body["usage"] = {{"completion_tokens", completion_tokens},
                   {"prompt_tokens", prompt_tokens},
                   {"total_tokens", completion_tokens + prompt_tokens},
                   {"prompt_tokens_details", {{"cached_tokens", cached}}}};
  body["id"] = "chatcmpl-" + random_alnum(32);
  body["timings"] = llamacpp_timings(cached, prompt_tokens, completion_tokens);
  return body;
}

// The grammar compiler's errors for $refs it cannot resolve within the schema (remote refs are
// not modelled), "" when there are none.
std::string llamacpp_ref_errors(const ojson& schema) {
  std::string errors;
  std::function<void(const ojson&)> visit = [&](const ojson& n) {
    if (n.is_array()) {
      for (const auto& v : n) visit(v);
      return;
    }
    if (!n.is_object()) return;
    if (n.contains("$ref") && n["$ref"].is_string()) {
      const std::string ref = n["$ref"].get<std::string>();
      if (ref.rfind("https://", 0) == 0 || ref.rfind("http://", 0) == 0) return;
      if (ref.rfind("#/", 0) != 0) {
        errors += (errors.empty() ? "" : "\n") + ("Unsupported ref: " + ref);
        return;
      }
      const ojson* target = &schema;
      std::size_t begin = 2;
      while (begin <= ref.size()) {
        const std::size_t end = std::min(ref.find('/', begin), ref.size());
        const std::string sel = ref.substr(begin, end - begin);
        begin = end + 1;
        if (target->is_object() && target->contains(sel)) {
          target = &(*target)[sel];
        } else {
          errors += (errors.empty() ? "" : "\n") +
                    ("Error resolving ref " + ref + ": " + sel + " not in " + target->dump());
          return;
        }
      }
      return;
    }
    for (const auto& [k, v] : n.items()) visit(v);
  };
  visit(schema);
  return errors;
}

Reply llamacpp_completions(const FakeOptions& o, const Fixture& fx, FakeState& state, const json& r,
                           const std::string& body) {
  // `echo`, `best_of` and `suffix` are read by nothing: no error, no effect.
  if (!r.is_object() || !r.contains("prompt"))
    return llamacpp_invalid("[json.exception.out_of_range.403] key 'prompt' not found");
  std::vector<Prompt> prompts;
  try {
    prompts = prompts_of(fx, r["prompt"], true);
  } catch (const std::invalid_argument&) {
    return llamacpp_invalid(
        "\"prompt\" elements must be a string, a list of tokens, a JSON object containing a "
        "prompt string, or a list of mixed strings & tokens.");
  }
  LlamaFields f;
  if (auto e = llamacpp_fields(o, r, f)) return *e;
  if (r.contains("json_schema") && r["json_schema"].is_object() &&
      !(r.contains("grammar") && r["grammar"].is_string())) {
    // The field table compiles the schema to a grammar; its error is the converter's.
    const ojson schema = ojson::parse(body).at("json_schema");
    if (const std::string errors = llamacpp_ref_errors(schema); !errors.empty())
      return llamacpp_invalid(
          "Field 'json_schema': \"json_schema\": JSON schema conversion failed:\n" + errors);
  }
  for (const auto& p : prompts)
    if (auto e = llamacpp_overflow(o, p.ids.size())) return *e;
  ojson choices = ojson::array();
  std::size_t prompt_tokens = 0, completion_tokens = 0, cached = 0;
  for (std::size_t i = 0; i < prompts.size(); ++i) {
    for (std::int64_t c = 0; c < f.n_cmpl; ++c) {
      const Generated g = llamacpp_generate(o, fx, r, f);
      const std::size_t reused = llamacpp_reuse(state, o.slots, prompts[i].ids, g);
      ojson choice;
      choice["text"] = g.text;
      choice["index"] = choices.size();
      choice["logprobs"] =
          f.n_probs > 0 && !g.ids.empty()
              ? ojson{{"content", llamacpp_probs(fx, g, prompts[i].ids, f.n_probs)}}
              : ojson(nullptr);
      choice["finish_reason"] = g.truncated ? "length" : "stop";
      if (choices.empty()) {
        prompt_tokens = prompts[i].ids.size();
        completion_tokens = g.ids.size();
        cached = reused;
      }
      choices.push_back(std::move(choice));
    }
  }
  return reply_json(200, llamacpp_body(o, "text_completion", std::move(choices), prompt_tokens,
                                       completion_tokens, cached));
}

// The fake's stand-in for the chat template and the model's tokenizer: the ChatML text the
// server falls back to, cut into 4-byte pseudo tokens, so that equal prefixes give equal tokens.
std::vector<std::int64_t> llamacpp_chat_tokens(const json& messages) {
  std::string text;
  for (const auto& m : messages) {
    std::string content;
    const json c = m.value("content", json());
    if (c.is_string()) {
      content = c.get<std::string>();
    } else if (c.is_array()) {
      for (const auto& part : c)
        if (part.is_object() && part.value("type", "") == "text") content += part.value("text", "");
    }
    text += "<|im_start|>" + m.value("role", std::string()) + "\n" + content + "<|im_end|>\n";
  }
  text += "<|im_start|>assistant\n";
  std::vector<std::int64_t> ids;
  for (std::size_t i = 0; i < text.size(); i += 4)
    ids.push_back(static_cast<std::int64_t>(std::hash<std::string>{}(text.substr(i, 4)) & 0xFFFFF));
  return ids;
}

Reply llamacpp_chat(const FakeOptions& o, const Fixture& fx, FakeState& state, const json& r,
                    const std::string& body) {
  // oaicompat_chat_params_parse, in its order; its std::runtime_error escapes as a 500.
  const bool has_schema = r.contains("json_schema") && !r["json_schema"].is_null();
  if (has_schema && r.contains("grammar") && r["grammar"].is_string() &&
      !r["grammar"].get<std::string>().empty())
    return llamacpp_server_error("Cannot use both json_schema and grammar");
  if (r.contains("response_format") && r["response_format"].is_object()) {
    const std::string type = r["response_format"].value("type", "");
    if (!type.empty() && type != "text" && type != "json_object" && type != "json_schema")
      return llamacpp_invalid(
          "response_format type must be one of \"text\" or \"json_object\", but got: " + type);
  }
  if (!r.contains("messages")) return llamacpp_invalid("'messages' is required");
  if (!r["messages"].is_array()) return llamacpp_invalid("Expected 'messages' to be an array");
  for (const auto& m : r["messages"]) {
    const bool assistant = m.value("role", "") == "assistant";
    if (!m.contains("content") && !assistant)
      return llamacpp_invalid("All non-assistant messages must contain 'content'");
    if (m.contains("content") && !m["content"].is_string() && !m["content"].is_array() &&
        !m["content"].is_null())
      return llamacpp_invalid("Expected 'content' to be a string or an array");
  }
  const bool logprobs = truthy(r, "logprobs");
  if (!logprobs && r.contains("top_logprobs") && !r["top_logprobs"].is_null())
    return llamacpp_invalid("top_logprobs requires logprobs to be set to true");
  json fields = r;
  if (logprobs) {
    fields.erase("logprobs");
    fields["n_probs"] = r.value("top_logprobs", json(20));
  }
  // The chat template's parser is generated from the schema: unresolvable $refs fail there.
  if (auto schema = schema_in(ojson::parse(body), Flavour::kLlamaCpp)) {
    if (const std::string errors = llamacpp_ref_errors(*schema); !errors.empty())
      return llamacpp_invalid(
          "Unable to generate parser for this template. Automatic parser generation failed: "
          "JSON schema conversion failed:\n" +
          errors);
  }
  LlamaFields f;
  if (auto e = llamacpp_fields(o, fields, f)) return *e;
  const auto prompt = llamacpp_chat_tokens(r["messages"]);
  if (auto e = llamacpp_overflow(o, prompt.size())) return *e;
  ojson choices = ojson::array();
  std::size_t completion_tokens = 0, cached = 0;
  for (std::int64_t c = 0; c < f.n_cmpl; ++c) {
    const Generated g = llamacpp_generate(o, fx, r, f);
    const std::size_t reused = llamacpp_reuse(state, o.slots, prompt, g);
    ojson choice;
    choice["finish_reason"] = g.truncated ? "length" : "stop";
    choice["index"] = c;
    choice["message"] = {{"role", "assistant"}, {"content", g.text}};
    if (logprobs) choice["logprobs"] = {{"content", llamacpp_probs(fx, g, prompt, f.n_probs)}};
    if (c == 0) {
      completion_tokens = g.ids.size();
      cached = reused;
    }
    choices.push_back(std::move(choice));
  }
  return reply_json(200, llamacpp_body(o, "chat.completion", std::move(choices), prompt.size(),
                                       completion_tokens, cached));
}

Reply llamacpp_models(const FakeOptions& o, const Fixture& fx, std::int64_t created) {
  // Both lists of the real answer: Ollama-style `models` and OpenAI-style `data` with `meta`.
  ojson details = {{"parent_model", ""},   {"format", "gguf"},
                   {"family", ""},         {"families", ojson::array({""})},
                   {"parameter_size", ""}, {"quantization_level", ""}};
  ojson model = {{"name", o.model},
                 {"model", o.model},
                 {"modified_at", ""},
                 {"size", ""},
                 {"digest", ""},
                 {"type", "model"},
                 {"description", ""},
                 {"tags", ojson::array({""})},
                 {"capabilities", ojson::array({"completion"})},
                 {"parameters", ""},
                 {"details", details}};
  const auto n_ctx = llamacpp_n_ctx(o);
  ojson meta = {{"vocab_type", true}, {"n_vocab", fx.vocab.size()},
                {"n_ctx", n_ctx},     {"n_ctx_train", n_ctx},
                {"n_embd", 64},       {"n_params", 263744},
                {"size", 1054976},    {"ftype", "(guessed) all F32"}};
  ojson data = {{"id", o.model},
                {"aliases", ojson::array({o.model})},
                {"tags", ojson::array()},
                {"object", "model"},
                {"created", created},
                {"owned_by", "llamacpp"},
                {"meta", meta}};
  return reply_json(
      200,
      ojson{{"models", ojson::array({model})}, {"object", "list"}, {"data", ojson::array({data})}});
}

Reply llamacpp_tokenize(const FakeOptions&, const Fixture& fx, const json& r) {
  ojson tokens = ojson::array();
  if (r.contains("content")) {  // `prompt` is not read: no content, no tokens
    const bool add_special = r.value("add_special", false);
    const bool with_pieces = r.value("with_pieces", false);
    std::vector<std::int64_t> ids;
    if (r["content"].is_string()) {
      ids = with_bos(fx, require_tokens(fx, r["content"].get<std::string>()).ids, add_special);
    } else if (is_int_array(r["content"])) {
      ids = r["content"].get<std::vector<std::int64_t>>();
    }
    for (auto id : ids) {
      if (!with_pieces) {
        tokens.push_back(id);
        continue;
      }
      // common_token_to_piece: the token's text ("▁" as a space, no leading-space strip).
      const std::string piece = token_bytes(fx, id);
      ojson pj;
      if (utf8_valid(piece)) {
        pj = piece;
      } else {
        pj = ojson::array();
        for (unsigned char c : piece) pj.push_back(static_cast<int>(c));
      }
      tokens.push_back({{"id", id}, {"piece", pj}});
    }
  }
  return reply_json(200, ojson{{"tokens", tokens}});
}

Reply llamacpp_detokenize(const FakeOptions&, const Fixture& fx, const json& r) {
  const auto ids = r.value("tokens", std::vector<std::int64_t>{});
  std::string bytes;
  for (auto id : ids) bytes += token_bytes(fx, id);
  return reply_json(200, ojson{{"content", bytes}});
}

// ---------------------------------------------------------------------------------------------
// Ollama (openai/openai.go, middleware/openai.go, server/routes.go, llm/llama_server.go)

ojson ollama_error(int status, const std::string& message) {
  const std::string type = status == 400   ? "invalid_request_error"
                           : status == 404 ? "not_found_error"
                                           : "api_error";
  return ojson{
      {"error", {{"message", message}, {"type", type}, {"param", nullptr}, {"code", nullptr}}}};
}

std::string go_json_kind(const json& v) {
  if (v.is_array()) return "array";
  if (v.is_object()) return "object";
  if (v.is_boolean()) return "bool";
  if (v.is_number()) return "number";
  return "string";
}

// Ollama's silent context shift of an over-long prompt (llamaServerRunner's prompt truncation):
// keep num_keep (4, +1 for BOS) tokens and the tail that fits contextShiftPromptLimit.
std::vector<std::int64_t> ollama_truncate(const Fixture& fx, std::vector<std::int64_t> tokens,
                                          std::size_t num_ctx) {
  if (num_ctx == 0) return tokens;
  const auto ctx = static_cast<std::int64_t>(num_ctx);
  const std::int64_t full_limit = ctx - 1;
  const auto len = static_cast<std::int64_t>(tokens.size());
  if (len <= full_limit) return tokens;
  std::int64_t keep = 4;  // api.DefaultOptions NumKeep
  if (fx.bos) ++keep;     // tokenizerAddsBOS
  keep = std::min(keep, full_limit);
  // contextShiftPromptLimit(numCtx, numKeep)
  const std::int64_t limit = ctx - std::max<std::int64_t>((ctx - keep) / 2, 1);
  const std::int64_t discard = len - limit;
  std::vector<std::int64_t> out(tokens.begin(), tokens.begin() + keep);
  out.insert(out.end(), tokens.begin() + keep + discard, tokens.end());
  return out;
}

Reply ollama_completions(const FakeOptions& o, const Fixture& fx, const json& r) {
  if (r.contains("prompt") && !r["prompt"].is_string() && !r["prompt"].is_null())
    return reply_json(400, ollama_error(400, "json: cannot unmarshal " + go_json_kind(r["prompt"]) +
                                                 " into Go struct field CompletionRequest.prompt "
                                                 "of type string"));
  const std::string model = r.value("model", "");
  if (model != o.model)
    return reply_json(404, ollama_error(404, "model '" + model + "' not found"));
  const std::string prompt = r.value("prompt", "");
  auto ids =
      ollama_truncate(fx, with_bos(fx, require_tokens(fx, prompt).ids, true), o.context_tokens);
  const Generated g = generate(fx, reply_for(o, r), int_field(r, "max_tokens"));
  ojson choice;
  choice["text"] = g.text;  // no echo: the field does not exist in CompletionRequest
  choice["index"] = 0;
  choice["finish_reason"] = g.truncated ? "length" : "stop";
  const auto prompt_tokens = static_cast<std::int64_t>(ids.size());
  const auto completion_tokens = static_cast<std::int64_t>(g.ids.size());
  ojson body;
  body["id"] = "cmpl-" + std::to_string(std::hash<std::string>{}(random_hex(8)) % 999);
  body["object"] = "text_completion";
  body["created"] = now_s();
  body["model"] = model;
  body["system_fingerprint"] = "fp_ollama";
  body["choices"] = ojson::array({choice});
  body["usage"] = {{"prompt_tokens", prompt_tokens},
                   {"completion_tokens", completion_tokens},
                   {"total_tokens", prompt_tokens + completion_tokens}};
  return reply_json(200, body);
}

Reply ollama_chat(const FakeOptions& o, const Fixture& fx, const json& r) {
  if (r.contains("messages") && !r["messages"].is_array() && !r["messages"].is_null())
    return reply_json(400,
                      ollama_error(400, "json: cannot unmarshal " + go_json_kind(r["messages"]) +
                                            " into Go struct field "
                                            "ChatCompletionRequest.messages of type "
                                            "[]openai.Message"));
  if (!r.contains("messages") || r["messages"].empty())
    return reply_json(400, ollama_error(400, "[] is too short - 'messages'"));
  const std::string model = r.value("model", "");
  if (model != o.model)
    return reply_json(404, ollama_error(404, "model '" + model + "' not found"));
  const Generated g = generate(fx, reply_for(o, r), int_field(r, "max_tokens"));
  const std::int64_t prompt_tokens = approx_chat_prompt_tokens(r["messages"]);
  const auto completion_tokens = static_cast<std::int64_t>(g.ids.size());
  ojson choice;
  choice["index"] = 0;
  choice["message"] = {{"role", "assistant"}, {"content", g.text}};
  choice["finish_reason"] = g.truncated ? "length" : "stop";
  if (truthy(r, "logprobs") && !g.ids.empty())
    choice["logprobs"] = chat_logprobs(fx, g, chat_context(r["messages"]),
                                       static_cast<int>(int_field(r, "top_logprobs").value_or(0)));
  ojson body;
  body["id"] = "chatcmpl-" + std::to_string(std::hash<std::string>{}(random_hex(8)) % 999);
  body["object"] = "chat.completion";
  body["created"] = now_s();
  body["model"] = model;
  body["system_fingerprint"] = "fp_ollama";
  body["choices"] = ojson::array({choice});
  body["usage"] = {{"prompt_tokens", prompt_tokens},
                   {"completion_tokens", completion_tokens},
                   {"total_tokens", prompt_tokens + completion_tokens}};
  return reply_json(200, body);
}

// ---------------------------------------------------------------------------------------------
// Hosted OpenAI (no source: openai-python's types and clients, and the API's reported answers)

ojson openai_error(const std::string& message, const std::string& type, const json& param,
                   const json& code) {
  return ojson{{"error", {{"message", message}, {"type", type}, {"param", param}, {"code", code}}}};
}

Reply openai_400(const std::string& message, const json& param = nullptr,
                 const json& code = nullptr) {
  return reply_json(400, openai_error(message, "invalid_request_error", param, code));
}

const std::set<std::string> kChatParams = {"messages",
                                           "model",
                                           "audio",
                                           "frequency_penalty",
                                           "function_call",
                                           "functions",
                                           "logit_bias",
                                           "logprobs",
                                           "max_completion_tokens",
                                           "max_tokens",
                                           "metadata",
                                           "modalities",
                                           "moderation",
                                           "n",
                                           "parallel_tool_calls",
                                           "prediction",
                                           "presence_penalty",
                                           "prompt_cache_key",
                                           "prompt_cache_options",
                                           "prompt_cache_retention",
                                           "reasoning_effort",
                                           "response_format",
                                           "safety_identifier",
                                           "seed",
                                           "service_tier",
                                           "stop",
                                           "store",
                                           "stream",
                                           "stream_options",
                                           "temperature",
                                           "tool_choice",
                                           "tools",
                                           "top_logprobs",
                                           "top_p",
                                           "user",
                                           "verbosity",
                                           "web_search_options"};
const std::set<std::string> kCompletionParams = {"model",
                                                 "prompt",
                                                 "best_of",
                                                 "echo",
                                                 "frequency_penalty",
                                                 "logit_bias",
                                                 "logprobs",
                                                 "max_tokens",
                                                 "n",
                                                 "presence_penalty",
                                                 "seed",
                                                 "stop",
                                                 "stream",
                                                 "stream_options",
                                                 "suffix",
                                                 "temperature",
                                                 "top_p",
                                                 "user"};

std::optional<Reply> openai_unknown_params(const json& r, const std::set<std::string>& known,
                                           const std::set<std::string>& also_unknown = {}) {
  std::vector<std::string> unknown;
  for (const auto& [k, v] : r.items())
    if (!known.count(k) || also_unknown.count(k)) unknown.push_back(k);
  if (unknown.empty()) return std::nullopt;
  std::sort(unknown.begin(), unknown.end());
  std::string list;
  for (const auto& k : unknown) list += (list.empty() ? "" : ", ") + k;
  return openai_400(std::string("Unrecognized request argument") +
                    (unknown.size() == 1 ? "" : "s") + " supplied: " + list);
}

std::string json_number_text(const json& v) {
  return v.dump();
}

// Strict structured output: every object must forbid additional properties and require each of
// its properties; the first violation, with the path of the object within the schema.
std::optional<std::string> openai_strict_violation(const json& schema, const std::string& context) {
  if (!schema.is_object()) return std::nullopt;
  const json props = schema.value("properties", json::object());
  const bool object = schema.value("type", json()) == "object" || schema.contains("properties");
  if (object) {
    if (schema.value("additionalProperties", json(true)) != json(false))
      return "In context=" + context +
             ", 'additionalProperties' is required to be supplied and to be false.";
    const json required = schema.value("required", json::array());
    for (const auto& [name, sub] : props.items()) {
      if (std::find(required.begin(), required.end(), json(name)) == required.end())
        return "In context=" + context +
               ", 'required' is required to be supplied and to be an array including every key "
               "in properties. Missing '" +
               name + "'.";
    }
  }
  auto inner = [&](const std::string& step) {
    return context == "()" ? "('" + step + "')"
                           : context.substr(0, context.size() - 1) + ", '" + step + "')";
  };
  for (const auto& [name, sub] : props.items())
    if (auto v = openai_strict_violation(sub, inner("properties', '" + name))) return v;
  if (schema.contains("items"))
    if (auto v = openai_strict_violation(schema["items"], inner("items"))) return v;
  for (const char* key : {"anyOf", "$defs", "definitions"}) {
    if (!schema.contains(key)) continue;
    for (const auto& [k, sub] : schema[key].items())
      if (auto v = openai_strict_violation(sub, inner(std::string(key) + "', '" + k))) return v;
  }
  return std::nullopt;
}

// response_format as the API checks it before generating.
std::optional<Reply> openai_response_format(const json& r) {
  if (!r.contains("response_format") || r["response_format"].is_null()) return std::nullopt;
  const json& rf = r["response_format"];
  if (!rf.is_object())
    return openai_400("Invalid type for 'response_format': expected an object, but got " +
                          std::string(rf.type_name()) + " instead.",
                      "response_format", "invalid_type");
  for (const auto& [k, v] : rf.items())
    if (k != "type" && k != "json_schema")
      return openai_400("Unknown parameter: 'response_format." + k + "'.", "response_format." + k,
                        "unknown_parameter");
  const std::string type = rf.value("type", "");
  if (type != "text" && type != "json_object" && type != "json_schema")
    return openai_400("Invalid value: '" + type +
                          "'. Supported values are: 'json_object', 'json_schema', and 'text'.",
                      "response_format.type", "invalid_value");
  if (type == "json_object") {
    // JSON mode needs the word in the conversation.
    bool mentions = false;
    for (const auto& m : r.value("messages", json::array()))
      if (m.is_object() && m.contains("content") &&
          text::ascii_lower(m["content"].is_string() ? m["content"].get<std::string>()
                                                     : m["content"].dump())
                  .find("json") != std::string::npos)
        mentions = true;
    if (!mentions)
      return openai_400(
          "'messages' must contain the word 'json' in some form, to use 'response_format' of "
          "type 'json_object'.",
          "messages");
  }
  if (type == "json_schema") {
    if (!rf.contains("json_schema") || !rf["json_schema"].is_object())
      return openai_400("Missing required parameter: 'response_format.json_schema'.",
                        "response_format.json_schema", "missing_required_parameter");
    const json& js = rf["json_schema"];
    if (!js.contains("name"))
      return openai_400("Missing required parameter: 'response_format.json_schema.name'.",
                        "response_format.json_schema.name", "missing_required_parameter");
    if (js.value("strict", false) == true)
      if (auto v = openai_strict_violation(js.value("schema", json::object()), "()"))
        return openai_400(
            "Invalid schema for response_format '" + js["name"].get<std::string>() + "': " + *v,
            "response_format");
  }
  return std::nullopt;
}

// Prompt caching: prompts of 1024 tokens or more reuse a prefix earlier requests shared, in
// steps of 128 tokens. The fake's tokens are 4-byte pieces of each message, matching the
// approximate prompt_tokens count.
std::int64_t openai_cached_tokens(FakeState& state, const json& messages,
                                  std::int64_t prompt_tokens) {
  std::vector<std::int64_t> ids;
  for (const auto& m : messages) {
    const std::string role = m.value("role", "");
    for (int i = 0; i < 3; ++i)
      ids.push_back(static_cast<std::int64_t>(std::hash<std::string>{}(role) + i) & 0xFFFFF);
    if (m.contains("content") && m["content"].is_string()) {
      const std::string c = m["content"].get<std::string>();
      for (std::size_t i = 0; i < c.size(); i += 4)
        ids.push_back(static_cast<std::int64_t>(std::hash<std::string>{}(c.substr(i, 4))) &
                      0xFFFFF);
    }
  }
  std::lock_guard lock(state.mutex);
  std::size_t best = 0;
  for (const auto& seen : state.openai_prompts) {
    std::size_t common = 0;
    while (common < seen.size() && common < ids.size() && seen[common] == ids[common]) ++common;
    best = std::max(best, common);
  }
  state.openai_prompts.push_back(std::move(ids));
  const auto reused = std::min(static_cast<std::int64_t>(best), prompt_tokens);
  if (prompt_tokens < 1024 || reused < 1024) return 0;
  return 1024 + (reused - 1024) / 128 * 128;
}

Reply openai_chat(const FakeOptions& o, const Fixture& fx, FakeState& state, const json& r,
                  bool reasoning) {
  // A non-reasoning model rejects reasoning_effort as an unknown argument.
  if (auto e = openai_unknown_params(
          r, kChatParams,
          reasoning ? std::set<std::string>{} : std::set<std::string>{"reasoning_effort"}))
    return *e;
  if (!r.contains("messages"))
    return openai_400("Missing required parameter: 'messages'.", "messages",
                      "missing_required_parameter");
  const std::string model = r.value("model", "");
  if (model != o.model)
    return reply_json(404, openai_error("The model `" + model +
                                            "` does not exist or you do not have access to it.",
                                        "invalid_request_error", nullptr, "model_not_found"));
  if (auto e = openai_response_format(r)) return *e;
  if (reasoning) {
    if (r.contains("max_tokens") && !r["max_tokens"].is_null())
      return openai_400(
          "Unsupported parameter: 'max_tokens' is not supported with this model. "
          "Use 'max_completion_tokens' instead.",
          "max_tokens", "unsupported_parameter");
    if (r.contains("temperature") && r["temperature"].is_number() &&
        r["temperature"].get<double>() != 1.0)
      return openai_400("Unsupported value: 'temperature' does not support " +
                            json_number_text(r["temperature"]) +
                            " with this model. Only the default (1) value is supported.",
                        "temperature", "unsupported_value");
    if (truthy(r, "logprobs"))
      return openai_400("Unsupported parameter: 'logprobs' is not supported with this model.",
                        "logprobs", "unsupported_parameter");
  }
  const auto max = chat_max_tokens(r);
  Generated g = generate(fx, reply_for(o, r), std::nullopt);
  std::int64_t reasoning_tokens = reasoning ? FakeServer::kReasoningTokens : 0;
  bool length = false;
  if (max) {
    // Reasoning tokens count against max_completion_tokens; when they use it up the visible
    // content is empty and finish_reason is "length".
    if (reasoning && *max <= reasoning_tokens) {
      reasoning_tokens = *max;
      g = generate(fx, "", 0);
      length = true;
    } else {
      const std::int64_t room = *max - reasoning_tokens;
      if (static_cast<std::int64_t>(g.ids.size()) > room) {
        g = generate(fx, reply_for(o, r), room);
        length = true;
      }
    }
  }
  const std::int64_t prompt_tokens = approx_chat_prompt_tokens(r["messages"]);
  const std::int64_t n = int_field(r, "n").value_or(1);
  ojson choices = ojson::array();
  for (std::int64_t c = 0; c < n; ++c) {
    ojson choice;
    choice["index"] = c;
    choice["message"] = {{"role", "assistant"},
                         {"content", g.text},
                         {"refusal", nullptr},
                         {"annotations", ojson::array()}};
    choice["logprobs"] =
        truthy(r, "logprobs")
            ? chat_logprobs(fx, g, chat_context(r["messages"]),
                            static_cast<int>(int_field(r, "top_logprobs").value_or(0)))
            : ojson(nullptr);
    choice["finish_reason"] = length ? "length" : "stop";
    choices.push_back(std::move(choice));
  }
  const std::int64_t completion_tokens =
      (static_cast<std::int64_t>(g.ids.size()) + reasoning_tokens) * n;
  const std::int64_t cached = openai_cached_tokens(state, r["messages"], prompt_tokens);
  ojson body;
  body["id"] = "chatcmpl-" + random_alnum(29);
  body["object"] = "chat.completion";
  body["created"] = now_s();
  body["model"] = o.model;
  body["choices"] = std::move(choices);
  body["usage"] = {{"prompt_tokens", prompt_tokens},
                   {"completion_tokens", completion_tokens},
                   {"total_tokens", prompt_tokens + completion_tokens},
                   {"prompt_tokens_details", {{"cached_tokens", cached}, {"audio_tokens", 0}}},
                   {"completion_tokens_details",
                    {{"reasoning_tokens", reasoning_tokens * n},
                     {"audio_tokens", 0},
                     {"accepted_prediction_tokens", 0},
                     {"rejected_prediction_tokens", 0}}}};
  body["service_tier"] = "default";
  body["system_fingerprint"] = "fp_" + random_hex(10);
  return reply_json(200, body);
}

// A legacy completions token as a string: its text, or "bytes:" with \xNN escapes when the
// token's bytes are not complete UTF-8.
std::string openai_legacy_token(const std::string& bytes) {
  if (utf8_valid(bytes)) return bytes;
  std::string out = "bytes:";
  char buf[8];
  for (unsigned char c : bytes) {
    if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
    } else {
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

Reply openai_legacy(const FakeOptions& o, const Fixture& fx, const json& r) {
  if (auto e = openai_unknown_params(r, kCompletionParams)) return *e;
  const std::string model = r.value("model", "");
  if (model != o.model)
    return reply_json(404, openai_error("The model `" + model +
                                            "` does not exist or you do not have access to it.",
                                        "invalid_request_error", nullptr, "model_not_found"));
  if (!r.contains("prompt"))
    return openai_400("Missing required parameter: 'prompt'.", "prompt",
                      "missing_required_parameter");
  const bool echo = truthy(r, "echo");
  const auto logprobs = int_field(r, "logprobs");
  const bool echo_scores = o.model == "davinci-002" || o.model == "babbage-002";
  if (echo && logprobs && !echo_scores)
    return openai_400(
        "Setting 'echo' and 'logprobs' at the same time is not supported for this "
        "model.");
  std::vector<Prompt> prompts;
  try {
    prompts = prompts_of(fx, r["prompt"], false);
  } catch (const std::invalid_argument&) {
    return openai_400("'prompt' must be a string, an array of strings, or an array of tokens.",
                      "prompt");
  }
  const Generated g = generate(fx, reply_for(o, r), int_field(r, "max_tokens").value_or(16));
  const int k = static_cast<int>(logprobs.value_or(0));
  ojson choices = ojson::array();
  std::int64_t prompt_tokens = 0, completion_tokens = 0;
  for (const auto& p : prompts) {
    const std::string prompt_text = p.text ? *p.text : decode_seq(fx, p.ids, false);
    std::vector<std::int64_t> all = p.ids;
    all.insert(all.end(), g.ids.begin(), g.ids.end());
    std::vector<std::string> bytes;
    for (auto id : p.ids) bytes.push_back(token_bytes(fx, id));
    for (const auto& b : g.bytes) bytes.push_back(b);
    ojson lp = nullptr;
    if (logprobs) {
      lp = ojson{{"tokens", ojson::array()},
                 {"token_logprobs", ojson::array()},
                 {"top_logprobs", ojson::array()},
                 {"text_offset", ojson::array()}};
      // Offsets count characters of the echoed text (prompt + completion) before the token.
      std::string before = echo ? "" : prompt_text;
      for (std::size_t i = echo ? 0 : p.ids.size(); i < all.size(); ++i) {
        lp["tokens"].push_back(openai_legacy_token(bytes[i]));
        lp["text_offset"].push_back(code_points(before.substr(0, utf8_complete_prefix(before))));
        before += bytes[i];
        if (i == 0) {
          lp["token_logprobs"].push_back(nullptr);
          lp["top_logprobs"].push_back(nullptr);
          continue;
        }
        std::span<const std::int64_t> ctx(all.data(), i);
        lp["token_logprobs"].push_back(fake_logprob(ctx, all[i]));
        ojson top = ojson::object();
        const bool synthetic = i >= p.ids.size() && g.synthetic[i - p.ids.size()];
        if (synthetic) {
          top[openai_legacy_token(bytes[i])] = fake_logprob(ctx, all[i]);
        } else {
          for (const auto& e : top_k(fx, ctx, all[i], k))
            top[openai_legacy_token(e.id == all[i] ? bytes[i] : token_bytes(fx, e.id))] = e.logprob;
        }
        lp["top_logprobs"].push_back(std::move(top));
      }
    }
    ojson choice;
    choice["text"] = (echo ? prompt_text : std::string()) + g.text;
    choice["index"] = choices.size();
    choice["logprobs"] = lp;
    choice["finish_reason"] = g.truncated ? "length" : "stop";
    choices.push_back(std::move(choice));
    prompt_tokens += static_cast<std::int64_t>(p.ids.size());
    completion_tokens += static_cast<std::int64_t>(g.ids.size());
  }
  ojson body;
  body["id"] = "cmpl-" + random_alnum(29);
  body["object"] = "text_completion";
  body["created"] = now_s();
  body["model"] = o.model;
  body["choices"] = std::move(choices);
  body["usage"] = {{"prompt_tokens", prompt_tokens},
                   {"completion_tokens", completion_tokens},
                   {"total_tokens", prompt_tokens + completion_tokens}};
  return reply_json(200, body);
}

Reply openai_rate_limited(const FakeOptions& o) {
  Reply r = reply_json(
      429, openai_error("Rate limit reached for " + o.model +
                            " in organization org-fake on tokens per min (TPM): Limit 200000, "
                            "Used 199500, Requested 1200. Please try again in 210ms. Visit "
                            "https://platform.openai.com/account/rate-limits to learn more.",
                        "tokens", nullptr, "rate_limit_exceeded"));
  r.headers = {{"retry-after", "1"},
               {"retry-after-ms", "210"},
               {"x-ratelimit-limit-requests", "5000"},
               {"x-ratelimit-limit-tokens", "200000"},
               {"x-ratelimit-remaining-requests", "4999"},
               {"x-ratelimit-remaining-tokens", "0"},
               {"x-ratelimit-reset-requests", "12ms"},
               {"x-ratelimit-reset-tokens", "210ms"},
               {"x-request-id", "req_" + random_hex(32)}};
  return r;
}

std::string mask_key(const std::string& key) {
  if (key.size() <= 12) return key;
  return key.substr(0, 8) + std::string(key.size() - 12, '*') + key.substr(key.size() - 4);
}

}  // namespace

std::optional<Reply> openai_auth_failure(const FakeOptions& o,
                                         const std::map<std::string, std::string>& headers) {
  if (o.api_key.empty()) return std::nullopt;
  const std::string auth = header(headers, "Authorization");
  const auto space = auth.find(' ');
  if (space != std::string::npos && text::ascii_lower(auth.substr(0, space)) == "bearer" &&
      auth.substr(space + 1) == o.api_key)
    return std::nullopt;
  if (auth.empty())
    return reply_json(401,
                      openai_error("You didn't provide an API key. You need to provide your API "
                                   "key in an Authorization header using Bearer auth (i.e. "
                                   "Authorization: Bearer YOUR_KEY), or as the password field "
                                   "(with blank username) if you're accessing the API from your "
                                   "browser and are prompted for a username. You can obtain an "
                                   "API key from https://platform.openai.com/account/api-keys.",
                                   "invalid_request_error", nullptr, nullptr));
  const std::string given = space == std::string::npos ? auth : auth.substr(space + 1);
  return reply_json(401, openai_error("Incorrect API key provided: " + mask_key(given) +
                                          ". You can find your API key at "
                                          "https://platform.openai.com/account/api-keys.",
                                      "invalid_request_error", nullptr, "invalid_api_key"));
}

// ---------------------------------------------------------------------------------------------
// Public helpers

const char* flavour_name(Flavour flavour) {
  switch (flavour) {
    case Flavour::kVllm:
      return "vllm";
    case Flavour::kSglang:
      return "sglang";
    case Flavour::kLlamaCpp:
      return "llama.cpp";
    case Flavour::kOllama:
      return "ollama";
    case Flavour::kOpenAiChat:
      return "openai-chat";
    case Flavour::kOpenAiReasoning:
      return "openai-reasoning";
    case Flavour::kOpenAiLegacyCompletions:
      return "openai-legacy-completions";
  }
  return "?";
}

double fake_logprob(std::span<const std::int64_t> context, std::int64_t token) {
  return -0.25 - static_cast<double>(fnv(context, token) % 1000u) / 100.0;
}

int fake_rank(std::span<const std::int64_t> context, std::int64_t token) {
  return 1 + static_cast<int>((fnv(context, token) / 1000u) % 3u);
}

const FixtureTokens& fixture_tokens(const std::string& tokenizer, const std::string& text) {
  return require_tokens(load_fixture(tokenizer), text);
}

std::optional<std::int64_t> fixture_bos(const std::string& tokenizer) {
  return load_fixture(tokenizer).bos;
}

std::optional<std::int64_t> fixture_eos(const std::string& tokenizer) {
  return load_fixture(tokenizer).eos;
}

std::string fixture_decode_one(const std::string& tokenizer, std::int64_t id) {
  return decode_one(load_fixture(tokenizer), id);
}

std::string fixture_decode(const std::string& tokenizer, std::span<const std::int64_t> ids,
                           bool skip_special_tokens) {
  return decode_seq(load_fixture(tokenizer), ids, skip_special_tokens);
}

std::string fixture_piece(const std::string& tokenizer, std::int64_t id) {
  return piece_of(load_fixture(tokenizer), id);
}

std::string fixture_token_bytes(const std::string& tokenizer, std::int64_t id) {
  return token_bytes(load_fixture(tokenizer), id);
}

namespace {

json schema_instance_at(const json& schema, const json& root, int depth) {
  if (depth > 64 || !schema.is_object()) return json::object();
  if (schema.contains("$ref") && schema["$ref"].is_string()) {
    const std::string ref = schema["$ref"].get<std::string>();
    if (ref.rfind("#", 0) == 0) {
      const json::json_pointer ptr(ref.substr(1));
      if (root.contains(ptr)) return schema_instance_at(root.at(ptr), root, depth + 1);
    }
    return json::object();
  }
  if (schema.contains("const")) return schema["const"];
  if (schema.contains("enum") && schema["enum"].is_array() && !schema["enum"].empty())
    return schema["enum"][0];
  for (const char* key : {"anyOf", "oneOf", "allOf"})
    if (schema.contains(key) && schema[key].is_array() && !schema[key].empty())
      return schema_instance_at(schema[key][0], root, depth + 1);
  std::string type;
  if (schema.contains("type") && schema["type"].is_string()) {
    type = schema["type"].get<std::string>();
  } else if (schema.contains("type") && schema["type"].is_array()) {
    for (const auto& t : schema["type"])
      if (t.is_string() && (type.empty() || type == "null")) type = t.get<std::string>();
  } else if (schema.contains("properties")) {
    type = "object";
  } else if (schema.contains("items")) {
    type = "array";
  }
  if (type == "object" || type.empty()) {
    json out = json::object();
    if (schema.contains("properties") && schema["properties"].is_object())
      for (const auto& [name, sub] : schema["properties"].items())
        out[name] = schema_instance_at(sub, root, depth + 1);
    return out;
  }
  if (type == "array") {
    json out = json::array();
    if (schema.contains("prefixItems") && schema["prefixItems"].is_array())
      for (const auto& sub : schema["prefixItems"])
        out.push_back(schema_instance_at(sub, root, depth + 1));
    std::int64_t n = schema.value("minItems", std::int64_t{1});
    if (schema.contains("maxItems")) n = std::min(n, schema["maxItems"].get<std::int64_t>());
    const json items = schema.value("items", json::object());
    while (static_cast<std::int64_t>(out.size()) < n)
      out.push_back(schema_instance_at(items, root, depth + 1));
    return out;
  }
  if (type == "integer" || type == "number") {
    double v = 0;
    if (schema.contains("minimum")) {
      v = schema["minimum"].get<double>();
    } else if (schema.contains("exclusiveMinimum") && schema["exclusiveMinimum"].is_number()) {
      v = schema["exclusiveMinimum"].get<double>() + 1;
    } else if (schema.contains("maximum")) {
      v = std::min(0.0, schema["maximum"].get<double>());
    } else if (schema.contains("exclusiveMaximum") && schema["exclusiveMaximum"].is_number()) {
      v = std::min(0.0, schema["exclusiveMaximum"].get<double>() - 1);
    }
    if (type == "integer") return static_cast<std::int64_t>(std::ceil(v));
    return v;
  }
  if (type == "string")
    return std::string(static_cast<std::size_t>(schema.value("minLength", std::int64_t{0})), 'a');
  if (type == "boolean") return false;
  return nullptr;  // "null"
}

}  // namespace

std::optional<json> request_schema(const json& request, Flavour flavour) {
  return schema_in(request, flavour);
}

json schema_instance(const json& schema) {
  return schema_instance_at(schema, schema, 0);
}

std::optional<std::string> schema_reply(const json& request, Flavour flavour) {
  if (auto schema = request_schema(request, flavour)) return schema_instance(*schema).dump();
  return std::nullopt;
}

std::size_t code_points(std::string_view utf8) {
  std::size_t n = 0;
  for (unsigned char c : utf8)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

// ---------------------------------------------------------------------------------------------
// The server

FakeServer::FakeServer(FakeOptions options)
    : options_(std::move(options)), state_(std::make_unique<FakeState>()) {
  load_fixture(options_.tokenizer);  // fail at construction, not inside a request
  state_->started = now_s();
  server_ = std::make_unique<httplib::Server>();
  const std::size_t threads = options_.threads;
  server_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server_->set_keep_alive_max_count(1000000);
  server_->set_tcp_nodelay(true);
  auto handler = [this](const httplib::Request& req, httplib::Response& res) {
    std::map<std::string, std::string> headers;
    for (const auto& [k, v] : req.headers) headers.emplace(k, v);
    std::string body = req.body;
    if (!req.files.empty()) {
      // httplib has already split a multipart/form-data body into its parts: joined again (with
      // a boundary of ours), the handlers read it as it was sent (POST /v1/files).
      const std::string boundary = "probity-fake-boundary";
      body.clear();
      for (const auto& [name, part] : req.files) {
        body += "--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + name + "\"";
        if (!part.filename.empty()) body += "; filename=\"" + part.filename + "\"";
        body += "\r\n";
        if (!part.content_type.empty()) body += "Content-Type: " + part.content_type + "\r\n";
        body += "\r\n" + part.content + "\r\n";
      }
      body += "--" + boundary + "--\r\n";
      for (auto it = headers.begin(); it != headers.end();)
        it = text::ascii_lower(it->first) == "content-type" ? headers.erase(it) : std::next(it);
      headers["Content-Type"] = "multipart/form-data; boundary=" + boundary;
    }
    Reply reply = handle(req.method, req.path, body, headers);
    if (options_.flavour == Flavour::kLlamaCpp && reply.content_type == "application/json")
      reply.content_type += "; charset=utf-8";  // as its HTTP layer sends JSON
    res.status = reply.status;
    for (const auto& [k, v] : reply.headers) res.set_header(k, v);
    res.set_content(reply.body, reply.content_type.c_str());
    std::lock_guard lock(mutex_);
    calls_.push_back({req.path, body, headers, reply.status});
  };
  server_->Post(".*", handler);
  server_->Get(".*", handler);
  port_ = server_->bind_to_any_port("127.0.0.1");
  if (port_ <= 0) throw std::runtime_error("fake server: cannot bind 127.0.0.1");
  widen_backlog(port_);
  if (options_.batch_api)
    batch_ = std::make_unique<BatchApi>(
        options_,
        [this](const std::string& m, const std::string& p, const std::string& b,
               const std::map<std::string, std::string>& h) { return handle(m, p, b, h); },
        root_url());
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  for (int i = 0; i < 5000 && !server_->is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (!server_->is_running()) throw std::runtime_error("fake server did not start");
}

FakeServer::~FakeServer() {
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

std::string FakeServer::root_url() const {
  return "http://127.0.0.1:" + std::to_string(port_);
}

std::string FakeServer::base_url() const {
  return root_url() + "/v1";
}

std::vector<FakeCall> FakeServer::calls() const {
  std::lock_guard lock(mutex_);
  return calls_;
}

std::size_t FakeServer::count(std::string_view path) const {
  std::lock_guard lock(mutex_);
  if (path.empty()) return calls_.size();
  return static_cast<std::size_t>(std::count_if(calls_.begin(), calls_.end(),
                                                [&](const FakeCall& c) { return c.path == path; }));
}

FakeServer::Reply FakeServer::handle(const std::string& method, const std::string& path,
                                     const std::string& body,
                                     const std::map<std::string, std::string>& headers) {
  const Fixture& fx = load_fixture(options_.tokenizer);
  const FakeOptions& o = options_;
  const std::string auth = header(headers, "Authorization");
  const bool bearer_ok =
      !o.api_key.empty() && text::ascii_lower(auth.substr(0, auth.find(' '))) == "bearer" &&
      auth.find(' ') != std::string::npos && auth.substr(auth.find(' ') + 1) == o.api_key;
  const bool post = method == "POST";
  if (batch_)
    if (auto batch_reply = batch_->handle(method, path, body, headers)) return *batch_reply;
  auto error_500 = [&](const std::string& message) -> Reply {
    switch (o.flavour) {
      case Flavour::kVllm:
        return reply_json(500, vllm_error(500, "InternalServerError", message));
      case Flavour::kSglang:
        return reply_json(500, sglang_error(500, "InternalServerError", message));
      case Flavour::kLlamaCpp:
        return llamacpp_server_error(message);
      case Flavour::kOllama:
        return reply_json(500, ollama_error(500, message));
      default:
        return reply_json(500, openai_error(message, "server_error", nullptr, nullptr));
    }
  };
  if (o.transcript) {
    if (const RecordedExchange* e = o.transcript->serve(method, path, body)) {
      Reply recorded{e->status, e->response_body(), e->content_type(), {}};
      for (const auto& [k, v] : e->headers)
        if (k != "content-type") recorded.headers[k] = v;
      return recorded;
    }
    if (!o.transcript_fallback) {
      record_unmatched(method, path, body);
      return error_500("fake: " + o.transcript->mismatch(method, path, body));
    }
  }
  try {
    if (!o.tokenize_route && (path == "/tokenize" || path == "/detokenize"))
      return kFastApiNotFound;
    switch (o.flavour) {
      case Flavour::kVllm: {
        // AuthenticationMiddleware guards /v1 (and /v2, /inference, /cohere) only.
        const bool guarded = path.rfind("/v1", 0) == 0 || path.rfind("/v2", 0) == 0 ||
                             path.rfind("/inference", 0) == 0 || path.rfind("/cohere", 0) == 0;
        if (!o.api_key.empty() && guarded && !bearer_ok)
          return reply_json(401, ojson{{"error", "Unauthorized"}});
        if (!post && path == "/v1/models")
          return reply_json(200,
                            ojson{{"object", "list"},
                                  {"data", ojson::array({{{"id", o.model},
                                                          {"object", "model"},
                                                          {"owned_by", "vllm"},
                                                          {"root", o.model},
                                                          {"max_model_len", max_model_len(o)}}})}});
        static const std::set<std::string> routes = {"/v1/completions", "/v1/chat/completions",
                                                     "/tokenize", "/detokenize"};
        if (!post || !routes.count(path)) return kFastApiNotFound;
        // validate_json_request: only application/json bodies.
        const std::string ct = text::ascii_lower(header(headers, "Content-Type"));
        if (ct.substr(0, ct.find(';')) != "application/json")
          return reply_json(400, vllm_error(400, "Bad Request",
                                            "1 validation error:\n  Unsupported Media Type: Only "
                                            "'application/json' is allowed"));
        const json r = json::parse(body, nullptr, false);
        if (r.is_discarded() || !r.is_object())
          return reply_json(400, vllm_error(400, "Bad Request",
                                            "1 validation error:\n  {'type': 'json_invalid', "
                                            "'loc': 'body', 'msg': 'JSON decode error'}",
                                            "body"));
        if (path == "/v1/completions") return vllm_completions(o, fx, r);
        if (path == "/v1/chat/completions") return vllm_chat(o, fx, r);
        if (path == "/tokenize") return vllm_tokenize(o, fx, r);
        return vllm_detokenize(o, fx, r);
      }
      case Flavour::kSglang: {
        if (!o.api_key.empty() && path != "/health" && auth != "Bearer " + o.api_key)
          return reply_json(401, ojson{{"error", "Unauthorized"}});
        if (!post && path == "/v1/models")
          return reply_json(200,
                            ojson{{"object", "list"},
                                  {"data", ojson::array({{{"id", o.model},
                                                          {"object", "model"},
                                                          {"owned_by", "sglang"},
                                                          {"root", o.model},
                                                          {"max_model_len", max_model_len(o)}}})}});
        static const std::set<std::string> routes = {"/v1/completions", "/v1/chat/completions",
                                                     "/tokenize", "/v1/tokenize"};
        if (!post || !routes.count(path)) return kFastApiNotFound;
        const json r = json::parse(body, nullptr, false);
        if (r.is_discarded() || !r.is_object())
          return reply_json(400, sglang_error(400, "BadRequestError", "JSON decode error"));
        if (path == "/v1/completions") return sglang_completions(o, fx, r);
        if (path == "/v1/chat/completions") return sglang_chat(o, fx, r);
        return sglang_tokenize(o, fx, r);
      }
      case Flavour::kLlamaCpp: {
        static const std::set<std::string> open = {"/health",    "/v1/health", "/models",
                                                   "/v1/models", "/api/tags",  "/"};
        // middleware_validate_api_key: "Bearer <key>" (case-sensitive prefix) or X-Api-Key.
        const bool llama_bearer = auth.rfind("Bearer ", 0) == 0 && auth.substr(7) == o.api_key;
        if (!o.api_key.empty() && !open.count(path) && !llama_bearer &&
            header(headers, "X-Api-Key") != o.api_key)
          return reply_json(401, ojson{{"error",
                                        {{"message", "Invalid API Key"},
                                         {"type", "authentication_error"},
                                         {"code", 401}}}});
        if (!post && (path == "/health" || path == "/v1/health"))
          return reply_json(200, ojson{{"status", "ok"}});
        if (!post && (path == "/models" || path == "/v1/models"))
          return llamacpp_models(o, fx, state_->started);
        static const std::set<std::string> native = {"/completion", "/completions"};
        static const std::set<std::string> chats = {"/chat/completions", "/v1/chat/completions"};
        const bool known = path == "/v1/completions" || native.count(path) || chats.count(path) ||
                           path == "/tokenize" || path == "/detokenize";
        if (!post || !known)
          return reply_json(
              404,
              ojson{{"error",
                     {{"message", "File Not Found"}, {"type", "not_found_error"}, {"code", 404}}}});
        json r;
        try {
          r = json::parse(body);  // a parse error escapes the handler: a 500
        } catch (const std::exception& e) {
          return llamacpp_server_error(e.what());
        }
        if (native.count(path))
          return llamacpp_server_error(
              "fake: llama.cpp's native " + path +
              " answer (content, tokens, generation_settings, ...) is not modelled; the OpenAI "
              "shape is at /v1/completions");
        if (path == "/v1/completions") return llamacpp_completions(o, fx, *state_, r, body);
        if (chats.count(path)) return llamacpp_chat(o, fx, *state_, r, body);
        if (path == "/tokenize") return llamacpp_tokenize(o, fx, r);
        return llamacpp_detokenize(o, fx, r);
      }
      case Flavour::kOllama: {
        // No authentication at all; gin's default 404 for unknown routes.
        if (!post && path == "/v1/models")
          return reply_json(200, ojson{{"object", "list"},
                                       {"data", ojson::array({{{"id", o.model},
                                                               {"object", "model"},
                                                               {"created", now_s()},
                                                               {"owned_by", "library"}}})}});
        if (!post || (path != "/v1/completions" && path != "/v1/chat/completions"))
          return {404, "404 page not found", "text/plain", {}};
        const json r = json::parse(body, nullptr, false);
        if (r.is_discarded() || !r.is_object())
          return reply_json(400,
                            ollama_error(400, "invalid character looking for beginning of value"));
        if (path == "/v1/completions") return ollama_completions(o, fx, r);
        return ollama_chat(o, fx, r);
      }
      case Flavour::kOpenAiChat:
      case Flavour::kOpenAiReasoning:
      case Flavour::kOpenAiLegacyCompletions: {
        if (auto denied = openai_auth_failure(o, headers)) return *denied;
        if (!post && path == "/v1/models")
          return reply_json(200, ojson{{"object", "list"},
                                       {"data", ojson::array({{{"id", o.model},
                                                               {"object", "model"},
                                                               {"created", 1686935002},
                                                               {"owned_by", "system"}}})}});
        const bool legacy = o.flavour == Flavour::kOpenAiLegacyCompletions;
        if (!post || (path != "/v1/completions" && path != "/v1/chat/completions"))
          return reply_json(404, openai_error("Invalid URL (" + method + " " + path + ")",
                                              "invalid_request_error", nullptr, nullptr));
        const json r = json::parse(body, nullptr, false);
        if (r.is_discarded() || !r.is_object())
          return openai_400(
              "We could not parse the JSON body of your request. (HINT: This likely "
              "means you aren't using your HTTP library correctly. The OpenAI API "
              "expects a JSON payload, but what was sent was not valid JSON. If you "
              "have trouble figuring out how to fix this, please contact us through "
              "our help center at help.openai.com.)");
        if (legacy && path == "/v1/chat/completions")
          return reply_json(404, openai_error("This is not a chat model and thus not supported in "
                                              "the v1/chat/completions endpoint. Did you mean to "
                                              "use v1/completions?",
                                              "invalid_request_error", "model", nullptr));
        if (!legacy && path == "/v1/completions")
          return reply_json(404, openai_error("This is a chat model and not supported in the "
                                              "v1/completions endpoint. Did you mean to use "
                                              "v1/chat/completions?",
                                              "invalid_request_error", "model", nullptr));
        if (o.rate_limit_every > 0) {
          int index;
          {
            std::lock_guard lock(mutex_);
            index = ++generation_requests_;
          }
          if (index % o.rate_limit_every == 0) return openai_rate_limited(o);
        }
        if (legacy) return openai_legacy(o, fx, r);
        return openai_chat(o, fx, *state_, r, o.flavour == Flavour::kOpenAiReasoning);
      }
    }
  } catch (const std::exception& e) {
    return error_500(e.what());
  }
  return error_500("fake: unhandled flavour");
}

}  // namespace probity::test
