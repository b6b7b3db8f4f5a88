#pragma once
// Internals of the ROUGE family shared by src/metrics/rouge.cpp and its tests (the tokenizer's
// are in text/rouge_tokenize.hpp). Not part of the public interface.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "text/rouge_tokenize.hpp"

namespace probity::metrics::detail {

// Length of the longest common subsequence of two id sequences (bit-parallel, exact).
std::size_t lcs_length(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b);

}  // namespace probity::metrics::detail
