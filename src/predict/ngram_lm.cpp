// Interpolated modified Kneser-Ney (Chen & Goodman 1999); see ngram_lm.hpp for the formulas.
#include "predict/ngram_lm.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "util/random.hpp"

namespace probity::predict {
namespace {

constexpr std::uint64_t kEmpty = ~std::uint64_t{0};

// KenLM's --discount_fallback values for D1, D2, D3+.
constexpr std::array<double, 3> kFallbackDiscount = {0.5, 1.0, 1.5};

// Chen & Goodman's discount estimates from the count-of-counts n[1..4] of one order.
std::array<double, 3> estimate_discounts(const std::array<std::uint64_t, 5>& n) {
  std::array<double, 3> d = kFallbackDiscount;
  if (n[1] == 0 || n[2] == 0) return d;
  const double y = static_cast<double>(n[1]) / static_cast<double>(n[1] + 2 * n[2]);
  for (std::size_t k = 1; k <= 3; ++k) {
    if (n[k] == 0) continue;
    const double kd = static_cast<double>(k);
    const double est =
        kd - (kd + 1) * y * static_cast<double>(n[k + 1]) / static_cast<double>(n[k]);
    // A discount must lie in (0, k]: above k an n-gram seen k times would get negative mass,
    // and at 0 no mass would be left for the lower order.
    if (est > 0 && est <= kd) d[k - 1] = est;
  }
  return d;
}

}  // namespace

// ---- NgramIndex -----------------------------------------------------------------------------

std::uint32_t NgramIndex::find(std::uint64_t key) const {
  if (slots_.empty()) return kNone;
  const std::size_t mask = slots_.size() - 1;
  // Packed keys are highly structured (small ids), so they are mixed before masking.
  for (std::size_t i = util::mix64(key) & mask;; i = (i + 1) & mask) {
    if (slots_[i] == key) return values_[i];
    if (slots_[i] == kEmpty) return kNone;
  }
}

std::uint32_t NgramIndex::insert(std::uint64_t key) {
  if (key == kEmpty) throw std::length_error("n-gram key out of range");
  // Load factor ≤ 0.7: probes stay short (mixed keys) at 24 bytes of slots per n-gram or less.
  if (10 * (size_ + 1) > 7 * slots_.size()) grow();
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = util::mix64(key) & mask;; i = (i + 1) & mask) {
    if (slots_[i] == key) return values_[i];
    if (slots_[i] == kEmpty) {
      if (size_ >= kNone) throw std::length_error("too many distinct n-grams");
      slots_[i] = key;
      values_[i] = static_cast<std::uint32_t>(size_++);
      by_index_.push_back(key);
      return values_[i];
    }
  }
}

void NgramIndex::grow() {
  std::vector<std::uint64_t> old_slots = std::move(slots_);
  std::vector<std::uint32_t> old_values = std::move(values_);
  const std::size_t capacity = std::max<std::size_t>(16, old_slots.size() * 2);
  slots_.assign(capacity, kEmpty);
  values_.assign(capacity, 0);
  const std::size_t mask = capacity - 1;
  for (std::size_t j = 0; j < old_slots.size(); ++j) {
    if (old_slots[j] == kEmpty) continue;
    std::size_t i = util::mix64(old_slots[j]) & mask;
    while (slots_[i] != kEmpty) i = (i + 1) & mask;
    slots_[i] = old_slots[j];
    values_[i] = old_values[j];
  }
}

std::size_t NgramIndex::memory_bytes() const {
  return slots_.capacity() * sizeof(std::uint64_t) + values_.capacity() * sizeof(std::uint32_t) +
         by_index_.capacity() * sizeof(std::uint64_t);
}

void NgramIndex::shrink_keys() {
  std::vector<std::uint64_t>().swap(by_index_);
}

// ---- Builder --------------------------------------------------------------------------------

NgramLm::Builder::Builder(int order) : Builder(order, 0) {
  for (const char* special : {"<s>", "</s>", "<unk>"}) intern_any(special);
}

NgramLm::Builder::Builder(int order, std::size_t num_ids) : order_(order), num_ids_(num_ids) {
  if (order < 1 || order > kMaxOrder) {
    throw std::invalid_argument("n-gram order must be in 1.." + std::to_string(kMaxOrder) +
                                ", got " + std::to_string(order));
  }
  if (num_ids != 0 && num_ids <= kUnk) throw std::invalid_argument("n-gram vocabulary too small");
  if (num_ids >= NgramIndex::kNone) throw std::length_error("vocabulary too large");
  const auto n = static_cast<std::size_t>(order);
  index_.resize(n + 1);
  raw_.resize(n + 1);
  prefix_.resize(n + 1);
  raw_[1].assign(num_ids, 0);
}

