#pragma once
// Tile arithmetic shared by the CPU attention kernels (forward and backward).
// Note [CPU attention tiles]: tiles are kBlock x kBlock score blocks; operands are copied into per-thread
// scratch padded with zeros to kBlock rows and to a head dimension rounded up to one vector (Lanes<T>),
// so every inner loop has a fixed trip count that the compiler turns into register-blocked vector code:
// kRows rows of accumulators, one vector of columns, one load feeding kRows FMAs. Memory per thread is
// O(kBlock x head_dim) whatever the sequence lengths.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace accelera::cpu::attention_tiles {

inline constexpr std::int64_t kBlock = 64;
inline constexpr std::int64_t kRows = 8;
template <typename T>
inline constexpr std::int64_t Lanes = 64 / sizeof(T);  // one 512-bit vector (two 256-bit ones on AVX2)

template <typename T>
std::int64_t padded_dim(std::int64_t d) {
  return (d + Lanes<T> - 1) / Lanes<T> * Lanes<T>;
}

// dst (kBlock x dp) = rows [0, count) of src (row stride d), zero elsewhere.
template <typename T>
void load_rows(const T* src, std::int64_t count, std::int64_t d, std::int64_t dp, T* dst) {
  std::fill(dst, dst + kBlock * dp, T(0));
  for (std::int64_t r = 0; r < count; ++r) std::copy(src + r * d, src + (r + 1) * d, dst + r * dp);
}

// dst (dp x kBlock) = transpose of rows [0, count) of src (row stride d), zero elsewhere.
template <typename T>
void load_transposed(const T* src, std::int64_t count, std::int64_t d, std::int64_t dp, T* dst) {
  std::fill(dst, dst + dp * kBlock, T(0));
  for (std::int64_t r = 0; r < count; ++r) {
    for (std::int64_t c = 0; c < d; ++c) dst[c * kBlock + r] = src[r * d + c];
  }
}

// c (kBlock x kBlock) = a (kBlock x dp) @ bt (dp x kBlock) * alpha.
template <typename T>
void gemm_abt(const T* a, const T* bt, std::int64_t dp, T alpha, T* c) {
  constexpr std::int64_t W = Lanes<T>;
  for (std::int64_t i = 0; i < kBlock; i += kRows) {
    for (std::int64_t j = 0; j < kBlock; j += W) {
      T acc[kRows][W] = {};
      for (std::int64_t k = 0; k < dp; ++k) {
        const T* b = bt + k * kBlock + j;
        for (std::int64_t r = 0; r < kRows; ++r) {
          const T av = a[(i + r) * dp + k];
#pragma omp simd
          for (std::int64_t w = 0; w < W; ++w) acc[r][w] += av * b[w];
        }
      }
      for (std::int64_t r = 0; r < kRows; ++r) {
#pragma omp simd
        for (std::int64_t w = 0; w < W; ++w) c[(i + r) * kBlock + j + w] = acc[r][w] * alpha;
      }
    }
  }
}

// c (kBlock x dp) += p (kBlock x kBlock, row stride kBlock) @ b (kBlock x dp), over p's first `inner` columns.
template <typename T>
void gemm_ab_acc(const T* p, const T* b, std::int64_t inner, std::int64_t dp, T* c) {
  constexpr std::int64_t W = Lanes<T>;
  for (std::int64_t i = 0; i < kBlock; i += kRows) {
    for (std::int64_t j = 0; j < dp; j += W) {
      T acc[kRows][W];
      for (std::int64_t r = 0; r < kRows; ++r) {
#pragma omp simd
        for (std::int64_t w = 0; w < W; ++w) acc[r][w] = c[(i + r) * dp + j + w];
      }
      for (std::int64_t k = 0; k < inner; ++k) {
        const T* bv = b + k * dp + j;
        for (std::int64_t r = 0; r < kRows; ++r) {
          const T pv = p[(i + r) * kBlock + k];
#pragma omp simd
          for (std::int64_t w = 0; w < W; ++w) acc[r][w] += pv * bv[w];
        }
      }
      for (std::int64_t r = 0; r < kRows; ++r) {
#pragma omp simd
        for (std::int64_t w = 0; w < W; ++w) c[(i + r) * dp + j + w] = acc[r][w];
      }
    }
  }
}

// dst (kBlock x kBlock) = src^T.
template <typename T>
void transpose_block(const T* src, T* dst) {
  for (std::int64_t i = 0; i < kBlock; ++i) {
    for (std::int64_t j = 0; j < kBlock; ++j) dst[j * kBlock + i] = src[i * kBlock + j];
  }
}

// Causal alignment (Note [Attention] in ops/nn/attention.cpp): query i sees keys j <= i + offset.
struct Causal {
  bool on = false;
  std::int64_t offset = 0;  // kv_len - q_len
  // Keys [0, end) are the only ones any query in [q0, q0 + count) can see.
  std::int64_t key_end(std::int64_t q0, std::int64_t count, std::int64_t kv_len) const {
    return on ? std::clamp<std::int64_t>(q0 + count + offset, 0, kv_len) : kv_len;
  }
  // The first query that sees key k0.
  std::int64_t first_query(std::int64_t k0) const { return on ? std::max<std::int64_t>(0, k0 - offset) : 0; }
  bool visible(std::int64_t q, std::int64_t k) const { return !on || k <= q + offset; }
};

}  // namespace accelera::cpu::attention_tiles
