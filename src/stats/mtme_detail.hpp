#pragma once
// Pieces shared by the mt-metrics-eval statistics (mtme_*.cpp): MTME's grouping of a packed
// systems x items vector, its averaging over groups, scipy's zscore and the permutation coins.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "stats/mtme.hpp"
#include "util/numpy_random.hpp"

namespace probity::stats::detail {

// stats._Reshape: the flat indices of each row of the reshaped matrix, in MTME's order ('none':
// one row of everything; 'sys': the systems' rows; 'item': the columns, systems in order).
std::vector<std::vector<std::size_t>> mtme_groups(std::size_t size, std::size_t systems,
                                                  MtmeAverageBy average_by);

// np.average of the group values after MTME drops NaNs (or, replace_nans_with_zeros, zeroes
// them); 0 when nothing is left.
double mtme_average(std::vector<double> values, bool replace_nans_with_zeros);

// The end of MTME's resampling loops: `i` is the loop counter where the loop stopped (k + 1 after
// a full run), Python's loop variable is k then (1 when k is 0); p = large / that count.
inline void finish_sig_diff(MtmeSigDiffResult& r, std::size_t i, std::size_t large, std::size_t k) {
  if (i > k) i = k == 0 ? 1 : k;
  r.draws = i;
  r.p_value = static_cast<double>(large) / static_cast<double>(i);
}

// scipy.stats.zscore (ddof 0); a constant input gives NaN throughout, as scipy 1.10 does.
std::vector<double> scipy_zscore(std::span<const double> v);

// The permutation tests' coins: np.random.binomial(1, 0.5) on numpy's legacy MT19937 after
// np.random.seed(seed) (inversion with q^n = 0.5: one genrand_res53 double per coin, heads when
// it exceeds 0.5), or probity's own default_rng(seed) bits.
class MtmeCoins {
 public:
  MtmeCoins(std::uint32_t seed, bool mtme_stream) : mt_(seed), pcg_(seed), mtme_(mtme_stream) {}
  bool mtme_stream() const { return mtme_; }
  bool next() { return mtme_ ? next_mtme() : next_fast(); }
  bool next_mtme() {
    // genrand_res53 = (a * 2^26 + b) / 2^53 > 1/2, compared as the integer it is.
    const std::uint64_t a = mt_.next32() >> 5, b = mt_.next32() >> 6;
    return ((a << 26) | b) > (std::uint64_t{1} << 52);
  }
  // 64 of probity's coins at once.
  std::uint64_t next_fast64() { return pcg_.next64(); }
  bool next_fast() {
    if (left_ == 0) {
      bits_ = pcg_.next64();
      left_ = 64;
    }
    const bool heads = bits_ & 1u;
    bits_ >>= 1;
    --left_;
    return heads;
  }

 private:
  util::Mt19937 mt_;
  util::Pcg64 pcg_;
  bool mtme_;
  std::uint64_t bits_ = 0;
  int left_ = 0;
};

}  // namespace probity::stats::detail
