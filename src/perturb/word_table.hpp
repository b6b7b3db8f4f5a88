#pragma once
// A hash table of words for the lexicon's word lists and the word memos: open addressing over a
// power-of-two array of slots (linear probing; each slot keeps its key's hash), looked up by
// string_view. The lists are asked about every word of every candidate, and std::unordered_map's
// prime-modulo division, node chasing and std::string keys made those lookups a large share of
// the strategies' time. Not thread-safe for writers; concurrent readers are fine.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace probity::perturb {

template <class Value>
class WordTable {
 public:
  // The value stored for `key`, or nullptr.
  const Value* find(std::string_view key) const {
    if (slots_.empty()) return nullptr;
    const std::uint64_t h = hash(key);
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& slot = slots_[i];
      if (!slot.used) return nullptr;
      if (slot.hash == h && slot.key == key) return &slot.value;
    }
  }
  bool contains(std::string_view key) const { return find(key) != nullptr; }

  // Adds `key` unless it is there (as unordered_map::emplace: the first value stays).
  void emplace(std::string_view key, Value value) { put(key, std::move(value), false); }
  // Adds `key` or replaces its value.
  void insert_or_assign(std::string_view key, Value value) { put(key, std::move(value), true); }

  std::size_t size() const { return size_; }
  // Calls f(key, value) for every entry, in slot order.
  template <class F>
  void for_each(F&& f) const {
    for (const Slot& slot : slots_)
      if (slot.used) f(std::string_view(slot.key), slot.value);
  }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    std::string key;
    Value value{};
    bool used = false;
  };

  // Eight bytes at a time, each step mixed with splitmix64's multipliers; a tail of fewer than
  // eight bytes is read as two overlapping four-byte loads or three single bytes (as wyhash
  // does), so that short words take no byte loop or memcpy call.
  static std::uint64_t hash(std::string_view key) {
    const char* p = key.data();
    const std::size_t n = key.size();
    std::uint64_t h = (n + 1) * 0x9E3779B97F4A7C15ULL;
    auto mix = [&h](std::uint64_t word) {
      h = (h ^ word) * 0xBF58476D1CE4E5B9ULL;
      h ^= h >> 31;
    };
    auto load32 = [](const char* at) {
      std::uint32_t v;
      std::memcpy(&v, at, 4);
      return static_cast<std::uint64_t>(v);
    };
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      std::uint64_t word;
      std::memcpy(&word, p + i, 8);
      mix(word);
    }
    const std::size_t rest = n - i;
    if (rest >= 4) {
      mix(load32(p + i) | (load32(p + n - 4) << 32));
    } else if (rest > 0) {
      const auto byte = [p](std::size_t at) {
        return static_cast<std::uint64_t>(static_cast<unsigned char>(p[at]));
      };
      mix(byte(i) | (byte(i + rest / 2) << 8) | (byte(n - 1) << 16));
    }
    h *= 0x94D049BB133111EBULL;
    return h ^ (h >> 32);
  }

  void put(std::string_view key, Value value, bool replace) {
    if (2 * (size_ + 1) > slots_.size()) grow();  // at most half full
    const std::uint64_t h = hash(key);
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& slot = slots_[i];
      if (!slot.used) {
        slot.hash = h;
        slot.key.assign(key);
        slot.value = std::move(value);
        slot.used = true;
        ++size_;
        return;
      }
      if (slot.hash == h && slot.key == key) {
        if (replace) slot.value = std::move(value);
        return;
      }
    }
  }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.clear();
    slots_.resize(old.empty() ? 16 : 2 * old.size());
    mask_ = slots_.size() - 1;
    for (Slot& slot : old) {
      if (!slot.used) continue;
      std::size_t i = slot.hash & mask_;
      while (slots_[i].used) i = (i + 1) & mask_;
      slots_[i] = std::move(slot);
    }
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

// A set of words.
class WordSet {
 public:
  WordSet() = default;
  WordSet(std::initializer_list<std::string_view> words) {
    for (auto w : words) insert(w);
  }
  bool contains(std::string_view word) const { return table_.contains(word); }
  void insert(std::string_view word) { table_.emplace(word, true); }
  void insert_all(const WordSet& other) {
    other.table_.for_each([this](std::string_view w, bool) { insert(w); });
  }
  template <class F>
  void for_each(F&& f) const {
    table_.for_each([&f](std::string_view w, bool) { f(w); });
  }

 private:
  WordTable<bool> table_;
};

}  // namespace probity::perturb
