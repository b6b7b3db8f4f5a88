#pragma once
// What BLEU (bleu.cpp), chrF (chrf.cpp) and ROUGE (rouge.cpp) share: Python string semantics
// that sacreBLEU's results depend on, the flat tables that count n-grams without building n-gram
// strings, and the per-thread cache of prepared reference sets. Private to src/metrics; the
// tables are inline because they run in the hot loops.
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace probity::metrics::detail {

// ---- Python string helpers ---------------------------------------------------------------------

// Byte length of the Python whitespace character (str.isspace) starting at p, or 0.
inline std::size_t space_len(const unsigned char* p, const unsigned char* end) {
  const unsigned char c = p[0];
  if (c > ' ' && c < 0x80) return 0;  // the common case first
  if (c < 0x80) return (c >= 0x09 && c <= 0x0D) || c >= 0x1C ? 1 : 0;
  const auto left = end - p;
  if (c == 0xC2) return left >= 2 && (p[1] == 0x85 || p[1] == 0xA0) ? 2 : 0;
  if (c == 0xE1) return left >= 3 && p[1] == 0x9A && p[2] == 0x80 ? 3 : 0;
  if (c == 0xE2 && left >= 3) {
    if (p[1] == 0x80)
      return (p[2] >= 0x80 && p[2] <= 0x8A) || p[2] == 0xA8 || p[2] == 0xA9 || p[2] == 0xAF ? 3 : 0;
    return p[1] == 0x81 && p[2] == 0x9F ? 3 : 0;
  }
  if (c == 0xE3) return left >= 3 && p[1] == 0x80 && p[2] == 0x80 ? 3 : 0;
  return 0;
}

// Python's str.split() (no argument): word(w) for each whitespace-separated word w of s, in order.
template <class Word>
void split_py(std::string_view s, Word&& word) {
  const auto* b = reinterpret_cast<const unsigned char*>(s.data());
  const auto* p = b;
  const auto* e = b + s.size();
  const unsigned char* token = nullptr;
  while (p < e) {
    const std::size_t w = space_len(p, e);
    if (w == 0) {
      if (!token) token = p;
      ++p;
      continue;
    }
    if (token) word(s.substr(static_cast<std::size_t>(token - b), p - token));
    token = nullptr;
    p += w;
  }
  if (token) word(s.substr(static_cast<std::size_t>(token - b)));
}

// ---- counting tables ---------------------------------------------------------------------------

// Sizes the slots of an empty open-addressing table for max_keys keys: a power of two, at least
// 2 * max_keys (a load factor of at most 1/2 keeps probes short), reallocated (all reset) only
// when there are too few. `shift` makes a slot index of a 64-bit multiplicative hash's top bits.
template <class Slot>
void size_slots(std::vector<Slot>& slots, int& shift, std::size_t max_keys) {
  std::size_t cap = 16;
  while (cap < 2 * max_keys) cap <<= 1;
  if (cap > slots.size()) {
    slots.assign(cap, Slot{});
    shift = 64 - std::countr_zero(cap);
  }
}

// Open-addressing (linear probing) map from 64-bit keys to small values. prepare() sizes it for a
// number of keys while empty; clear() resets only the slots that were used.
template <class V>
class KeyTable {
 public:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};

  void prepare(std::size_t max_keys) { size_slots(slots_, shift_, max_keys); }
  // Index of the key's slot, inserting it with a value-initialised V when absent.
  std::uint32_t insert_index(std::uint64_t key) {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = slot(key);; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.key == key) return static_cast<std::uint32_t>(i);
      if (s.key == kEmpty) {
        s.key = key;
        s.val = V{};
        used_.push_back(static_cast<std::uint32_t>(i));
        return static_cast<std::uint32_t>(i);
      }
    }
  }
  V& insert(std::uint64_t key) { return slots_[insert_index(key)].val; }
  V& value(std::uint32_t index) { return slots_[index].val; }
  const V* find(std::uint64_t key) const {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = slot(key);; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.key == key) return &s.val;
      if (s.key == kEmpty) return nullptr;
    }
  }
  std::size_t size() const { return used_.size(); }
  void clear() {
    for (std::uint32_t i : used_) slots_[i].key = kEmpty;
    used_.clear();
  }

 private:
  struct Slot {
    std::uint64_t key = kEmpty;
    V val{};
  };
  std::size_t slot(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> used_;
  int shift_ = 60;
};

