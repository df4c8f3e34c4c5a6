// The two tile products of the CPU flash attention (kernels/attention_tiles.hpp), for every Highway target
// (Note [SIMD dispatch] in targets.cpp): kRows rows of the left operand against one vector of columns at
// a time, in kRows accumulators. Vectors are capped at 64 bytes, which divides both the tile (kBlock) and
// the padded head dimension.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/simd/attention_tiles.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "backends/cpu/simd/simd_kernels.hpp"

HWY_BEFORE_NAMESPACE();
namespace accelera::cpu::simd::HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;
constexpr std::int64_t kRows = 8;

template <typename T>
void gemm_abt(const T* a, const T* bt, std::int64_t block, std::int64_t dp, T alpha, T* c) {
  const hn::CappedTag<T, 64 / sizeof(T)> d;
  const auto lanes = static_cast<std::int64_t>(hn::Lanes(d));
  const auto scale = hn::Set(d, alpha);
  for (std::int64_t i = 0; i < block; i += kRows) {
    for (std::int64_t j = 0; j < block; j += lanes) {
      hn::Vec<decltype(d)> acc[kRows];
      for (auto& v : acc) v = hn::Zero(d);
      for (std::int64_t k = 0; k < dp; ++k) {
        const auto b = hn::LoadU(d, bt + k * block + j);
        for (std::int64_t r = 0; r < kRows; ++r) acc[r] = hn::MulAdd(hn::Set(d, a[(i + r) * dp + k]), b, acc[r]);
      }
      for (std::int64_t r = 0; r < kRows; ++r) hn::StoreU(hn::Mul(acc[r], scale), d, c + (i + r) * block + j);
    }
  }
}

template <typename T>
void gemm_ab_acc(const T* p, const T* b, std::int64_t block, std::int64_t inner, std::int64_t dp, T* c) {
  const hn::CappedTag<T, 64 / sizeof(T)> d;
  const auto lanes = static_cast<std::int64_t>(hn::Lanes(d));
  for (std::int64_t i = 0; i < block; i += kRows) {
    for (std::int64_t j = 0; j < dp; j += lanes) {
      hn::Vec<decltype(d)> acc[kRows];
      for (std::int64_t r = 0; r < kRows; ++r) acc[r] = hn::LoadU(d, c + (i + r) * dp + j);
      for (std::int64_t k = 0; k < inner; ++k) {
        const auto bv = hn::LoadU(d, b + k * dp + j);
        for (std::int64_t r = 0; r < kRows; ++r) acc[r] = hn::MulAdd(hn::Set(d, p[(i + r) * block + k]), bv, acc[r]);
      }
      for (std::int64_t r = 0; r < kRows; ++r) hn::StoreU(acc[r], d, c + (i + r) * dp + j);
    }
  }
}

}  // namespace

void GemmAbtF32(const float* a, const float* bt, std::int64_t block, std::int64_t dp, float alpha, float* c) {
  gemm_abt(a, bt, block, dp, alpha, c);
}
void GemmAbtF64(const double* a, const double* bt, std::int64_t block, std::int64_t dp, double alpha, double* c) {
  gemm_abt(a, bt, block, dp, alpha, c);
}
void GemmAbAccF32(const float* p, const float* b, std::int64_t block, std::int64_t inner, std::int64_t dp, float* c) {
  gemm_ab_acc(p, b, block, inner, dp, c);
}
void GemmAbAccF64(const double* p, const double* b, std::int64_t block, std::int64_t inner, std::int64_t dp,
                  double* c) {
  gemm_ab_acc(p, b, block, inner, dp, c);
}

}  // namespace accelera::cpu::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace accelera::cpu::simd {

HWY_EXPORT(GemmAbtF32);
HWY_EXPORT(GemmAbtF64);
HWY_EXPORT(GemmAbAccF32);
HWY_EXPORT(GemmAbAccF64);

void tile_gemm_abt(const float* a, const float* bt, std::int64_t block, std::int64_t dp, float alpha, float* c) {
  HWY_DYNAMIC_DISPATCH(GemmAbtF32)(a, bt, block, dp, alpha, c);
}
void tile_gemm_abt(const double* a, const double* bt, std::int64_t block, std::int64_t dp, double alpha, double* c) {
  HWY_DYNAMIC_DISPATCH(GemmAbtF64)(a, bt, block, dp, alpha, c);
}
void tile_gemm_ab_acc(const float* p, const float* b, std::int64_t block, std::int64_t inner, std::int64_t dp,
                      float* c) {
  HWY_DYNAMIC_DISPATCH(GemmAbAccF32)(p, b, block, inner, dp, c);
}
void tile_gemm_ab_acc(const double* p, const double* b, std::int64_t block, std::int64_t inner, std::int64_t dp,
                      double* c) {
  HWY_DYNAMIC_DISPATCH(GemmAbAccF64)(p, b, block, inner, dp, c);
}

}  // namespace accelera::cpu::simd
#endif  // HWY_ONCE
