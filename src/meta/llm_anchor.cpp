// The LLM anchoring judge of the global benchmark (arXiv:2502.12052, ACL 2025: "a candidate is
// compared pairwise with the anchors of each level"): the model says which of two texts is better
// in the dimension, asked in both orders so that a position bias cannot pass for a verdict.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>

#include "llm/prompts.hpp"
#include "llm/schema.hpp"
#include "llm/session.hpp"
#include "llm/structured.hpp"
#include "probity/meta.hpp"
#include "probity/signature.hpp"

namespace probity::meta {
namespace {

// The dimension definitions given to the judge (SummEval's, as in the prompts of arXiv:2502.12052).
std::string_view definition(QualityDimension d) {
  switch (d) {
    case QualityDimension::kConsistency:
      return "the factual alignment between the text and its input: a consistent text states "
             "only facts supported by the input and contains no hallucinated or contradicted "
             "facts.";
    case QualityDimension::kFluency:
      return "the quality of the individual sentences: they should be grammatical and "
             "well-formed, with no missing, repeated or misordered words.";
    case QualityDimension::kCoherence:
      return "the collective quality of all sentences: the text should be well-structured and "
             "well-organised, its sentences in a logical order and linked by fitting "
             "connectives, not a heap of related facts.";
    case QualityDimension::kRelevance:
      return "the selection of important content from the input: the text should include only "
             "important information of the input and no redundant or off-topic content.";
  }
  return "";
}

// Dimensions judged against the input: the judge sees each text's task source.
bool needs_source(QualityDimension d) {
  return d == QualityDimension::kConsistency || d == QualityDimension::kRelevance;
}

std::string block(std::string_view s) {
  return fmt::format("<<<\n{}\n>>>\n", s.empty() ? "(no input given)" : s);
}

// -1, 0, +1 for "B", "tie", "A" (case and surrounding punctuation ignored).
std::optional<int> parse_better(const nlohmann::json& j, std::string& error) {
  if (!j.contains("better") || !j.at("better").is_string()) {
    error = "the JSON object needs a \"better\" string: \"A\", \"B\" or \"tie\"";
    return std::nullopt;
  }
  std::string v;
  for (char c : j.at("better").get<std::string>())
    if (std::isalnum(static_cast<unsigned char>(c)))
      v += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v == "a" || v == "texta") return 1;
  if (v == "b" || v == "textb") return -1;
  if (v == "tie") return 0;
  error = fmt::format("\"better\" must be \"A\", \"B\" or \"tie\", got {}", j.at("better").dump());
  return std::nullopt;
}

class LlmAnchorJudge final : public AnchorJudge {
 public:
  LlmAnchorJudge(std::shared_ptr<llm::Session> session, const LlmAnchorOptions& options)
      : session_(llm::require_session(std::move(session))),
        options_(options),
        client_(&session_->client(options.role)),
        prompt_(llm::load_prompt(options.prompt, options.prompts_dir)) {
    if (options.max_reasks < 0) throw std::invalid_argument("LLM anchor judge: max_reasks < 0");
  }

  std::string signature() const override {
    return Signature("llm-pairwise")
        .field("role", options_.role)
        .part(client_->signature())
        .field("prompt", prompt_.id())
        .part("both-orders")
        .field("reasks", options_.max_reasks)
        .format();
  }

  void prepare(const Dataset& ds, std::span<const ItemRef> items) override {
    std::lock_guard lock(mutex_);
    texts_.clear();
    sources_.clear();
    memo_.clear();
    for (const auto& it : items) {
      const Task& t = ds.tasks.at(it.task);
      texts_.push_back(t.candidates.at(it.candidate).text);
      sources_.push_back(t.source);
    }
  }

  void prefetch(std::span<const std::pair<std::size_t, std::size_t>> pairs) override {
    std::lock_guard lock(mutex_);
    std::vector<std::pair<std::size_t, std::size_t>> keys;
    for (const auto& [a, b] : pairs) {
      if (a == b) continue;
      keys.emplace_back(std::min(a, b), std::max(a, b));
    }
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    judge(keys);
  }