// v[0, n) all zero (v may be longer): a memset, where vector::assign would fill element by element.
template <class T>
void zero_fill(std::vector<T>& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
  std::memset(static_cast<void*>(v.data()), 0, n * sizeof(T));
}

// Fixed-size loads (single instructions; a memcpy of variable length would be a library call).
inline std::uint64_t load64(const char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}
inline std::uint32_t load32(const char* p) {
  std::uint32_t w;
  std::memcpy(&w, p, 4);
  return w;
}

// Strings that are followed by at least 8 readable bytes (a buffer's padding) can be read a
// word at a time, the last word masked to the string's bytes: no branch on the length of a
// token, which is unpredictable.
inline constexpr std::size_t kPadding = 8;
inline std::uint64_t low_bytes(std::uint64_t w, std::size_t n) {  // n in 1..8
  return w & (~std::uint64_t{0} >> (64 - 8 * n));
}

// A fast 64-bit hash of a padded string. For up to 8 bytes it is injective for each length (the
// bytes form one word, mixed by a bijection), so equal hashes and lengths mean equal strings:
// short tokens are compared without reading them.
inline std::uint64_t hash_padded(std::string_view s) {
  const char* p = s.data();
  const std::size_t n = s.size();
  std::uint64_t w = n == 0 ? 0 : low_bytes(load64(p), n < 8 ? n : 8);
  for (std::size_t i = 8; i < n; i += 8) {  // rare: tokens of more than 8 bytes
    w = (w ^ (w >> 31)) * 0xBF58476D1CE4E5B9ull;
    w ^= low_bytes(load64(p + i), n - i < 8 ? n - i : 8);
  }
  w += n * 0x9E3779B97F4A7C15ull;
  w *= 0xBF58476D1CE4E5B9ull;
  w ^= w >> 31;
  w *= 0x94D049BB133111EBull;
  return w ^ (w >> 29);
}

// Equality of two padded strings of the same length n > 8.
inline bool same_long_bytes(const char* a, const char* b, std::size_t n) {
  for (std::size_t i = 0; i < n; i += 8) {
    const std::size_t k = n - i < 8 ? n - i : 8;
    if (low_bytes(load64(a + i), k) != low_bytes(load64(b + i), k)) return false;
  }
  return true;
}

// Maps padded strings (views that outlive the map) to ids 1, 2, ...
class StrInterner {
 public:
  // Empties the map and sizes it for up to max_keys keys (load factor at most 1/2; a compact table
  // is a cached one).
  void reset(std::size_t max_keys) {
    std::size_t cap = 16;
    while (cap < 2 * max_keys) cap <<= 1;
    zero_fill(slots_, cap);
    mask_ = cap - 1;
    shift_ = 64 - std::countr_zero(cap);
    count_ = 0;
  }
  std::uint32_t intern(std::string_view s) {
    const std::uint64_t h = hash_padded(s);
    for (std::size_t i = h >> shift_;; i = (i + 1) & mask_) {
      Slot& slot = slots_[i];
      if (slot.id == 0) {
        slot = Slot{h, s.data(), static_cast<std::uint32_t>(s.size()), ++count_};
        return slot.id;
      }
      if (slot.matches(h, s)) return slot.id;
    }
  }
  // The id of s, or 0 when it was never interned. Found and absent strings leave the loop by the
  // same branch (whether a word is known is unpredictable; a collision is rare).
  std::uint32_t find(std::string_view s) const {
    const std::uint64_t h = hash_padded(s);
    for (std::size_t i = h >> shift_;; i = (i + 1) & mask_) {
      const Slot& slot = slots_[i];
      if ((slot.id == 0) | ((slot.hash == h) & (slot.size == s.size()))) {
        if (slot.size <= 8 || same_long_bytes(slot.data, s.data(), s.size())) return slot.id;
      }
    }
  }
  std::uint32_t size() const { return count_; }

