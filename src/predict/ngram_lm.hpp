#pragma once
// An interpolated modified Kneser-Ney n-gram language model (Chen & Goodman 1999, "An empirical
// study of smoothing techniques for language modeling", modified Kneser-Ney with interpolation),
// the offline autoregression mechanism's model of p(y).
//
//   p_k(w | h) = [max(a_k(hw) − D_k(a_k(hw)), 0) + G_k(h) · p_{k−1}(w | h')] / Σ_v a_k(hv)
//   G_k(h)     = D_k,1 · N1(h•) + D_k,2 · N2(h•) + D_k,3+ · N3+(h•)
//   p_0(w)     = 1 / |V|           (uniform over the vocabulary, </s> and <unk>; never <s>)
//
// where h' drops the oldest word of h and a_k are the adjusted counts of order k: raw counts at
// the highest order and for n-grams that start with <s> (they cannot be extended to the left),
// continuation counts N1+(• g) otherwise. When Σ_v a_k(hv) = 0 (h unseen, or never followed by
// a word) p_k = p_{k−1}. The three discounts per order come from the count-of-counts n1..n4 of
// the adjusted counts of that order:
//
//   Y = n1 / (n1 + 2 n2),  D1 = 1 − 2Y n2/n1,  D2 = 2 − 3Y n3/n2,  D3+ = 3 − 4Y n4/n3
//
// A discount whose estimate is undefined (a zero count-of-counts) or outside (0, k] takes
// KenLM's fallback 0.5, 1.0, 1.5 for k = 1, 2, 3+, which keeps every distribution proper and
// gives unseen words non-zero mass on tiny corpora.
//
// Sentences are padded with one <s> and one </s> (the SRILM/KenLM convention): the first word is
// predicted from the context "<s>", and log_prob_text includes the probability of </s>.
//
// Storage: word ids are interned uint32; the n-grams of each order live in an open-addressing
// hash table keyed by (id of the n-gram without its first word) << 32 | first word — a suffix
// trie, so both the context chain and the event chain of a query extend one word per lookup.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace probity::predict {

// Open-addressing (linear probing) map from a packed 64-bit key to a dense uint32 index.
class NgramIndex {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  static std::uint64_t pack(std::uint32_t suffix, std::uint32_t first) {
    return (static_cast<std::uint64_t>(suffix) << 32) | first;
  }
  std::uint32_t find(std::uint64_t key) const;
  // The index of `key`, inserting it with the next dense index when absent.
  std::uint32_t insert(std::uint64_t key);
  std::size_t size() const { return size_; }
  // Key of every index, in index order.
  const std::vector<std::uint64_t>& keys() const { return by_index_; }
  std::size_t memory_bytes() const;
  void shrink_keys();  // drops the index → key list once it is no longer needed

 private:
  void grow();
  std::vector<std::uint64_t> slots_;  // empty slot: kEmpty
  std::vector<std::uint32_t> values_;
  std::vector<std::uint64_t> by_index_;
  std::size_t size_ = 0;
};

class NgramLm {
 public:
  using Id = std::uint32_t;
  static constexpr Id kBos = 0;  // <s>: context only, never predicted
  static constexpr Id kEos = 1;  // </s>
  static constexpr Id kUnk = 2;  // any word not seen in training
  static constexpr int kMaxOrder = 9;

  // The n-grams (orders 2..n) of a set of texts, each with a dense index: models trained on
  // subsets of those texts (the fold models of a cross-fitting) share one and hold only their
  // counts. Made by Builder::table().
  class Table {
   public:
    std::size_t memory_bytes() const;

   private:
    friend class NgramLm;
    int order_ = 0;
    std::size_t num_ids_ = 0;
    std::vector<NgramIndex> index_;                   // orders 2..n at [k]
    std::vector<std::vector<std::uint32_t>> prefix_;  // index of each entry's (k−1)-word context
  };

