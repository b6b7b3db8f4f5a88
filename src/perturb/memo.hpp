#pragma once
// A grow-only, thread-safe memo of a pure function of a word, for the lexicon's WordNet
// questions and the stems of the ultra-concise strategy: the strategies ask about the same words
// for every candidate. Entries are as many as the words asked about (a vocabulary).
#include <functional>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace probity::perturb {

template <class Value>
class WordMemo {
 public:
  // The remembered value for `key`, else compute() (called without the lock held: a racing
  // thread may compute the same value too).
  template <class Compute>
  Value get(std::string_view key, Compute&& compute) {
    {
      std::shared_lock lock(mutex_);
      if (auto it = map_.find(key); it != map_.end()) return it->second;
    }
    Value value = compute();
    std::unique_lock lock(mutex_);
    map_.try_emplace(std::string(key), value);
    return value;
  }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::shared_mutex mutex_;
  std::unordered_map<std::string, Value, Hash, std::equal_to<>> map_;
};

}  // namespace probity::perturb
