#pragma once
// Forwarding header: the generators now live in util/random.hpp and the parallel loops in
// util/parallel.hpp. It stays only because code in progress elsewhere (src/llm/protocol.cpp) still
// includes it; delete it once nothing does.
#include "util/parallel.hpp"
#include "util/random.hpp"

namespace probity::stats::detail {
using util::mix64;
using util::parallel_blocks;
using util::resolve_threads;
using util::Rng;
}  // namespace probity::stats::detail
