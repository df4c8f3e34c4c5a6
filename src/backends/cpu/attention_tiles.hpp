#pragma once
// Tile arithmetic shared by the CPU attention kernels (forward and backward).
// Note [CPU attention tiles]: tiles are kBlock x kBlock score blocks; operands are copied into per-thread
// scratch padded with zeros to kBlock rows and to a head dimension rounded up to one vector (Lanes<T>),
// so every inner loop has a fixed trip count; the two products are register-blocked vector code (Highway):
// kRows rows of accumulators, one vector of columns, one load feeding kRows FMAs. Memory per thread is
// O(kBlock x head_dim) whatever the sequence lengths.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "backends/cpu/simd/simd_kernels.hpp"

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

// c (kBlock x kBlock) = a (kBlock x dp) @ bt (dp x kBlock) * alpha, vectorised for the CPU's instruction set
// (backends/cpu/simd/attention_tiles.cpp).
template <typename T>
void gemm_abt(const T* a, const T* bt, std::int64_t dp, T alpha, T* c) {
  simd::tile_gemm_abt(a, bt, kBlock, dp, alpha, c);
}

// c (kBlock x dp) += p (kBlock x kBlock, row stride kBlock) @ b (kBlock x dp), over p's first `inner` columns.
template <typename T>
void gemm_ab_acc(const T* p, const T* b, std::int64_t inner, std::int64_t dp, T* c) {
  simd::tile_gemm_ab_acc(p, b, kBlock, inner, dp, c);
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
