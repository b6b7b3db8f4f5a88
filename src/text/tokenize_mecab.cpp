// sacreBLEU's `ja-mecab` tokenizer (TokenizerJaMecab) on libmecab: one MeCab model (thread-safe)
// shared by all threads, a tagger and a lattice per thread.
#include <fmt/format.h>
#include <mecab.h>

#include <memory>
#include <string>
#include <string_view>

#include "probity/error.hpp"
#include "text/python_space.hpp"
#include "text/tokenize_sacrebleu.hpp"

#ifndef PROBITY_MECAB_IPADIC
#define PROBITY_MECAB_IPADIC "/var/lib/mecab/dic/ipadic-utf8"
#endif

namespace probity::text {
namespace {

// sacreBLEU asserts 392,126 entries (pip's ipadic 1.0.0, IPADIC 2.7.0-20070801). Debian's
// mecab-ipadic 2.7.0-20070801+main-3 is the same dictionary plus one entry, 令和 (its patch
// 0001-new-Japanese-era-reiwa-entry): 392,127.
constexpr unsigned kIpadicSizes[] = {392126, 392127};

MeCab::Model& model() {
  static const std::unique_ptr<MeCab::Model> m = [] {
    // As sacreBLEU: the dictionary named explicitly, wakati output; no resource file settings.
    const std::string args = fmt::format("-d {} -r /dev/null -Owakati", PROBITY_MECAB_IPADIC);
    std::unique_ptr<MeCab::Model> made(MeCab::createModel(args.c_str()));
    if (!made)
      throw UsageError(fmt::format(
          "tokenize=ja-mecab: MeCab cannot load the IPA dictionary at {} ({}); install Debian's "
          "mecab-ipadic-utf8",
          PROBITY_MECAB_IPADIC, MeCab::getLastError()));
    const MeCab::DictionaryInfo* d = made->dictionary_info();
    const bool ipa = d && (d->size == kIpadicSizes[0] || d->size == kIpadicSizes[1]) &&
                     d->next == nullptr && std::string_view(d->charset) == "UTF-8";
    if (!ipa)
      throw UsageError(fmt::format(
          "tokenize=ja-mecab: the dictionary at {} is not the UTF-8 IPA dictionary ({} entries)",
          PROBITY_MECAB_IPADIC, d ? d->size : 0u));
    return made;
  }();
  return *m;
}

struct PerThread {
  std::unique_ptr<MeCab::Tagger> tagger;
  std::unique_ptr<MeCab::Lattice> lattice;
};

}  // namespace

std::string tokenize_ja_mecab(std::string_view line) {
  MeCab::Model& m = model();
  thread_local PerThread t;
  if (!t.tagger) {
    t.tagger.reset(m.createTagger());
    t.lattice.reset(m.createLattice());
  }
  const std::string input(python_strip(line));
  t.lattice->set_sentence(input.c_str(), input.size());
  if (!t.tagger->parse(t.lattice.get()))
    throw UsageError(fmt::format("tokenize=ja-mecab: MeCab failed: {}", t.lattice->what()));
  return std::string(python_strip(t.lattice->toString()));
}

std::string ja_mecab_signature() {
  return fmt::format("ja-mecab-{}-IPA", MeCab::Model::version());
}

}  // namespace probity::text
