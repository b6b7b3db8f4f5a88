#pragma once
// A grow-only memo of a pure function of a word, for the lexicon's WordNet questions and the
// stems of the ultra-concise strategy: the strategies ask about the same words for every
// candidate. Each thread looks in its own table first, without a lock; the shared table (behind
// a reader-writer lock) spares the threads computing the same words again. Entries are as many
// as the words asked about (a vocabulary). For memos of static storage duration only.
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string_view>
#include <utility>
#include <vector>

#include "perturb/word_table.hpp"

namespace probity::perturb {

template <class Value>
class WordMemo {
 public:
  // The remembered value for `key`, else compute() (called without the lock held: a racing
  // thread may compute the same value too).
  template <class Compute>
  Value get(std::string_view key, Compute&& compute) {
    WordTable<Value>& local = local_table();
    if (const Value* value = local.find(key)) return *value;
    Value value{};
    bool known = false;
    {
      std::shared_lock lock(mutex_);
      if (const Value* shared = shared_.find(key)) {
        value = *shared;
        known = true;
      }
    }
    if (!known) {
      value = compute();
      std::unique_lock lock(mutex_);
      shared_.emplace(key, value);
    }
    local.emplace(key, value);
    return value;
  }

 private:
  // This thread's table for this memo.
  WordTable<Value>& local_table() {
    thread_local std::vector<std::pair<const WordMemo*, std::unique_ptr<WordTable<Value>>>> tables;
    for (auto& [memo, table] : tables)
      if (memo == this) return *table;
    tables.emplace_back(this, std::make_unique<WordTable<Value>>());
    return *tables.back().second;
  }

  std::shared_mutex mutex_;
  WordTable<Value> shared_;
};

}  // namespace probity::perturb
