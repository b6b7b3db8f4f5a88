#pragma once
// Parsing of WordNet 3.0's database files for text/wordnet.cpp, the one reader (the prediction
// mechanisms, the statement decomposition and the perturbations' lexicon all go through it).
#include <array>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace probity::text::wordnet_files {

// Parts of speech are numbered as in WordNet (NOUN = 1 ... ADV = 4); 0 is unused. Their
// names in the file names: index.<name>, data.<name>, <name>.exc.
inline constexpr std::array<std::string_view, 5> kPosNames = {"", "noun", "verb", "adj", "adv"};

// The space-separated fields of a database line.
std::vector<std::string_view> fields(std::string_view line);

// A non-negative number in base 10 or 16; -1 when a character is not a digit of the base.
long parse_number(std::string_view s, int base);

// index.<pos>: "lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt offsets...".
// Calls entry(lemma, offsets) for every lemma line, offsets in sense order (most frequent sense
// first); the licence header and malformed lines are skipped. A missing file has no lines.
void read_index(const std::string& path,
                const std::function<void(std::string_view, std::vector<long>&&)>& entry);

// <pos>.exc: "form base...". Calls entry(form, bases) for every line with at least one base.
void read_exceptions(
    const std::string& path,
    const std::function<void(std::string_view, std::span<const std::string_view>)>& entry);

// Morphy's detachment rules for a part of speech: (suffix, replacement), in WordNet's order.
const std::vector<std::pair<std::string_view, std::string_view>>& detachment_rules(int pos);

}  // namespace probity::text::wordnet_files