NgramLm::Builder::Builder(std::shared_ptr<const Table> table)
    : Builder(table->order_, table->num_ids_) {
  table_ = std::move(table);
  for (std::size_t k = 2; k <= static_cast<std::size_t>(order_); ++k)
    raw_[k].assign(table_->index_[k].size(), 0);
}

NgramLm::Id NgramLm::Builder::intern_any(std::string_view word) {
  if (words_.size() != num_ids_)
    throw std::logic_error("n-gram vocabulary without strings: nothing to intern");
  auto it = ids_.find(std::string(word));
  if (it != ids_.end()) return it->second;
  if (words_.size() >= NgramIndex::kNone - 1) throw std::length_error("vocabulary too large");
  const auto id = static_cast<Id>(words_.size());
  words_.emplace_back(word);
  ids_.emplace(words_.back(), id);
  raw_[1].push_back(0);
  ++num_ids_;
  return id;
}

void NgramLm::Builder::add(std::span<const std::string> tokens) {
  sentence_.assign(1, kBos);
  for (const auto& t : tokens) sentence_.push_back(intern(t));
  add_ids();
}

void NgramLm::Builder::add(std::span<const std::string_view> tokens) {
  sentence_.assign(1, kBos);
  for (auto t : tokens) sentence_.push_back(intern(t));
  add_ids();
}

void NgramLm::Builder::add(std::span<const Id> ids) {
  add(ids, 1);
}

void NgramLm::Builder::add(std::span<const Id> ids, std::uint32_t count) {
  sentence_.assign(1, kBos);
  for (Id w : ids) {
    if (w <= kUnk || w >= num_ids_) {
      throw std::invalid_argument("n-gram training id " + std::to_string(w) + " is not interned");
    }
    sentence_.push_back(w);
  }
  add_ids(count);
}

// Training words must not collide with the padding symbols, whose counts have fixed roles.
NgramLm::Id NgramLm::Builder::intern(std::string_view word) {
  const Id id = intern_any(word);
  if (id <= kUnk) {
    throw std::invalid_argument("training token '" + std::string(word) +
                                "' is reserved for the language model");
  }
  return id;
}

// Counts every n-gram (orders 1..n) that ends at each position after <s>. chain_[k−1] is the
// order-k n-gram ending at the current position; its key is (order-(k−1) n-gram ending here,
// its first word), and its context is previous_chain_[k−2], the (k−1)-gram ending one earlier.
void NgramLm::Builder::add_ids(std::uint32_t count) {
  sentence_.push_back(kEos);
  const auto n = static_cast<std::size_t>(order_);
  chain_.assign(n, NgramIndex::kNone);
  previous_chain_.assign(n, NgramIndex::kNone);
  previous_chain_[0] = kBos;
  for (std::size_t i = 1; i < sentence_.size(); ++i) {
    const Id w = sentence_[i];
    chain_[0] = w;
    raw_[1][w] += count;
    for (std::size_t k = 2; k <= std::min(n, i + 1); ++k) {
      const std::uint64_t key = NgramIndex::pack(chain_[k - 2], sentence_[i + 1 - k]);
      std::uint32_t e = 0;
      if (table_) {
        e = table_->index_[k].find(key);
        if (e == NgramIndex::kNone) throw std::logic_error("n-gram not in the builder's table");
      } else {
        e = index_[k].insert(key);
        if (e == raw_[k].size()) {
          raw_[k].push_back(0);
          prefix_[k].push_back(previous_chain_[k - 2]);
        }
      }
      raw_[k][e] += count;
      chain_[k - 1] = e;
    }
    std::swap(chain_, previous_chain_);
  }
}

std::shared_ptr<const NgramLm::Table> NgramLm::Builder::table() && {
  if (table_) return table_;
  auto table = std::make_shared<Table>();
  table->order_ = order_;
  table->num_ids_ = num_ids_;
  table->index_ = std::move(index_);
  table->prefix_ = std::move(prefix_);
  return table;
}