 private:
  struct Slot {
    std::uint64_t hash;
    const char* data;
    std::uint32_t size;
    std::uint32_t id;  // 0: empty
    bool matches(std::uint64_t h, std::string_view s) const {
      return hash == h && size == s.size() && (size <= 8 || same_long_bytes(data, s.data(), size));
    }
  };
  std::vector<Slot> slots_ = std::vector<Slot>(16);  // the first mask_ + 1 are the table
  std::size_t mask_ = 15;
  int shift_ = 60;
  std::uint32_t count_ = 0;
};

// ---- n-gram numbering --------------------------------------------------------------------------

// Numbers the n-grams of one order densely, from the ids of the (n-1)-grams: the id of the n-gram
// at i is looked up by (id of the (n-1)-gram at i, symbol at i+n-1), in a direct grid when that is
// small, else in a hash table. The hypothesis numbers its n-grams; references only look theirs up
// (one the hypothesis lacks has no id).
//
// live[i] says the n-gram at i can occur on the other side; an n-gram can only do so if both its
// (n-1)-grams do, so the others are skipped. The grid loops are branch-free, as hits and misses
// are unpredictable: a dead position looks up row 0, which never holds an id, and gets id 0,
// whose count slots are the callers' dummies.
class NgramNumbering {
 public:
  // Starts an order whose (n-1)-grams have ids 1..prev_ids, with symbols 0..width-1 and at most
  // max_new n-grams to number.
  void start(std::size_t prev_ids, std::size_t width, std::size_t max_new) {
    width_ = width;
    const std::size_t cells = (prev_ids + 1) * width;
    use_grid_ = cells <= kGridMax;
    if (use_grid_) {
      if (grid_.size() < cells) grid_.resize(cells, 0);
    } else {
      table_.prepare(max_new);
    }
    touched_.resize(max_new);
    n_touched_ = 0;
    next_id_ = 0;
  }

