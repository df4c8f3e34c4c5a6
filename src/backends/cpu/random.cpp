// Philox random tensors on the CPU (Note [Counter-based random numbers] in ops/random.hpp): counter blocks
// of four elements split among OpenMP threads, a vector lane per block for float32/float64 and the integers
// (Note [Vector Philox] in simd/philox.cpp), one block per iteration for the half formats.
#include <omp.h>

#include <cmath>

#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/simd/simd_kernels.hpp"
#include "backends/common/strided_loop.hpp"
#include "ops/random.hpp"
#include "ops/random_bits.hpp"

// low + scale * u must round twice, as on the other devices, never as one fused multiply-add.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace accelera::cpu {

namespace {

using namespace random_bits;

// Calls element(block words..., j, k) for every element k = 4 b + j of a contiguous draw of n, where
// `words(block)` computes what a block's elements need.
template <typename T, typename BlockWords, typename Element>
void for_each_block(T* out, std::int64_t n, std::uint64_t offset, BlockWords&& words, Element&& element) {
  const std::int64_t blocks = (n + 3) / 4;
#pragma omp parallel for schedule(static) if (n >= backends::kParallelGrain)
  for (std::int64_t b = 0; b < blocks; ++b) {
    const auto w = words(offset + static_cast<std::uint64_t>(b));
    const int count = static_cast<int>(std::min<std::int64_t>(4, n - 4 * b));
    for (int j = 0; j < count; ++j) out[4 * b + j] = element(w, j);
  }
}

// A draw of n elements through the vector kernel draw(out, count, first block), its blocks split among the
// threads (the last share takes the partial block).
template <typename T, typename VectorDraw>
void draw_vectorised(T* out, std::int64_t n, std::uint64_t offset, VectorDraw&& draw) {
  simd::ensure_target_selected();  // may throw: before the parallel region
  const std::int64_t blocks = (n + 3) / 4;
  const auto share = [&](std::int64_t begin, std::int64_t end) {
    const std::int64_t count = std::min(n, 4 * end) - 4 * begin;
    if (count > 0) draw(out + 4 * begin, count, offset + static_cast<std::uint64_t>(begin));
  };
  if (n >= backends::kParallelGrain && !omp_in_parallel()) {
#pragma omp parallel
    {
      const std::int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
      share(blocks * t / threads, blocks * (t + 1) / threads);
    }
  } else {
    share(0, blocks);
  }
}

void uniform_kernel(const Tensor& out, std::uint64_t seed, std::uint64_t offset, double low, double scale) {
  const std::int64_t n = out.numel();
  const auto set0 = [seed](std::uint64_t block) { return block_words(seed, block, 0); };
  const float lo = static_cast<float>(low), sc = static_cast<float>(scale);
  switch (out.dtype()) {
    case DType::f32:
      return draw_vectorised(out.data<float>(), n, offset, [=](float* p, std::int64_t count, std::uint64_t first) {
        simd::philox_uniform(p, count, seed, first, lo, sc);
      });
    case DType::f16:
      return for_each_block(out.data<Half>(), n, offset, set0, [=](const Words& w, int j) {
        return detail::store_element<Half>(lo + sc * uniform_f16(w.w[j]));
      });
    case DType::bf16:
      return for_each_block(out.data<BFloat16>(), n, offset, set0, [=](const Words& w, int j) {
        return detail::store_element<BFloat16>(lo + sc * uniform_bf16(w.w[j]));
      });
    case DType::f64:
      return draw_vectorised(out.data<double>(), n, offset, [=](double* p, std::int64_t count, std::uint64_t first) {
        simd::philox_uniform(p, count, seed, first, low, scale);
      });
    default: ACC_ASSERT(false, "the cpu random_uniform kernel was called for {}", dtype_name(out.dtype()));
  }
}

void normal_kernel(const Tensor& out, std::uint64_t seed, std::uint64_t offset, double loc, double scale) {
  const std::int64_t n = out.numel();
  const auto set0 = [seed](std::uint64_t block) { return block_words(seed, block, 0); };
  const float lo = static_cast<float>(loc), sc = static_cast<float>(scale);
  switch (out.dtype()) {
    case DType::f32:
      return draw_vectorised(out.data<float>(), n, offset, [=](float* p, std::int64_t count, std::uint64_t first) {
        simd::philox_normal(p, count, seed, first, lo, sc);
      });
    case DType::f16:
      return for_each_block(out.data<Half>(), n, offset, set0, [=](const Words& w, int j) {
        return detail::store_element<Half>(lo + sc * normal_f32(w, j));
      });
    case DType::bf16:
      return for_each_block(out.data<BFloat16>(), n, offset, set0, [=](const Words& w, int j) {
        return detail::store_element<BFloat16>(lo + sc * normal_f32(w, j));
      });
    case DType::f64:
      return draw_vectorised(out.data<double>(), n, offset, [=](double* p, std::int64_t count, std::uint64_t first) {
        simd::philox_normal(p, count, seed, first, loc, scale);
      });
    default: ACC_ASSERT(false, "the cpu random_normal kernel was called for {}", dtype_name(out.dtype()));
  }
}

void integers_kernel(const Tensor& out, std::uint64_t seed, std::uint64_t offset, std::int64_t low,
                     std::uint64_t range) {
  const std::int64_t n = out.numel();
  const auto base = static_cast<std::uint64_t>(low);
  if (out.dtype() == DType::i32) {
    return draw_vectorised(out.data<std::int32_t>(), n, offset,
                           [=](std::int32_t* p, std::int64_t count, std::uint64_t first) {
                             simd::philox_integers(p, count, seed, first, base, range);
                           });
  }
  ACC_ASSERT(out.dtype() == DType::i64, "the cpu random_integers kernel was called for {}", dtype_name(out.dtype()));
  draw_vectorised(out.data<std::int64_t>(), n, offset, [=](std::int64_t* p, std::int64_t count, std::uint64_t first) {
    simd::philox_integers(p, count, seed, first, base, range);
  });
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::random_uniform, DeviceKind::cpu, dtypes::floating | dtypes::half, &uniform_kernel);
  register_kernel(op::random_normal, DeviceKind::cpu, dtypes::floating | dtypes::half, &normal_kernel);
  // The op draws the other integer dtypes as int64 (ops/random.cpp).
  register_kernel(op::random_integers, DeviceKind::cpu, DTypeSet{DType::i32, DType::i64}, &integers_kernel);
}

}  // namespace accelera::cpu
