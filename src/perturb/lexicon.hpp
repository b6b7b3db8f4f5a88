#pragma once
// Word lists for the rule-based perturbations (polarity and antonyms, hedges, intensifiers,
// framing phrases, the elongation filler) and the WordNet questions they ask (text/wordnet.hpp's
// reader answers them; thread-safe). Those throw std::runtime_error when the WordNet database is
// missing, as the perturbations would silently differ without it.
//
// Every word argument is lower-case ASCII. The word-list predicates take string_views, so that
// callers holding a slice of a text need no copy. Lists return lower-case natural text; callers
// render it in the candidate's style.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace probity::perturb::lex {

// ---- closed word classes ---------------------------------------------------------------------

bool is_function_word(std::string_view word);  // articles, pronouns, auxiliaries, ...
bool is_determiner(std::string_view word);     // a, the, this, his, their, ...
bool is_preposition(std::string_view word);
bool is_copula(std::string_view word);  // is, are, was, were, be, been, seems, ...
bool is_modal(std::string_view word);   // would, will, can, should, ...
bool is_subject_pronoun(std::string_view word);
bool is_abbreviation(std::string_view word);  // "dr.", "u.s." (with the period)
bool starts_with_vowel_sound(const std::string& word);
// An ordinary English word rather than a name: WordNet knows it and SemCor saw it in use.
bool is_common_word(const std::string& word);

// ---- opinion flip ----------------------------------------------------------------------------

// The opposite of an evaluative word ("excellent" -> "poor", "accept" -> "reject",
// "strengths" -> "weaknesses"): the curated list first, then WordNet's direct antonym for
// evaluative adjectives outside it. Empty when there is none.
std::string flip_antonym(const std::string& word);
// Evaluative words without an antonym ("groundbreaking"): flipped by negating the copula.
bool is_negatable_evaluative(std::string_view word);
// Verbs flipped by negation ("recommend" -> "do not recommend"), any inflection.
bool is_recommend_verb(std::string_view word);
// Nouns/verbs of the final verdict (acceptance, reject, ...), whose flip makes a negation of the
// recommending verb in the same clause redundant.
bool is_verdict_word(std::string_view word);
// Words that mean "no": "not", "n't", "never".
bool is_negator(const std::string& word);
// "isn't" -> "is", "doesn't" -> "does", "cannot" -> "can"; empty when not a contraction.
std::string drop_negation(const std::string& word);
// "recommend" -> "recommends", "have" -> "has", "go" -> "goes".
std::string third_person_singular(const std::string& base);
// Collocations where an evaluative word is part of a name ("great britain", "good friday").
bool is_fixed_collocation(const std::string& word, const std::string& next);

// ---- sentiment and certainty shifts ----------------------------------------------------------

enum class Tone { kPositive, kNegative, kHedged, kStrong };

const std::vector<std::string_view>& openers(Tone tone);     // "impressively," "arguably,"
const std::vector<std::string_view>& adjectives(Tone tone);  // before a noun
const std::vector<std::string_view>& adverbs(Tone tone);     // before an adjective
const std::vector<std::string_view>& framings(Tone tone);    // whole sentences (P/N)
// Hedge rewrites of assertive verbs: "is" -> "may be", "shows" -> "seems to show".
std::string hedge_verb(const std::string& word);
// Softened quantifiers/adverbs: "clearly" -> "possibly", "always" -> "often".
std::string soften(const std::string& word);
// Stronger scalar word: "good" -> "excellent", "big" -> "enormous", "very" -> "extremely".
std::string intensify(const std::string& word);
// Gradable adjectives that read well as "the most X".
bool is_gradable(std::string_view word);

// ---- rephrase --------------------------------------------------------------------------------

enum class Pos { kNoun, kVerb, kAdj, kAdv };

struct WordClasses {
  bool noun = false, verb = false, adj = false, adv = false;
  int count() const { return int(noun) + int(verb) + int(adj) + int(adv); }
};
WordClasses word_classes(const std::string& word);
struct Synonym {
  std::string word;  // empty when there is none
  Pos pos = Pos::kNoun;
};
// A meaning-preserving substitute from the curated list, with the part of speech it holds for.
Synonym curated_synonym(const std::string& word);
// A WordNet synonym of the word's most frequent sense in `pos`, re-inflected like `word`; empty
// when no safe synonym exists.
std::string wordnet_synonym(const std::string& word, Pos pos);
// Words never replaced by a WordNet synonym (too polysemous or idiomatic).
bool is_rephrase_blocked(std::string_view word);
// Subordinators whose clause can move to the front ("because", "although", "when", ...).
bool is_subordinator(std::string_view word);

// ---- elongation ------------------------------------------------------------------------------

// The fixed, content-free paragraph appended by the elongation manipulation.
std::string_view filler_paragraph();

// ---- degradations ----------------------------------------------------------------------------

// Boundary words where a sentence can be cut and recombined (prepositions, conjunctions).
bool is_split_word(std::string_view word);

// ---- German (lexicon_de.cpp) -----------------------------------------------------------------
//
// The lexicon of the manipulations that have a German realisation (M, P, N, H, S). Words are
// lower-case UTF-8. German keeps the finite verb in second position, so a sentence adverb goes
// right after it ("Der Bericht ist vermutlich vollständig") rather than in front of the sentence.

namespace de {

// The fixed, content-free paragraph appended by the elongation manipulation.
std::string_view filler_paragraph();
// Sentence adverbs of a tone, placed after the finite verb ("leider", "vermutlich").
const std::vector<std::string_view>& adverbs(Tone tone);
// Whole closing sentences (P/N).
const std::vector<std::string_view>& framings(Tone tone);
// Frequent finite verb forms (auxiliaries, modals, copulas, common full verbs) that stand in
// second position of a main clause.
bool is_finite_verb(std::string_view word);
// Conjunctions and pronouns that open a verb-final clause ("dass", "weil", "wenn", ...).
bool is_subordinator(std::string_view word);
// Softened word (H): "sicher" -> "wahrscheinlich", "immer" -> "oft", "alle" -> "die meisten".
std::string soften(std::string_view word);
// Stronger word (S), inflection kept: "gute" -> "hervorragende", "sehr" -> "äußerst".
std::string intensify(std::string_view word);
// Opinion flip (O): the evaluative antonym of a lower-cased word, inflection kept ("gute" ->
// "schlechte", "Vorteile" -> "Nachteile" as "vorteile" -> "nachteile"); "" when it has none.
std::string flip_antonym(std::string_view word);
// A negator whose removal reverses a clause: "nicht" -> "" (drop the word), "keine" -> "eine";
// nullopt for any other word.
std::optional<std::string> drop_negation(std::string_view word);
// Words that open a new clause inside a sentence ("und", "aber", "sondern", "doch", "oder").
bool is_clause_coordinator(std::string_view word);

}  // namespace de

}  // namespace probity::perturb::lex