  // For i in [0, count): live[i] &= live[i + 1], and ids[i], the id of the (n-1)-gram at i,
  // becomes that of the n-gram at i (0 when dead), numbered on first sight; last[i] is the n-gram's
  // last symbol. Then on_id(id).
  template <class OnId>
  void number(std::size_t count, std::uint32_t* ids, const std::uint32_t* last, std::uint8_t* live,
              OnId&& on_id) {
    // Raw pointers, counters and flags in locals: byte stores would otherwise force reloading
    // them.
    const bool use_grid = use_grid_;
    const std::size_t width = width_;
    std::uint32_t* grid = grid_.data();
    std::uint32_t* touched = touched_.data();
    std::size_t n_touched = n_touched_;
    std::uint32_t next_id = next_id_;
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint8_t l = live[i] & live[i + 1];
      live[i] = l;
      const std::uint64_t key = std::uint64_t{l ? ids[i] : 0u} * width + last[i];
      std::uint32_t id = 0;
      if (use_grid) {
        id = grid[key];
        const auto fresh = static_cast<std::uint32_t>(id == 0 && l != 0);
        next_id += fresh;
        id = fresh ? next_id : id;
        grid[key] = id;
        touched[n_touched] = static_cast<std::uint32_t>(key);
        n_touched += fresh;
      } else if (l) {
        std::uint32_t& slot = table_.insert(key);
        if (slot == 0) slot = ++next_id;
        id = slot;
      }
      ids[i] = id;
      on_id(id);
    }
    n_touched_ = n_touched;
    next_id_ = next_id;
  }

  // As number(), but n-grams not numbered yet get id 0, and live[i] becomes id != 0.
  template <class OnId>
  void look_up(std::size_t count, std::uint32_t* ids, const std::uint32_t* last, std::uint8_t* live,
               OnId&& on_id) {
    const bool use_grid = use_grid_;
    const std::size_t width = width_;
    const std::uint32_t* grid = grid_.data();
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint8_t l = live[i] & live[i + 1];
      const std::uint64_t key = std::uint64_t{l ? ids[i] : 0u} * width + last[i];
      std::uint32_t id = 0;
      if (use_grid) {
        id = grid[key];
      } else if (l) {
        if (const std::uint32_t* found = table_.find(key)) id = *found;
      }
      ids[i] = id;
      live[i] = id != 0;
      on_id(id);
    }
  }

  // Number of n-grams numbered in this order: their ids are 1..count().
  std::uint32_t count() const { return next_id_; }

  // Ends the order: the grid is all zero again (only the cells that were set are reset).
  void finish() {
    if (use_grid_) {
      for (std::size_t t = 0; t < n_touched_; ++t) grid_[touched_[t]] = 0;
    } else {
      table_.clear();
    }
  }

 private:
  static constexpr std::size_t kGridMax = std::size_t{1} << 20;
  std::vector<std::uint32_t> grid_, touched_;
  KeyTable<std::uint32_t> table_;  // used instead of the grid when that would be too large
  std::size_t width_ = 0, n_touched_ = 0;
  std::uint32_t next_id_ = 0;
  bool use_grid_ = true;
};

// The non-zero values (n-gram ids: 0 is "in no reference") of ids[0, count) into out, in order
// (branch-free); returns how many.
inline std::size_t compact_nonzero(const std::uint32_t* ids, std::size_t count,
                                   std::uint32_t* out) {
  std::size_t m = 0;
  for (std::size_t i = 0; i < count; ++i) {
    out[m] = ids[i];
    m += ids[i] != 0;
  }
  return m;
}

// ---- n-gram index of a reference set -----------------------------------------------------------

// Open-addressing (linear probing) map from pairs of non-zero 32-bit ids to ids, sized exactly for
// its keys (a compact table is a cached one), for building once and looking up many times.
class PairTable {
 public:
  // Empties the table and sizes it for up to max_keys keys (load factor at most 3/4).
  void reset(std::size_t max_keys) {
    std::size_t cap = 16;
    while (3 * cap < 4 * max_keys) cap <<= 1;  // max_keys overestimates the distinct n-grams
    zero_fill(slots_, cap + 1);                // slots_[cap] stays empty: see find()
    mask_ = cap - 1;
    shift_ = 64 - std::countr_zero(cap);
  }
  // The value of (a, b), inserted as 0 when absent.
  std::uint32_t& insert(std::uint32_t a, std::uint32_t b) {
    const std::uint64_t key = std::uint64_t{a} << 32 | b;
    const std::size_t mask = mask_;
    for (std::size_t i = slot(key);; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.key == key) return s.val;
      if (s.key == kEmpty) {
        s.key = key;
        return s.val;
      }
    }
  }
  // The value of (a, b), 0 when absent; 0 at once when a or b is 0. Branch-free but for
  // collisions: which n-grams are present is unpredictable.
  std::uint32_t find(std::uint32_t a, std::uint32_t b) const {
    const std::uint64_t key = std::uint64_t{a} << 32 | b;
    const bool possible = (a != 0) & (b != 0);
    std::size_t i = possible ? slot(key) : mask_ + 1;  // the extra slot, always empty
    for (;;) {
      const Slot& s = slots_[i];
      if ((s.key == key) | (s.key == kEmpty)) return s.key == key ? s.val : 0;
      i = (i + 1) & mask_;
    }
  }

 private:
  static constexpr std::uint64_t kEmpty = 0;  // ids are non-zero; an empty table is all zero
  struct Slot {
    std::uint64_t key = kEmpty;
    std::uint32_t val = 0;
  };
  std::size_t slot(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  std::vector<Slot> slots_ = std::vector<Slot>(16);  // the first mask_ + 1 are the table
  std::size_t mask_ = 15;
  int shift_ = 60;
};