NgramLm NgramLm::Builder::build() && {
  const auto n = static_cast<std::size_t>(order_);
  NgramLm lm;
  lm.order_ = order_;
  lm.levels_.resize(n + 1);
  const std::size_t num_words = num_ids_;
  const auto& index = table_ ? table_->index_ : index_;
  const auto& prefix = table_ ? table_->prefix_ : prefix_;
  auto entries = [&](std::size_t k) { return k == 1 ? num_words : index[k].size(); };

  // First word of every entry of order k (a word id at order 1).
  auto first_word = [&](std::size_t k, std::size_t e) -> Id {
    return k == 1 ? static_cast<Id>(e) : static_cast<Id>(index[k].keys()[e] & 0xFFFFFFFFu);
  };

  // Adjusted counts: raw at the highest order and for n-grams starting with <s>, otherwise the
  // continuation count N1+(• g) = number of distinct order-(k+1) n-grams whose suffix is g (of
  // a table, those this model has seen).
  for (std::size_t k = n; k >= 1; --k) {
    auto& count = lm.levels_[k].count;
    if (k == n) {
      count = raw_[k];
    } else {
      count.assign(entries(k), 0);
      const auto& keys = index[k + 1].keys();
      for (std::size_t e = 0; e < keys.size(); ++e)
        if (raw_[k + 1][e] > 0) ++count[keys[e] >> 32];
      for (std::size_t e = 0; e < count.size(); ++e) {
        if (first_word(k, e) == kBos) count[e] = raw_[k][e];
      }
    }
    if (k == 1) {
      count[kBos] = 0;  // <s> is never predicted
      count[kUnk] = 0;
    }
    std::array<std::uint64_t, 5> coc{};
    for (std::uint32_t a : count) {
      if (a >= 1 && a <= 4) ++coc[a];
    }
    const auto d = estimate_discounts(coc);
    std::copy(d.begin(), d.end(), lm.discounts_[k]);
  }

  // Context statistics: the order-k events grouped by their (k−1)-word context.
  for (std::size_t k = 1; k <= n; ++k) {
    Level& ctx = lm.levels_[k - 1];
    const std::size_t num_contexts = k == 1 ? 1 : entries(k - 1);
    ctx.total.assign(num_contexts, 0);
    std::vector<std::array<std::uint32_t, 3>> buckets(num_contexts, {0, 0, 0});
    const auto& count = lm.levels_[k].count;
    for (std::size_t e = 0; e < count.size(); ++e) {
      const std::uint32_t a = count[e];
      if (a == 0) continue;
      const std::size_t c = k == 1 ? 0 : prefix[k][e];
      ctx.total[c] += a;
      ++buckets[c][std::min<std::uint32_t>(a, 3) - 1];
    }
    ctx.gamma.assign(num_contexts, 0.0);
    for (std::size_t c = 0; c < num_contexts; ++c) {
      for (std::size_t j = 0; j < 3; ++j) ctx.gamma[c] += lm.discounts_[k][j] * buckets[c][j];
    }
  }

  if (table_) {
    lm.table_ = table_;
  } else {  // its own: the index without what only building needs
    for (std::size_t k = 2; k <= n; ++k) index_[k].shrink_keys();
    prefix_.clear();
    lm.table_ = std::move(*this).table();
  }
  lm.words_ = std::move(words_);
  lm.ids_ = std::move(ids_);
  lm.num_ids_ = num_ids_;
  return lm;
}

NgramLm NgramLm::train(int order, std::span<const std::vector<std::string>> texts) {
  Builder builder(order);
  for (const auto& t : texts) builder.add(t);
  return std::move(builder).build();
}

// ---- Queries --------------------------------------------------------------------------------

const std::string& NgramLm::word(Id id) const {
  if (words_.empty()) throw std::logic_error("n-gram model without word strings");
  return words_.at(id);
}

NgramLm::Id NgramLm::id(std::string_view word) const {
  if (words_.empty()) throw std::logic_error("n-gram model without word strings");
  auto it = ids_.find(std::string(word));
  return it == ids_.end() || it->second == kBos ? kUnk : it->second;
}

std::size_t NgramLm::num_ngrams(int k) const {
  if (k < 1 || k > order_) return 0;
  const auto& count = levels_[static_cast<std::size_t>(k)].count;
  return static_cast<std::size_t>(
      std::count_if(count.begin(), count.end(), [](std::uint32_t a) { return a > 0; }));
}

