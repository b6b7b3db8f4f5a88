#pragma once
// A small, deterministic language identifier for the perturbations (which lexicon applies):
// the script decides for non-Latin text (Han, kana, Hangul, Cyrillic, ...); Latin-script text is
// matched against profiles of the most frequent function words of English, German, French,
// Spanish, Italian, Dutch and Portuguese. No model, no download, no state.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace probity::text {

struct LanguageGuess {
  // ISO 639-1 code ("en", "de", "zh", "ja", ...); empty when the text does not say (too few
  // function words, or no letters).
  std::string code;
  // How much evidence: function-word hits of the winner (Latin script) or letters of the script.
  std::size_t evidence = 0;
  // Hits of the best Latin-script language other than the winner (0 for other scripts).
  std::size_t runner_up = 0;
  // Latin letters are the majority (or there are no letters at all).
  bool latin = true;
};

// The language of `texts` taken together, reading at most `max_bytes` of each text (at a
// character boundary) and stopping after `max_total` bytes in all.
LanguageGuess detect_language(std::span<const std::string_view> texts, std::size_t max_bytes = 2000,
                              std::size_t max_total = 6000);
LanguageGuess detect_language(std::string_view text);

// "de-DE", "DE", "de_AT" -> "de"; "zh-Hant" -> "zh"; "" -> "".
std::string primary_language(std::string_view tag);

// English name of a code ("German"), or the code itself when unknown.
std::string_view language_name(std::string_view code);

// The ISO 639-1 codes of the languages probity knows (detects or names), sorted.
std::vector<std::string> known_languages();

// Why `tag` names no language probity knows ("klingon"), with a suggestion for a near miss
// ("German", "eng"); nullopt when its primary subtag is known ("de-AT").
std::optional<std::string> unknown_language(std::string_view tag);

}  // namespace probity::text