// The n-grams of orders 1..max_order of some references over symbols 1..vocab, each with a dense
// id (order 1: the symbol itself; order n >= 2: numbered after order n-1) and its counts: the
// maximum over the references (BLEU) or each reference's count (chrF; with one reference that is
// its count, kept as the maximum). Built once per reference set (ReferenceCache keeps it), then
// queried with hypotheses.
//
// An n-gram is named by the ids of its two (n-1)-grams, left and right: a hypothesis position
// whose (n-1)-grams no reference has cannot hold a reference n-gram and costs no lookup.
class NgramIndex {
 public:
  enum class Counts { kMax, kPerReference };
  struct Entry {
    std::uint32_t ref, count;
  };

  // References are symbols[bounds[r], bounds[r + 1]) for r < bounds.size() - 1.
  void build(std::span<const std::uint32_t> symbols, std::span<const std::size_t> bounds,
             std::uint32_t vocab, std::size_t max_order, Counts counts) {
    const std::size_t n_refs = bounds.size() - 1;
    max_order_ = max_order;
    // One table per order (a pass over the hypothesis reads one); the positions of an order
    // bound its number of n-grams.
    if (tables_.size() < max_order + 1) tables_.resize(max_order + 1);
    std::size_t positions = 0;
    for (std::size_t n = 2; n <= max_order; ++n) {
      std::size_t of_order = 0;
      for (std::size_t r = 0; r < n_refs; ++r) {
        const std::size_t len = bounds[r + 1] - bounds[r];
        if (len >= n) of_order += len - n + 1;
      }
      tables_[n].reset(of_order);
      positions += of_order;
    }
    const std::size_t bound = std::size_t{vocab} + positions + 1;
    // With one reference its counts are the maxima, counted directly.
    const bool direct = n_refs == 1;
    single_ = direct;
    // Working memory of the build, per thread rather than per index: cached indexes stay small.
    thread_local Workspace ws;
    if (!direct) {
      zero_fill(ws.cur, bound);
      zero_fill(ws.tag, bound);
    }
    if (counts == Counts::kMax || direct) {
      zero_fill(max_, bound);
    } else {
      ws.triples.clear();
    }
    ws.work.assign(symbols.begin(), symbols.end());
    // Raw pointers in locals: stores through them would otherwise force reloading the vectors.
    std::uint32_t* const work = ws.work.data();
    std::uint32_t* const cur = ws.cur.data();
    std::uint32_t* const tag = ws.tag.data();
    std::uint32_t* const max = max_.data();
    std::uint32_t next = vocab;
    for (std::size_t n = 1; n <= max_order; ++n) {
      for (std::size_t r = 0; r < n_refs; ++r) {
        const std::size_t len = bounds[r + 1] - bounds[r];
        if (len < n) continue;
        const std::size_t m = len - n + 1;
        const auto t = static_cast<std::uint32_t>(r + 1);
        std::uint32_t* const w = work + bounds[r];
        if (n > 1) {
          PairTable& table = tables_[n];
          for (std::size_t i = 0; i < m; ++i) {
            std::uint32_t& id = table.insert(w[i], w[i + 1]);
            if (id == 0) id = ++next;
            w[i] = id;
          }
        }
        if (direct) {
          for (std::size_t i = 0; i < m; ++i) ++max[w[i]];
        } else if (counts == Counts::kMax) {
          // The running count of each occurrence; the maximum keeps the reference's total.
          for (std::size_t i = 0; i < m; ++i) {
            const std::uint32_t id = w[i];
            const std::uint32_t c = (tag[id] == t ? cur[id] : 0) + 1;
            cur[id] = c;
            tag[id] = t;
            max[id] = std::max(max[id], c);
          }
        } else {
          ws.distinct.clear();
          for (std::size_t i = 0; i < m; ++i) {
            const std::uint32_t id = w[i];
            if (tag[id] != t) {
              tag[id] = t;
              cur[id] = 0;
              ws.distinct.push_back(id);
            }
            ++cur[id];
          }
          for (std::uint32_t id : ws.distinct) ws.triples.push_back({id, t - 1, cur[id]});
        }
      }
    }
    size_ = next;
    if (counts == Counts::kPerReference && !direct) {
      // Entries grouped by id (a counting sort), in reference order within an id.
      begin_.assign(std::size_t{size_} + 2, 0);
      for (const Triple& tr : ws.triples) ++begin_[tr.id + 1];
      for (std::size_t i = 1; i < begin_.size(); ++i) begin_[i] += begin_[i - 1];
      entries_.resize(ws.triples.size());
      for (const Triple& tr : ws.triples) entries_[begin_[tr.id]++] = {tr.ref, tr.count};
      for (std::size_t i = begin_.size() - 1; i > 0; --i) begin_[i] = begin_[i - 1];
      begin_[0] = 0;
    }
  }

