// Soft pairwise accuracy: MTME's pce.compute_pairwise_p_values and compute_one_minus_pce.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "stats/kernels.hpp"
#include "stats/mtme.hpp"
#include "util/numpy_random.hpp"

namespace probity::stats {
namespace {

// NumPy's float32 uniform is (next_uint32 >> 8) / 2^24; np.rint rounds half to even, so a sign
// is +1 only above exactly one half: 24-bit value > 2^23.
constexpr std::uint32_t kHalf = std::uint32_t{1} << 23;

// numpy's FLOAT_pairwise_sum (loops_utils.h.src) with float accumulators, as np.sum(float32,
// axis=1) runs it on each contiguous row.
float pairwise_sum_f32(const float* a, std::size_t n) {
  if (n < 8) {
    float res = 0.f;
    for (std::size_t i = 0; i < n; ++i) res += a[i];
    return res;
  }
  if (n <= 128) {
    float r[8];
    for (std::size_t j = 0; j < 8; ++j) r[j] = a[j];
    std::size_t i = 8;
    for (; i < n - (n % 8); i += 8)
      for (std::size_t j = 0; j < 8; ++j) r[j] += a[i + j];
    float res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  std::size_t n2 = n / 2;
  n2 -= n2 % 8;
  return pairwise_sum_f32(a, n2) + pairwise_sum_f32(a + n2, n - n2);
}

// Systems summed together in the float32 path: 16 lanes, four 4-float vectors (GCC/Clang vector
// extensions: SSE2 on x86-64 without per-target flags).
constexpr std::size_t kLanes = 16;
typedef float Float4 __attribute__((vector_size(16)));

Float4 load4(const float* p) {
  Float4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// The +-1 floats of the 8 bits of each byte (branchless expansion of a permutation's signs).
struct SignTable {
  float v[256][8];
  SignTable() {
    for (unsigned b = 0; b < 256; ++b)
      for (unsigned t = 0; t < 8; ++t) v[b][t] = (b >> t) & 1u ? 1.f : -1.f;
  }
};

// The +-1 floats of permutation p's signs; out holds a multiple of 8.
void signs_of(const PceDraws& draws, std::size_t p, const SignTable& table,
              std::vector<float>& out) {
  const auto row = draws.row(p);
  for (std::size_t g = 0; g < row.size(); ++g)
    std::memcpy(out.data() + 8 * g, table.v[row[g]], sizeof table.v[0]);
}

// The upper triangle of p(i > j): the share of permutations whose null delta (the per-system
// sums of the +1 segments, or the signed sums; the difference is the same) reaches the observed
// one, in the arithmetic T of the sums.
template <class T>
std::vector<double> upper_triangle_p_values(const std::vector<T>& sys, const std::vector<T>& sums,
                                            std::size_t systems, std::size_t perms) {
  std::vector<double> p_values;
  p_values.reserve(systems * (systems - 1) / 2);
  for (std::size_t i = 0; i < systems; ++i) {
    for (std::size_t j = i + 1; j < systems; ++j) {
      const T observed = sys[i] - sys[j];
      const T* a = sums.data() + i * perms;
      const T* b = sums.data() + j * perms;
      std::size_t count = 0;
      for (std::size_t p = 0; p < perms; ++p) count += a[p] - b[p] >= observed;
      p_values.push_back(static_cast<double>(count) / static_cast<double>(perms));
    }
  }
  return p_values;
}

std::vector<double> p_values_float32(const PceDraws& draws, std::span<const double> scores,
                                     std::size_t systems) {
  const std::size_t n = draws.segments(), perms = draws.permutations();
  std::vector<float> sys(systems), row(n);
  for (std::size_t s = 0; s < systems; ++s) {
    for (std::size_t l = 0; l < n; ++l) row[l] = static_cast<float>(scores[s * n + l]);
    sys[s] = 0.f + pairwise_sum_f32(row.data(), n);
  }
  // partial = matmul(signs, scores.T): reference BLAS adds sign * score in segment order, from 0,
  // in float32. Up to 16 systems at a time, transposed so a segment's scores are contiguous.
  std::vector<float> partial(systems * perms), xt(n * kLanes), sign_a(draws.row(0).size() * 8),
      sign_b(sign_a.size());
  const SignTable table;
  for (std::size_t s0 = 0; s0 < systems; s0 += kLanes) {
    const std::size_t lanes = std::min(kLanes, systems - s0);
    std::fill(xt.begin(), xt.end(), 0.f);
    for (std::size_t k = 0; k < lanes; ++k)
      for (std::size_t l = 0; l < n; ++l)
        xt[l * kLanes + k] = static_cast<float>(scores[(s0 + k) * n + l]);
    // Two permutations at a time: eight independent accumulators hide the add latency. Lanes
    // add in segment order, as the reference loop does; sign * score is exact.
    for (std::size_t p = 0; p < perms; p += 2) {
      const bool pair = p + 1 < perms;
      signs_of(draws, p, table, sign_a);
      if (pair) signs_of(draws, p + 1, table, sign_b);
      Float4 a0{}, a1{}, a2{}, a3{}, b0{}, b1{}, b2{}, b3{};
      for (std::size_t l = 0; l < n; ++l) {
        const float* x = xt.data() + l * kLanes;
        const Float4 x0 = load4(x), x1 = load4(x + 4), x2 = load4(x + 8), x3 = load4(x + 12);
        const float sa = sign_a[l], sb = sign_b[l];
        a0 += sa * x0;
        a1 += sa * x1;
        a2 += sa * x2;
        a3 += sa * x3;
        b0 += sb * x0;
        b1 += sb * x1;
        b2 += sb * x2;
        b3 += sb * x3;
      }
      // Lanes read by subscript: taking the vectors' addresses would keep them in memory.
      float acc_a[kLanes], acc_b[kLanes];
      for (int k = 0; k < 4; ++k) {
        acc_a[k] = a0[k];
        acc_a[4 + k] = a1[k];
        acc_a[8 + k] = a2[k];
        acc_a[12 + k] = a3[k];
        acc_b[k] = b0[k];
        acc_b[4 + k] = b1[k];
        acc_b[8 + k] = b2[k];
        acc_b[12 + k] = b3[k];
      }
      for (std::size_t k = 0; k < lanes; ++k) {
        partial[(s0 + k) * perms + p] = acc_a[k];
        if (pair) partial[(s0 + k) * perms + p + 1] = acc_b[k];
      }
    }
  }
  return upper_triangle_p_values(sys, partial, systems, perms);
}

std::vector<double> p_values_exact(const PceDraws& draws, std::span<const double> scores,
                                   std::size_t systems);

}  // namespace

PceDraws::PceDraws(std::size_t segments, std::size_t permutations, std::uint64_t seed)
    : segments_(segments), permutations_(permutations), row_bytes_((segments + 7) / 8) {
  bits_.assign(permutations_ * row_bytes_, 0);
  util::Pcg64 rng(seed);
  for (std::size_t p = 0; p < permutations_; ++p) {
    std::uint8_t* row = bits_.data() + p * row_bytes_;
    for (std::size_t l = 0; l < segments_; ++l)
      if ((rng.next32() >> 8) > kHalf)
        row[l / 8] = static_cast<std::uint8_t>(row[l / 8] | (1u << (l % 8)));
  }
}

std::vector<double> pce_pairwise_p_values(const PceDraws& draws, std::span<const double> scores,
                                          std::size_t systems, PceArithmetic arithmetic) {
  if (systems == 0 || scores.size() != systems * draws.segments())
    throw std::invalid_argument("pce_pairwise_p_values: scores are not systems x segments");
  if (draws.permutations() == 0)
    throw std::invalid_argument("pce_pairwise_p_values: no permutations");
  return arithmetic == PceArithmetic::kExact ? p_values_exact(draws, scores, systems)
                                             : p_values_float32(draws, scores, systems);
}

namespace {

std::vector<double> p_values_exact(const PceDraws& draws, std::span<const double> scores,
                                   std::size_t systems) {
  const std::size_t n = draws.segments(), perms = draws.permutations();
  const std::size_t groups = (n + 7) / 8;
  // null delta(i, j) = sum (2m - 1)(x_i - x_j) >= sum (x_i - x_j) reduces to
  // plus_i - plus_j >= sys_i - sys_j with plus = the sum over the segments drawn +1: one sum per
  // system and permutation, read from per-byte tables of subset sums.
  std::vector<double> sys(systems), plus(systems * perms), table(groups * 256);
  std::vector<double> x(n);
  for (std::size_t s = 0; s < systems; ++s) {
    double total = 0.0;
    for (std::size_t l = 0; l < n; ++l) {
      x[l] = static_cast<double>(static_cast<float>(scores[s * n + l]));
      total += x[l];
    }
    sys[s] = total;
    for (std::size_t g = 0; g < groups; ++g) {
      double* t = table.data() + g * 256;
      t[0] = 0.0;
      for (unsigned b = 1; b < 256; ++b) {
        const unsigned low = static_cast<unsigned>(std::countr_zero(b));
        const std::size_t l = g * 8 + low;
        t[b] = t[b & (b - 1)] + (l < n ? x[l] : 0.0);
      }
    }
    double* out = plus.data() + s * perms;
    for (std::size_t p = 0; p < perms; ++p) {
      const std::uint8_t* row = draws.row(p).data();
      // Four independent chains hide the load latency.
      double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
      std::size_t g = 0;
      for (; g + 4 <= groups; g += 4) {
        a0 += table[g * 256 + row[g]];
        a1 += table[(g + 1) * 256 + row[g + 1]];
        a2 += table[(g + 2) * 256 + row[g + 2]];
        a3 += table[(g + 3) * 256 + row[g + 3]];
      }
      for (; g < groups; ++g) a0 += table[g * 256 + row[g]];
      out[p] = (a0 + a1) + (a2 + a3);
    }
  }
  return upper_triangle_p_values(sys, plus, systems, perms);
}

}  // namespace

double soft_pairwise_accuracy(std::span<const double> human_p, std::span<const double> metric_p) {
  if (human_p.size() != metric_p.size() || human_p.empty())
    throw std::invalid_argument("soft_pairwise_accuracy: p-value triangles differ or are empty");
  std::vector<double> diff(human_p.size());
  for (std::size_t i = 0; i < diff.size(); ++i) diff[i] = std::fabs(human_p[i] - metric_p[i]);
  return 1.0 - detail::numpy_mean(diff);
}

double mtme_soft_pairwise_accuracy(const PceDraws& draws, std::span<const double> gold,
                                   std::span<const double> metric, std::size_t systems,
                                   PceArithmetic arithmetic) {
  if (gold.size() != metric.size())
    throw std::invalid_argument("mtme_soft_pairwise_accuracy: gold and metric differ in size");
  std::vector<double> g, m;
  for (std::size_t i = 0; i < gold.size(); ++i) {
    if (std::isnan(gold[i])) continue;
    g.push_back(gold[i]);
    m.push_back(metric[i]);
  }
  if (systems == 0 || g.size() % systems != 0)
    throw std::invalid_argument("mtme_soft_pairwise_accuracy: scored items do not fill rows");
  return soft_pairwise_accuracy(pce_pairwise_p_values(draws, g, systems, arithmetic),
                                pce_pairwise_p_values(draws, m, systems, arithmetic));
}

}  // namespace probity::stats