  int compare(std::size_t a, std::size_t b) const override {
    if (a == b) return 0;
    const std::pair key{std::min(a, b), std::max(a, b)};
    std::lock_guard lock(mutex_);
    auto it = memo_.find(key);
    if (it == memo_.end()) {
      judge({key});
      it = memo_.find(key);
    }
    return a < b ? it->second : -it->second;
  }

  std::vector<std::pair<std::string, std::size_t>> counters() const override {
    std::lock_guard lock(mutex_);
    return {{"comparisons", comparisons_},
            {"agreed", agreed_},
            {"tied", tied_},
            {"position_disagreements", disagreements_},
            {"failed", failed_},
            {"rejected_answers", rejected_}};
  }

 private:
  std::string render(std::size_t a, std::size_t b) const {
    std::string context;
    if (needs_source(options_.dimension)) {
      if (sources_.at(a) == sources_.at(b)) {
        context = "Both texts were written for this input:\n" + block(sources_[a]) + "\n";
      } else {
        context = "TEXT A was written for this input:\n" + block(sources_[a]) +
                  "\nTEXT B was written for this input:\n" + block(sources_[b]) + "\n";
      }
    }
    return prompt_.render({{"dimension", std::string(dimension_name(options_.dimension))},
                           {"definition", std::string(definition(options_.dimension))},
                           {"context", context},
                           {"text_a", texts_.at(a)},
                           {"text_b", texts_.at(b)}});
  }

  // Asks every pair (a < b) in both orders in one batch; the mutex is held by the caller.
  void judge(const std::vector<std::pair<std::size_t, std::size_t>>& keys) const {
    if (keys.empty()) return;
    std::vector<std::string> prompts;
    prompts.reserve(2 * keys.size());
    for (const auto& [a, b] : keys) {
      prompts.push_back(render(a, b));
      prompts.push_back(render(b, a));
    }
    auto parser = [](std::size_t, const nlohmann::json& j,
                     std::string& error) -> std::optional<nlohmann::json> {
      auto v = parse_better(j, error);
      if (!v) return std::nullopt;
      return nlohmann::json(*v);
    };
    const auto schema = [](std::size_t) {
      return llm::schema::object({{"better", llm::schema::string_enum({"A", "B", "tie"})}});
    };
    auto answers = llm::ask_structured(*client_, prompts, schema, parser, options_.max_reasks);
    for (std::size_t k = 0; k < keys.size(); ++k) {
      const auto& first = answers[2 * k];
      const auto& second = answers[2 * k + 1];
      ++comparisons_;
      for (const auto* ans : {&first, &second}) {
        const bool transport = ans->failure == llm::Answer::Failure::kRequest;
        rejected_ +=
            static_cast<std::size_t>(std::max(ans->asks, 1)) - 1 + (!ans->ok && !transport ? 1 : 0);
      }
      int verdict = 0;
      if (!first.ok || !second.ok) {
        ++failed_;  // counted as a tie, never dropped
      } else {
        // Both orders as "is the lower-index text better": A in the first, B in the second.
        const int v1 = first.value.get<int>();
        const int v2 = -second.value.get<int>();
        if (v1 != v2) {
          ++disagreements_;
        } else if (v1 == 0) {
          ++tied_;
        } else {
          ++agreed_;
          verdict = v1;
        }
      }
      memo_[keys[k]] = verdict;
    }
  }

  std::shared_ptr<llm::Session> session_;
  LlmAnchorOptions options_;
  llm::Client* client_;
  llm::PromptTemplate prompt_;
  std::vector<std::string> texts_, sources_;
  mutable std::mutex mutex_;
  mutable std::map<std::pair<std::size_t, std::size_t>, int> memo_;
  mutable std::size_t comparisons_ = 0, agreed_ = 0, tied_ = 0, disagreements_ = 0, failed_ = 0,
                      rejected_ = 0;
};

}  // namespace

std::unique_ptr<AnchorJudge> make_llm_anchor_judge(std::shared_ptr<llm::Session> session,
                                                   const LlmAnchorOptions& options) {
  return std::make_unique<LlmAnchorJudge>(std::move(session), options);
}

}  // namespace probity::meta
