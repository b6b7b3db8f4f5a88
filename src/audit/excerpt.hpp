#pragma once
// Bounded excerpts of an edited text for reports: a report shows where an edit happened, not the
// whole of a text that may be megabytes long (a 50 MB candidate used to be copied into every
// strategy's example, and from there into each report format).
#include <cstddef>
#include <string>
#include <string_view>

namespace probity::audit {

struct ExcerptPair {
  std::string original, edited;
};

// The two texts around where they differ: their common beginning and end are cut down to
// `context` bytes each (at a word boundary where one is near), and a differing middle longer
// than `limit` bytes keeps its first and last limit/2 bytes. Each cut is marked with " … ".
// Cuts fall on UTF-8 character boundaries. Texts within the bounds are returned as they are.
ExcerptPair excerpt_edit(std::string_view original, std::string_view edited,
                         std::size_t context = 300, std::size_t limit = 2000);

}  // namespace probity::audit