std::size_t NgramLm::Table::memory_bytes() const {
  std::size_t bytes = 0;
  for (const auto& index : index_) bytes += index.memory_bytes();
  for (const auto& p : prefix_) bytes += p.capacity() * sizeof(std::uint32_t);
  return bytes;
}

std::size_t NgramLm::memory_bytes() const {
  std::size_t bytes = table_ ? table_->memory_bytes() : 0;  // shared or not
  for (const auto& level : levels_) {
    bytes += level.count.capacity() * sizeof(std::uint32_t) +
             level.total.capacity() * sizeof(std::uint32_t) +
             level.gamma.capacity() * sizeof(double);
  }
  for (const auto& w : words_) bytes += sizeof(std::string) + w.capacity();
  // unordered_map: one node (key, value, next, cached hash) per word plus the bucket array.
  bytes +=
      ids_.size() * (sizeof(std::string) + 3 * sizeof(void*)) + ids_.bucket_count() * sizeof(void*);
  return bytes;
}

double NgramLm::discounted(int k, std::uint32_t a) const {
  if (a == 0) return 0.0;
  const double d = discounts_[k][std::min<std::uint32_t>(a, 3) - 1];
  return std::max(static_cast<double>(a) - d, 0.0);
}

NgramLm::State NgramLm::state(std::span<const Id> context) const {
  State s;
  const std::size_t usable = std::min(context.size(), static_cast<std::size_t>(order_ - 1));
  std::uint32_t entry = NgramIndex::kNone;
  for (std::size_t j = 1; j <= usable; ++j) {
    const Id w = context[context.size() - j];
    if (w >= num_ids_) break;
    entry = j == 1 ? w : table_->index_[j].find(NgramIndex::pack(entry, w));
    // A suffix that is unseen or never followed by a word has no longer extension either.
    if (entry == NgramIndex::kNone || levels_[j].total[entry] == 0) break;
    s.words[j - 1] = w;
    s.entries[j - 1] = entry;
    s.depth = static_cast<int>(j);
  }
  return s;
}

double NgramLm::prob(const State& state, Id word) const {
  if (word >= num_ids_ || word == kBos) word = kUnk;
  double p = 1.0 / static_cast<double>(vocab_size());
  const Level& root = levels_[0];
  if (root.total[0] > 0) {
    p = (discounted(1, levels_[1].count[word]) + root.gamma[0] * p) /
        static_cast<double>(root.total[0]);
  }
  std::uint32_t event = word;  // the order-k n-gram (context suffix, word), while it exists
  for (int j = 1; j <= state.depth; ++j) {
    const auto k = static_cast<std::size_t>(j + 1);
    if (event != NgramIndex::kNone) {
      event = table_->index_[k].find(NgramIndex::pack(event, state.words[j - 1]));
    }
    const std::uint32_t a = event == NgramIndex::kNone ? 0 : levels_[k].count[event];
    const Level& ctx = levels_[k - 1];
    const std::uint32_t c = state.entries[j - 1];
    p = (discounted(j + 1, a) + ctx.gamma[c] * p) / static_cast<double>(ctx.total[c]);
  }
  return p;
}

double NgramLm::log_prob(std::span<const Id> context, Id word) const {
  return std::log(prob(state(context), word));
}

double NgramLm::log_prob(std::span<const std::string> context, std::string_view word) const {
  std::vector<Id> ids;
  ids.reserve(context.size());
  for (const auto& w : context) ids.push_back(w == "<s>" ? kBos : id(w));
  return log_prob(ids, id(word));
}

double NgramLm::log_prob_text(std::span<const Id> tokens) const {
  thread_local std::vector<Id> padded;
  padded.assign(1, kBos);
  padded.insert(padded.end(), tokens.begin(), tokens.end());
  padded.push_back(kEos);
  const std::size_t history = static_cast<std::size_t>(order_ - 1);
  double total = 0.0;
  for (std::size_t i = 1; i < padded.size(); ++i) {
    const std::size_t begin = i > history ? i - history : 0;
    const std::span<const Id> context(padded.data() + begin, i - begin);
    total += std::log(prob(state(context), padded[i]));
  }
  return total;
}

double NgramLm::log_prob_text(std::span<const std::string> tokens) const {
  std::vector<Id> ids;
  ids.reserve(tokens.size());
  for (const auto& t : tokens) ids.push_back(id(t));
  return log_prob_text(ids);
}

}  // namespace probity::predict
