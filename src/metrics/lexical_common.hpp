#pragma once
// What BLEU (bleu.cpp) and chrF (chrf.cpp) share: Python string semantics that sacreBLEU's
// results depend on, and the flat tables both use to count n-grams without building n-gram
// strings. Private to src/metrics; everything is inline because it runs in the hot loops.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
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

// Python's str.lower(): ASCII directly, anything else through ICU's full case mapping.
std::string lower(std::string_view s);

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
  V* find(std::uint64_t key) {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = slot(key);; i = (i + 1) & mask) {
      Slot& s = slots_[i];
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

// A fast 64-bit string hash: 8 bytes at a time, each step mixed as in splitmix64.
inline std::uint64_t hash_bytes(std::string_view s) {
  std::uint64_t h = 0x9E3779B97F4A7C15ull ^ s.size();
  const char* p = s.data();
  std::size_t n = s.size();
  auto mix = [&h](std::uint64_t w) {
    h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
  };
  for (; n >= 8; n -= 8, p += 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    mix(w);
  }
  if (n > 0) {
    std::uint64_t w = 0;
    for (std::size_t i = 0; i < n; ++i)
      w |= std::uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
    mix(w);
  }
  return h;
}

// String equality without a library call: tokens are short.
inline bool same_bytes(const char* data, std::uint32_t size, std::string_view s) {
  if (size != s.size()) return false;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (data[i] != s[i]) return false;
  return true;
}

// Maps strings (views that outlive the call) to ids 1, 2, ...
class StrInterner {
 public:
  void prepare(std::size_t max_keys) { size_slots(slots_, shift_, max_keys); }
  std::uint32_t intern(std::string_view s) {
    const std::uint64_t h = hash_bytes(s);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = static_cast<std::size_t>((h * 0x9E3779B97F4A7C15ull) >> shift_);;
         i = (i + 1) & mask) {
      Slot& slot = slots_[i];
      if (slot.id == 0) {
        slot = Slot{h, s.data(), static_cast<std::uint32_t>(s.size()), ++count_};
        used_.push_back(static_cast<std::uint32_t>(i));
        return slot.id;
      }
      if (slot.hash == h && same_bytes(slot.data, slot.size, s)) return slot.id;
    }
  }
  std::uint32_t size() const { return count_; }
  void clear() {
    for (std::uint32_t i : used_) slots_[i].id = 0;
    used_.clear();
    count_ = 0;
  }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    const char* data = nullptr;
    std::uint32_t size = 0;
    std::uint32_t id = 0;
  };
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> used_;
  std::uint32_t count_ = 0;
  int shift_ = 60;
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

}  // namespace probity::metrics::detail
