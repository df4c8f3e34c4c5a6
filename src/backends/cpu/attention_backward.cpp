// Flash attention backward on the CPU (FlashAttention-2 style): probabilities are recomputed tile by tile
// as P = exp(scale * q k^T - lse), never stored. With D_i = dO_i . O_i and dS = P * (dO V^T - D):
//   dV = P^T dO,  dK = scale * dS^T Q,  dQ = scale * dS K.
// Two passes keep every output owned by one task (no atomics, deterministic): tasks per key block
// accumulate dK and dV over the query blocks that see them; tasks per query block accumulate dQ.
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
struct Problem {
  std::int64_t bh, lq, lk, d, dp;
  T scale;
  Causal mask;
  const T *q, *k, *v, *grad, *lse, *delta;
};

template <typename T>
struct Scratch {
  explicit Scratch(std::int64_t dp)
      : q(kBlock * dp), kt(dp * kBlock), vt(dp * kBlock), g(kBlock * dp), s(kBlock * kBlock), dp_(kBlock * kBlock),
        t(kBlock * kBlock), acc(kBlock * dp), acc2(kBlock * dp), rows(kBlock * dp) {}
  std::vector<T> q, kt, vt, g, s, dp_, t, acc, acc2, rows;
};

// For query block [q0, q0 + mq) and key block [k0, k0 + nk) of head h, with w.q, w.g (dO), w.kt, w.vt
// loaded: w.s = P and w.dp_ = dS (zero outside the visible region).
template <typename T>
void probabilities_and_ds(const Problem<T>& p, Scratch<T>& w, std::int64_t h, std::int64_t q0, std::int64_t mq,
                          std::int64_t k0, std::int64_t nk) {
  gemm_abt(w.q.data(), w.kt.data(), p.dp, p.scale, w.s.data());
  gemm_abt(w.g.data(), w.vt.data(), p.dp, T(1), w.dp_.data());
  for (std::int64_t i = 0; i < kBlock; ++i) {
    T* __restrict srow = w.s.data() + i * kBlock;
    T* __restrict drow = w.dp_.data() + i * kBlock;
    const T l = i < mq ? p.lse[h * p.lq + q0 + i] : -std::numeric_limits<T>::infinity();
    const std::int64_t visible =
        l == -std::numeric_limits<T>::infinity()
            ? 0
            : std::clamp<std::int64_t>(p.mask.on ? q0 + i + p.mask.offset - k0 + 1 : nk, 0, nk);
    const T di = i < mq ? p.delta[h * p.lq + q0 + i] : T(0);
#pragma omp simd
    for (std::int64_t j = 0; j < kBlock; ++j) {
      const T prob = j < visible ? vmath::exp(srow[j] - l) : T(0);
      srow[j] = prob;
      drow[j] = prob * (drow[j] - di);
    }
  }
}

template <typename T>
void load_query_block(const Problem<T>& p, Scratch<T>& w, std::int64_t h, std::int64_t q0, std::int64_t mq) {
  load_rows(p.q + (h * p.lq + q0) * p.d, mq, p.d, p.dp, w.q.data());
  load_rows(p.grad + (h * p.lq + q0) * p.d, mq, p.d, p.dp, w.g.data());
}

template <typename T>
void load_key_block(const Problem<T>& p, Scratch<T>& w, std::int64_t h, std::int64_t k0, std::int64_t nk) {
  load_transposed(p.k + (h * p.lk + k0) * p.d, nk, p.d, p.dp, w.kt.data());
  load_transposed(p.v + (h * p.lk + k0) * p.d, nk, p.d, p.dp, w.vt.data());
}

template <typename T>
void store_rows(const T* src, std::int64_t count, std::int64_t d, std::int64_t dp, T factor, T* dst) {
  for (std::int64_t r = 0; r < count; ++r) {
    for (std::int64_t c = 0; c < d; ++c) dst[r * d + c] = src[r * dp + c] * factor;
  }
}

