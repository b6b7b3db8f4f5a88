#pragma once
// Thread-safe, cached WordNet 3.0 lookups for the prediction mechanisms: synset membership,
// synonyms, antonyms and verb forms of single words.
//
// The database files are read directly (index files into memory, data files memory-mapped and
// parsed on demand) instead of through the C library, whose global state and static buffers
// would race with other users of the library in the same process.
//
// Words are lower-case; multi-word lemmas are not returned, except by the lookups by part of
// speech at the end, which serve the perturbations' lexicon (perturb/lexicon.cpp). When the
// database is missing every lookup is empty and available() is false.
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

// ---- Lookups by part of speech ----------------------------------------------------------------
//
// These look words up as given (lower-case, no case folding) and know multi-word lemmas, written
// with '_' ("comic_strip"), since an exception list may name one as a base form.

// Numbered as in WordNet's files; satellite adjectives are kAdj.
enum class Pos { kNoun = 1, kVerb = 2, kAdj = 3, kAdv = 4 };

// Morphy's base form of `word` in `pos`: the first lemma of `pos` among the exception list's
// bases ("went" -> "go", "comics" -> "comic_strip"), the word itself and the detachment rules'
// results ("boxes" -> "box"), in that order; empty when there is none. A detachment must leave a
// stem of two letters, so that "is" and "us" are not plurals of the nouns "i" (iodine) and "u"
// (uranium); the functions above accept one-letter stems, as they always have.
std::string base_form(std::string_view word, Pos pos);

// Synset offsets of the senses of the lemma `lemma` in `pos`, most frequent first (the order of
// index.<pos>). Empty when `lemma` is not a lemma of `pos`.
const std::vector<std::uint32_t>& senses(std::string_view lemma, Pos pos);

// How often the SemCor corpus tagged sense `sense` (1-based, in senses()' order) of `lemma` in
// `pos` (cntlist.rev, read on first use); 0 when never.
int tag_count(std::string_view lemma, Pos pos, int sense);

// The words of the synset at `offset` of `pos` as the data file writes them: case kept, '_'
// inside collocations ("Canis_familiaris"), adjective markers ("(a)", "(p)", "(ip)") removed.
std::vector<std::string> synset_words(Pos pos, std::uint32_t offset);

// Direct antonyms of `lemma` in the synset at `offset` of `pos`: the words its "!" pointers lead
// to, in the data file's order, written as by synset_words().
std::vector<std::string> sense_antonyms(std::string_view lemma, Pos pos, std::uint32_t offset);

// True when <pos>.exc gives `lemma` as the base of an irregular form ("go" for "went", "stop" for
// "stopped").
bool has_irregular_forms(std::string_view lemma, Pos pos);

}  // namespace probity::text::wordnet