  std::size_t max_order() const { return max_order_; }
  // Ids run from 1 to size().
  std::uint32_t size() const { return size_; }

  // ids[0, count] hold ids of order n-1 (0: in no reference); afterwards ids[0, count) hold
  // those of order n (n >= 2).
  void advance(std::size_t n, std::uint32_t* ids, std::size_t count) const {
    const PairTable& table = tables_[n];
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint32_t a = ids[i], b = ids[i + 1];
      ids[i] = a != 0 && b != 0 ? table.find(a, b) : 0;
    }
  }
  // Built from one reference.
  bool single() const { return single_; }
  // Counts::kMax, or a single reference: the largest count of each n-gram in one reference, by
  // id (0 for id 0).
  const std::uint32_t* max_counts() const { return max_.data(); }
  // Counts::kPerReference with several references: the references that have the n-gram, with
  // their counts.
  std::span<const Entry> entries(std::uint32_t id) const {
    return std::span<const Entry>(entries_).subspan(begin_[id], begin_[id + 1] - begin_[id]);
  }

 private:
  struct Triple {
    std::uint32_t id, ref, count;
  };
  struct Workspace {
    std::vector<std::uint32_t> work, cur, tag, distinct;
    std::vector<Triple> triples;
  };
  std::vector<PairTable> tables_;  // by order n >= 2: (left id, right id) -> id
  std::vector<std::uint32_t> max_, begin_;
  std::vector<Entry> entries_;
  std::size_t max_order_ = 0;
  std::uint32_t size_ = 0;
  bool single_ = false;
};

// ---- cache of prepared reference sets ----------------------------------------------------------

// Entries of each metric family's per-thread cache of prepared reference sets; 0 turns caching
// off. Results never depend on it (tests and measurements set it).
void set_reference_cache_capacity(std::size_t entries);
std::size_t reference_cache_capacity();

// What a metric derives from one item's references (tokens, n-gram counts, bit masks), kept per
// thread for the next items with the same references: the audit scores each candidate and its
// perturbations against one reference set, and the candidates of a task share it.
//
// An entry is found by an XXH3-128 hash of the references' bytes and a tag of the metric options
// that shape the preparation, then the bytes are compared, so a hash collision cannot change a
// result. A miss rebuilds the entry last built under the same tag if nothing has reused it yet
// (a stream where references do not repeat keeps rebuilding one entry, which stays in the CPU
// cache), else an empty or the least recently used entry. Reference sets larger than kMaxBytes
// are prepared in a scratch entry that is never looked up (bounds the memory kept per thread).
//
// With `defer`, a reference set is only prepared when it comes again (its hash is remembered):
// the first time get() returns nullptr and the caller scores the item directly, which is cheaper
// than preparing for a single use (one reference).
template <class Prepared>
class ReferenceCache {
 public:
  static constexpr std::size_t kMaxBytes = std::size_t{1} << 14;