// dK and dV of one key block.
template <typename T>
void key_block_task(const Problem<T>& p, Scratch<T>& w, std::int64_t h, std::int64_t k0, T* dk, T* dv) {
  const std::int64_t nk = std::min(kBlock, p.lk - k0);
  load_key_block(p, w, h, k0, nk);
  std::fill(w.acc.begin(), w.acc.end(), T(0));   // dK
  std::fill(w.acc2.begin(), w.acc2.end(), T(0));  // dV
  const std::int64_t first = p.mask.first_query(k0) / kBlock * kBlock;
  for (std::int64_t q0 = first; q0 < p.lq; q0 += kBlock) {
    const std::int64_t mq = std::min(kBlock, p.lq - q0);
    load_query_block(p, w, h, q0, mq);
    probabilities_and_ds(p, w, h, q0, mq, k0, nk);
    transpose_block(w.s.data(), w.t.data());
    gemm_ab_acc(w.t.data(), w.g.data(), mq, p.dp, w.acc2.data());  // dV += P^T dO
    transpose_block(w.dp_.data(), w.t.data());
    gemm_ab_acc(w.t.data(), w.q.data(), mq, p.dp, w.acc.data());  // dK += dS^T Q (scaled at the end)
  }
  store_rows(w.acc.data(), nk, p.d, p.dp, p.scale, dk + (h * p.lk + k0) * p.d);
  store_rows(w.acc2.data(), nk, p.d, p.dp, T(1), dv + (h * p.lk + k0) * p.d);
}

// dQ of one query block.
template <typename T>
void query_block_task(const Problem<T>& p, Scratch<T>& w, std::int64_t h, std::int64_t q0, T* dq) {
  const std::int64_t mq = std::min(kBlock, p.lq - q0);
  load_query_block(p, w, h, q0, mq);
  std::fill(w.acc.begin(), w.acc.end(), T(0));
  const std::int64_t key_end = p.mask.key_end(q0, mq, p.lk);
  for (std::int64_t k0 = 0; k0 < key_end; k0 += kBlock) {
    const std::int64_t nk = std::min(kBlock, p.lk - k0);
    load_key_block(p, w, h, k0, nk);
    load_rows(p.k + (h * p.lk + k0) * p.d, nk, p.d, p.dp, w.rows.data());
    probabilities_and_ds(p, w, h, q0, mq, k0, nk);
    gemm_ab_acc(w.dp_.data(), w.rows.data(), nk, p.dp, w.acc.data());  // dQ += dS K
  }
  store_rows(w.acc.data(), mq, p.d, p.dp, p.scale, dq + (h * p.lq + q0) * p.d);
}

template <typename T>
void run(const Tensor& grad, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& out, const Tensor& lse,
         double scale, bool causal, const Tensor& dq, const Tensor& dk, const Tensor& dv) {
  const std::int64_t bh = q.dim(0), lq = q.dim(1), lk = k.dim(1), d = q.dim(2);
  // D_i = dO_i . O_i, once per query (O(seq) memory).
  std::vector<T> delta(static_cast<std::size_t>(bh * lq));
  const T* gs = grad.data<T>();
  const T* os = out.data<T>();
#pragma omp parallel for schedule(static) if (bh * lq * d > (1 << 15))
  for (std::int64_t r = 0; r < bh * lq; ++r) {
    T acc = 0;
#pragma omp simd reduction(+ : acc)
    for (std::int64_t c = 0; c < d; ++c) acc += gs[r * d + c] * os[r * d + c];
    delta[static_cast<std::size_t>(r)] = acc;
  }
  const Problem<T> p{bh, lq, lk, d, padded_dim<T>(d), static_cast<T>(scale), Causal{causal, lk - lq},
                     q.data<T>(), k.data<T>(), v.data<T>(), gs, lse.data<T>(), delta.data()};
  const std::int64_t k_blocks = (lk + kBlock - 1) / kBlock, q_blocks = (lq + kBlock - 1) / kBlock;
  T* dks = dk.data<T>();
  T* dvs = dv.data<T>();
  T* dqs = dq.data<T>();
#pragma omp parallel
  {
    Scratch<T> w(p.dp);
#pragma omp for schedule(dynamic) nowait
    for (std::int64_t task = 0; task < bh * k_blocks; ++task) {
      key_block_task(p, w, task / k_blocks, (task % k_blocks) * kBlock, dks, dvs);
    }
#pragma omp for schedule(dynamic)
    for (std::int64_t task = 0; task < bh * q_blocks; ++task) {
      query_block_task(p, w, task / q_blocks, (task % q_blocks) * kBlock, dqs);
    }
  }
}

}  // namespace

void attention_backward_kernel(const Tensor& grad, const Tensor& q, const Tensor& k, const Tensor& v,
                               const Tensor& out, const Tensor& lse, double scale, bool causal, const Tensor& dq,
                               const Tensor& dk, const Tensor& dv) {
  simd::ensure_target_selected();  // may throw: before the parallel regions
  dispatch_float(dq.dtype(), "attention_backward",
                 [&](auto t) { run<decltype(t)>(grad, q, k, v, out, lse, scale, causal, dq, dk, dv); });
}

ACC_REGISTER_KERNELS {
  register_kernel(op::attention_backward, DeviceKind::cpu, dtypes::floating, &attention_backward_kernel);
}

}  // namespace accelera::cpu