  // Collects the training texts, then build() estimates the model. Counting is streaming, so
  // memory is bounded by the number of distinct n-grams, not the corpus size.
  class Builder {
   public:
    explicit Builder(int order = 3);
    // A vocabulary of `num_ids` ids (the three specials and words 3..num_ids−1) without their
    // strings, for models of one vocabulary that its owner maps (the model's id() and word()
    // then throw std::logic_error).
    Builder(int order, std::size_t num_ids);
    // Counts over the n-grams of `table` (its order and vocabulary, without strings): every
    // text added must be one of the table's (std::logic_error otherwise). The model shares it.
    explicit Builder(std::shared_ptr<const Table> table);
    // Adds a word to the vocabulary without counting it (models that must share word ids
    // intern the same words in the same order first). Returns its id.
    Id intern(std::string_view word);
    void add(std::span<const std::string> tokens);
    void add(std::span<const std::string_view> tokens);
    void add(std::span<const Id> ids);  // ids from intern()
    // The same sentence `count` times (the model equals `count` calls of add(ids)).
    void add(std::span<const Id> ids, std::uint32_t count);
    NgramLm build() &&;
    // The n-grams added so far, as a table for other builders (this one is then spent).
    std::shared_ptr<const Table> table() &&;

   private:
    Id intern_any(std::string_view word);
    void add_ids(std::uint32_t count = 1);
    int order_;
    std::vector<std::string> words_;  // empty for a vocabulary without strings
    std::unordered_map<std::string, Id> ids_;
    std::size_t num_ids_ = 0;
    std::shared_ptr<const Table> table_;                 // counting over a table, else null
    std::vector<NgramIndex> index_;                      // orders 2..n at [k] (no table)
    std::vector<std::vector<std::uint32_t>> raw_;        // raw counts, orders 1..n at [k]
    std::vector<std::vector<std::uint32_t>> prefix_;     // index of the (k−1)-word context
    std::vector<Id> sentence_;                           // scratch: <s> w1 .. wm </s>
    std::vector<std::uint32_t> chain_, previous_chain_;  // scratch: n-grams ending here
  };

  // Everything a query needs about a context h: the entries of its suffixes that have
  // continuations, shortest first.
  struct State {
    int depth = 0;                          // number of usable suffixes (0: unigram level only)
    Id words[kMaxOrder] = {};               // words[j−1]: the j-th most recent context word
    std::uint32_t entries[kMaxOrder] = {};  // entries[j−1]: index of the j-word suffix
  };

  NgramLm() = default;
  static NgramLm train(int order, std::span<const std::vector<std::string>> texts);

  int order() const { return order_; }
  // Predictable outcomes: the interned words (counted or not: an uncounted word gets only the
  // uniform share, like <unk>), </s> and <unk> (not <s>).
  std::size_t vocab_size() const { return num_ids_ - 1; }
  std::size_t num_ids() const { return num_ids_; }
  Id id(std::string_view word) const;  // kUnk when unseen
  const std::string& word(Id id) const;
  std::size_t num_ngrams(int k) const;  // distinct n-grams of order k with a non-zero count
  // D_{k,c} for order k in 1..n and c in 1..3 (3 stands for 3+).
  double discount(int k, int c) const { return discounts_[static_cast<std::size_t>(k)][c - 1]; }
  std::size_t memory_bytes() const;

  // The context is the full history (its last order−1 words are used); ids come from id().
  State state(std::span<const Id> context) const;
  double prob(const State& state, Id word) const;
  double log_prob(std::span<const Id> context, Id word) const;
  double log_prob(std::span<const std::string> context, std::string_view word) const;
  // Σ log p over the tokens and the final </s>, the first token conditioned on <s>.
  double log_prob_text(std::span<const Id> tokens) const;
  double log_prob_text(std::span<const std::string> tokens) const;

 private:
  struct Level {                       // order k ≥ 1 (entries: table_->index_[k], k ≥ 2)
    std::vector<std::uint32_t> count;  // adjusted count a_k of each entry as an event
    std::vector<std::uint32_t> total;  // Σ_v a_{k+1}(entry · v): the entry as a context
    std::vector<double> gamma;         // G_{k+1}(entry)
  };
  double discounted(int k, std::uint32_t a) const;

  int order_ = 0;
  std::vector<std::string> words_;  // empty when built without strings
  std::unordered_map<std::string, Id> ids_;
  std::size_t num_ids_ = 0;
  std::shared_ptr<const Table> table_;  // its own, or shared with other models
  std::vector<Level> levels_;  // [1..n]; [0] holds the root context (total, gamma of order 1)
  double discounts_[kMaxOrder + 1][3] = {};
};

}  // namespace probity::predict
