#pragma once
// The largest counts a request may ask for (docs/cli.md, "Numbers"). Far above what any real run
// uses, and low enough that a mistyped number is a usage error instead of a run that allocates
// more memory than there is or never ends. The command line and the Python module both check
// them (the CLI when it parses a flag, the library when it receives a request).
#include <cstdint>

namespace probity::limits {

// Bootstrap resamples, permutations, paired-test samples and trials, chance orderings.
inline constexpr std::uint64_t kResamples = 1'000'000;
// Metric queries per attacked item (attack --budget, audit --attack-budget).
inline constexpr std::uint64_t kAttackBudget = 1'000'000;
// Attack edits per item / attacker rounds, beam width, proposals per request, program length.
inline constexpr std::uint64_t kAttackSteps = 1'000;
inline constexpr std::uint64_t kAttackBeam = 1'000;
inline constexpr std::uint64_t kAttackProposals = 100;
inline constexpr std::uint64_t kProgramLength = 10;
// Words of a universal suffix (attack --phrase-words, --suffix-words).
inline constexpr std::uint64_t kSuffixWords = 256;
// Universal programs tested, examples shown.
inline constexpr std::uint64_t kPrograms = 10'000;
// Items, candidates or tasks a count selects or requires (--sample, --min-applied, --sources).
inline constexpr std::uint64_t kItems = 1'000'000'000;
// Worker threads and LLM requests in flight.
inline constexpr std::uint64_t kThreads = 1'024;
inline constexpr std::uint64_t kLlmConcurrency = 512;

}  // namespace probity::limits
