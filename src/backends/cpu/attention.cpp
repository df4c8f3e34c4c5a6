// Flash attention forward on the CPU: one task per (batch x head, block of kBlock queries), spread over
// OpenMP threads; each streams over key blocks with an online softmax (running max m, running sum l,
// output rescaled by exp(m_old - m_new)), so the q_len x kv_len score matrix never exists. Tiles: Note
// [CPU attention tiles]. Masking: Note [Attention] in ops/nn/attention.cpp.
#include <cmath>
#include <limits>
#include <vector>

#include "backends/cpu/attention_tiles.hpp"
#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/vector_math.hpp"
#include "ops/attention.hpp"

namespace accelera::cpu {

namespace {

using namespace attention_tiles;

template <typename T>
struct ForwardScratch {
  explicit ForwardScratch(std::int64_t dp)
      : q(kBlock * dp), kt(dp * kBlock), v(kBlock * dp), s(kBlock * kBlock), o(kBlock * dp), m(kBlock), l(kBlock) {}
  std::vector<T> q, kt, v, s, o, m, l;
};

template <typename T>
void run(const Tensor& q, const Tensor& k, const Tensor& v, double scale, bool causal, const Tensor& out,
         const Tensor& lse) {
  const std::int64_t bh = q.dim(0), lq = q.dim(1), lk = k.dim(1), d = q.dim(2);
  const std::int64_t dp = padded_dim<T>(d);
  const std::int64_t q_blocks = (lq + kBlock - 1) / kBlock;
  const Causal mask{causal, lk - lq};
  const T* qs = q.data<T>();
  const T* ks = k.data<T>();
  const T* vs = v.data<T>();
  T* os = out.data<T>();
  T* lses = lse.data<T>();
  constexpr T neg_inf = -std::numeric_limits<T>::infinity();
#pragma omp parallel
  {
    ForwardScratch<T> w(dp);
#pragma omp for schedule(dynamic)
    for (std::int64_t task = 0; task < bh * q_blocks; ++task) {
      const std::int64_t h = task / q_blocks, q0 = (task % q_blocks) * kBlock;
      const std::int64_t mq = std::min(kBlock, lq - q0);
      load_rows(qs + (h * lq + q0) * d, mq, d, dp, w.q.data());
      std::fill(w.o.begin(), w.o.end(), T(0));
      std::fill(w.m.begin(), w.m.end(), neg_inf);
      std::fill(w.l.begin(), w.l.end(), T(0));
      const std::int64_t key_end = mask.key_end(q0, mq, lk);
      for (std::int64_t k0 = 0; k0 < key_end; k0 += kBlock) {
        const std::int64_t nk = std::min(kBlock, key_end - k0);
        load_transposed(ks + (h * lk + k0) * d, nk, d, dp, w.kt.data());
        load_rows(vs + (h * lk + k0) * d, nk, d, dp, w.v.data());
        gemm_abt(w.q.data(), w.kt.data(), dp, static_cast<T>(scale), w.s.data());
        for (std::int64_t i = 0; i < mq; ++i) {
          T* __restrict srow = w.s.data() + i * kBlock;
          // Keys past nk (padding) and past the causal limit are invisible.
          const std::int64_t visible = std::clamp<std::int64_t>(causal ? q0 + i + mask.offset - k0 + 1 : nk, 0, nk);
          for (std::int64_t j = visible; j < kBlock; ++j) srow[j] = neg_inf;
          const T row_max = simd::max(srow, kBlock);  // nan when any score is nan
          // A nan score makes the row nan (output and lse), as the float64 definition does.
          const T m_new = row_max != row_max || w.m[i] != w.m[i] ? std::numeric_limits<T>::quiet_NaN()
                                                                 : std::max(w.m[i], row_max);
          if (m_new == neg_inf) continue;  // nothing visible yet: p is all zero
          const T alpha = vmath::exp(w.m[i] - m_new);
          const T sum = simd::exp_shifted_sum(srow, kBlock, m_new);  // p = exp(s - m_new), in place
          w.l[i] = w.l[i] * alpha + sum;
          w.m[i] = m_new;
          T* __restrict orow = w.o.data() + i * dp;
#pragma omp simd
          for (std::int64_t c = 0; c < dp; ++c) orow[c] *= alpha;
        }
        // Rows without a visible key keep s = -inf; zero them so that P @ V adds nothing.
        for (std::int64_t i = 0; i < kBlock; ++i) {
          if (i >= mq || w.m[i] == neg_inf) std::fill_n(w.s.data() + i * kBlock, kBlock, T(0));
        }
        gemm_ab_acc(w.s.data(), w.v.data(), nk, dp, w.o.data());
      }
      for (std::int64_t i = 0; i < mq; ++i) {
        T* dst = os + (h * lq + q0 + i) * d;
        const T* src = w.o.data() + i * dp;
        const bool seen = w.l[i] > T(0) || w.l[i] != w.l[i];  // nan stays nan
        const T inv = seen ? T(1) / w.l[i] : T(0);
        for (std::int64_t c = 0; c < d; ++c) dst[c] = src[c] * inv;
        lses[h * lq + q0 + i] = seen ? w.m[i] + std::log(w.l[i]) : neg_inf;
      }
    }
  }
}

}  // namespace

void attention_kernel(const Tensor& q, const Tensor& k, const Tensor& v, double scale, bool causal, const Tensor& out,
                      const Tensor& lse) {
  simd::ensure_target_selected();  // may throw: before the parallel region
  dispatch_float(out.dtype(), "attention", [&](auto t) { run<decltype(t)>(q, k, v, scale, causal, out, lse); });
}

ACC_REGISTER_KERNELS { register_kernel(op::attention, DeviceKind::cpu, dtypes::floating, &attention_kernel); }

}  // namespace accelera::cpu
