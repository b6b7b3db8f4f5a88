#pragma once
// Replay of recorded exchanges with a real server: the JSONL transcripts that
// tests/llm/fakes/record_transcript.py writes (one line per exchange: method, path, request or
// request_text, status, headers, response or response_text; an optional {"meta": ...} line).
//
// A request matches a recording when method, path (without query) and canonical body agree:
// the body parsed as JSON, the ignored fields removed, integral floats as integers, keys sorted.
// The same request asked several times gets its recordings in order, then the last one again.
// FakeOptions::transcript serves a Transcript from a FakeServer; see fake_server.hpp.
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace probity::test {

struct RecordedExchange {
  std::size_t line = 0;  // 1-based line in the transcript file
  std::string probe;     // record_transcript.py probes: the probe's name
  std::string method;
  std::string path;
  // The request body as recorded: parsed JSON (null for an empty body) or, when it was not JSON,
  // its text in request_text.
  nlohmann::ordered_json request;
  std::optional<std::string> request_text;
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  // The response: parsed JSON (key order kept) or, when it was not JSON, response_text.
  nlohmann::ordered_json response;
  std::optional<std::string> response_text;

  std::string request_body() const;   // the body to send again
  std::string response_body() const;  // the body to serve
  std::string content_type() const;
};

class Transcript {
 public:
  // Throws std::runtime_error naming the file and line of anything unreadable.
  // `ignored_request_fields`: top-level keys ("user") or JSON pointers ("/stream_options/x")
  // left out of the match, for request fields that change from run to run.
  static std::shared_ptr<Transcript> load(const std::string& path,
                                          std::vector<std::string> ignored_request_fields = {});

  const std::string& path() const { return path_; }
  const nlohmann::json& meta() const { return meta_; }
  const std::vector<RecordedExchange>& exchanges() const { return exchanges_; }
  // The exchange recorded for a probe (record_transcript.py probes); throws when there is none.
  const RecordedExchange& probe(const std::string& name) const;

  // The recording to serve for a request, advancing that request's cursor; nullptr when
  // nothing recorded matches.
  const RecordedExchange* serve(const std::string& method, const std::string& path,
                                const std::string& body);
  // Why nothing matches: the request, then the recorded body for the same method and path that
  // differs least (its line and the JSON Patch from it to the request), or the recorded paths.
  std::string mismatch(const std::string& method, const std::string& path,
                       const std::string& body) const;
  // Recordings never served since load (or reset), e.g. to check that a replayed run asked
  // everything it asked when recorded.
  std::vector<const RecordedExchange*> unserved() const;
  void reset();

  // The match key of a request: method, path without query, canonical body.
  std::string key(const std::string& method, const std::string& path,
                  const std::string& body) const;

 private:
  Transcript() = default;
  nlohmann::json canonical(const std::string& body, bool& is_json) const;

  std::string path_;
  std::vector<std::string> ignored_;
  nlohmann::json meta_ = nlohmann::json::object();
  std::vector<RecordedExchange> exchanges_;
  std::unordered_map<std::string, std::vector<std::size_t>> by_key_;  // key -> exchange indexes
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::size_t> cursor_;  // key -> next recording
  std::vector<bool> served_;
};

}  // namespace probity::test
