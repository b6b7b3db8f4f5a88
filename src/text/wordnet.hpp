#pragma once
// Thread-safe, cached WordNet 3.0 lookups for the prediction mechanisms: synset membership,
// synonyms, antonyms and verb forms of single words.
//
// The database files are read directly (index files into memory, data files memory-mapped and
// parsed on demand) instead of through the C library, whose global state and static buffers
// would race with other users of the library in the same process.
//
// Words are lower-case; multi-word lemmas are not returned. When the database is missing every
// lookup is empty and available() is false.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace probity::text::wordnet {

bool available();
// The database release ("3.0"), or "none" when unavailable.
std::string version();

// Synset ids of the senses of every base form (morphy, all parts of speech) of `word`: part of
// speech in the high 32 bits, byte offset in the low ones. Sorted and unique. `max_senses` > 0
// keeps only that many most frequent senses per base form and part of speech.
const std::vector<std::uint64_t>& synsets(std::string_view word, int max_senses = 0);
// Single-word lemmas sharing a synset with `word`, excluding `word` itself. Sorted.
const std::vector<std::string>& synonyms(std::string_view word);
// Direct antonyms (WordNet "!" pointers) of the three most frequent senses of every base form
// of `word` (rare senses' antonyms are mostly spurious: "right" -> "left" via "right wing").
// Sorted.
const std::vector<std::string>& antonyms(std::string_view word);

// Synsets that the antonym pointers of those senses lead to ("lose" → the synset of "win" in
// "be the winner"), for morphology-independent antonym tests against synsets(). Sorted.
const std::vector<std::uint64_t>& antonym_synsets(std::string_view word);

// True for an inflected verb form: a WordNet irregular form ("won", "left") or a regular
// -s/-es/-ed/-ing form whose base is a verb lemma. Bare lemmas ("win") are not inflected forms.
bool is_inflected_verb(std::string_view word);
// True when `word` is a verb lemma in WordNet.
bool is_verb_lemma(std::string_view word);

}  // namespace probity::text::wordnet