  // The prepared form of `refs` under `tag`: a cached one, or build(prepared) fills one (it must
  // overwrite everything it reads later, whatever the entry held before); nullptr for a deferred
  // first sight.
  template <class Build>
  const Prepared* get(std::string_view tag, std::span<const std::string_view> refs, bool defer,
                      Build&& build) {
    key_.clear();
    append_sized(tag);
    const std::size_t tag_bytes = key_.size();
    for (std::string_view r : refs) append_sized(r);
    const std::size_t capacity = reference_cache_capacity();
    if (capacity == 0 || key_.size() > kMaxBytes) {
      if (defer) return nullptr;
      if (!scratch_) scratch_ = std::make_unique<Prepared>();
      build(*scratch_);
      return scratch_.get();
    }
    const XXH128_hash_t hash = XXH3_128bits(key_.data(), key_.size());
    ++clock_;
    if (entries_.size() > capacity) entries_.resize(capacity);
    Entry* same_tag = nullptr;  // the entry of this tag used last
    for (auto& e : entries_) {
      if (!e->valid) continue;
      if (XXH128_isEqual(e->hash, hash) && e->key == key_) {
        e->last_use = clock_;
        ++e->hits;
        return &e->value;
      }
      if (std::string_view(e->key).substr(0, tag_bytes) ==
              std::string_view(key_).substr(0, tag_bytes) &&
          (!same_tag || e->last_use > same_tag->last_use))
        same_tag = e.get();
    }
    if (defer) {
      // First sight: remember the hash (a collision only prepares a set early).
      const auto seen = std::find_if(seen_.begin(), seen_.end(), [&](const XXH128_hash_t& h) {
        return XXH128_isEqual(h, hash);
      });
      if (seen == seen_.end()) {
        seen_[next_seen_++ % seen_.size()] = hash;
        return nullptr;
      }
      *seen = XXH128_hash_t{};
    }
    Entry* slot = nullptr;
    if (same_tag && same_tag->hits == 0) {
      slot = same_tag;
    } else if (entries_.size() < capacity) {
      entries_.push_back(std::make_unique<Entry>());
      slot = entries_.back().get();
    } else {
      slot = std::min_element(entries_.begin(), entries_.end(), [](const auto& a, const auto& b) {
               return a->last_use < b->last_use;
             })->get();
    }
    slot->valid = false;  // stays so if build throws
    build(slot->value);
    slot->hash = hash;
    slot->key = key_;
    slot->last_use = clock_;
    slot->hits = 0;
    slot->valid = true;
    return &slot->value;
  }

  // Forgets every entry (ROUGE: when its token ids are renumbered).
  void clear() {
    entries_.clear();
    seen_.fill(XXH128_hash_t{});
  }

 private:
  struct Entry {
    XXH128_hash_t hash{};
    std::string key;
    std::uint64_t last_use = 0, hits = 0;
    bool valid = false;
    Prepared value;
  };
  void append_sized(std::string_view s) {
    const std::uint64_t n = s.size();
    key_.append(reinterpret_cast<const char*>(&n), sizeof n);
    key_.append(s);
  }

  std::vector<std::unique_ptr<Entry>> entries_;
  std::unique_ptr<Prepared> scratch_;
  std::string key_;
  std::uint64_t clock_ = 0;
  std::array<XXH128_hash_t, 16> seen_{};  // hashes of deferred sets, most recent 16
  std::size_t next_seen_ = 0;
};

}  // namespace probity::metrics::detail
