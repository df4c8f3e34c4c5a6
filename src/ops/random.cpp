// random_uniform, random_normal and random_integers (Note [Counter-based random numbers] in ops/random.hpp).
#include "ops/random.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

#include "accelera/core/error.hpp"
#include "accelera/ops.hpp"
#include "accelera/random.hpp"
#include "core/convert.hpp"
#include "ops/common.hpp"

namespace accelera {

namespace {

// A draw must not run past the last counter: its blocks would wrap onto the first ones.
void check_counters(std::int64_t numel, std::uint64_t offset, const char* op) {
  const std::uint64_t blocks = random_blocks(numel);
  ACC_CHECK(blocks == 0 || offset <= std::numeric_limits<std::uint64_t>::max() - (blocks - 1), ValueError,
            "{}: a draw of {} elements at counter {} runs past the last counter (2^64 - 1)", op, numel, offset);
}

}  // namespace

std::uint64_t random_blocks(std::int64_t numel) {
  ACC_CHECK(numel >= 0, ValueError, "random_blocks: numel must be >= 0, got {}", numel);
  return static_cast<std::uint64_t>(numel / 4 + (numel % 4 != 0 ? 1 : 0));
}

Tensor random_uniform(const Shape& shape, DType dtype, const Device& device, std::uint64_t seed,
                      std::uint64_t offset, double low, double high) {
  ACC_CHECK(is_floating(dtype), DTypeError, "random_uniform: {} is not a floating dtype", dtype_name(dtype));
  ACC_CHECK(std::isfinite(low) && std::isfinite(high) && low <= high, ValueError,
            "random_uniform: the bounds must be finite with low <= high, got low = {} and high = {}", low, high);
  ACC_CHECK(std::isfinite(high - low), ValueError, "random_uniform: high - low = {} - {} overflows", high, low);
  check_counters(shape.numel(), offset, "random_uniform");
  const auto kernel = kernel_for(op::random_uniform, device, dtype);
  Tensor out = Tensor::empty(shape, dtype, device);
  if (out.numel() > 0) kernel(out, seed, offset, low, high - low);
  return out;
}

Tensor random_normal(const Shape& shape, DType dtype, const Device& device, std::uint64_t seed,
                     std::uint64_t offset, double loc, double scale) {
  ACC_CHECK(is_floating(dtype), DTypeError, "random_normal: {} is not a floating dtype", dtype_name(dtype));
  ACC_CHECK(std::isfinite(loc) && std::isfinite(scale) && scale >= 0, ValueError,
            "random_normal: loc must be finite and scale finite and >= 0, got loc = {} and scale = {}", loc, scale);
  check_counters(shape.numel(), offset, "random_normal");
  const auto kernel = kernel_for(op::random_normal, device, dtype);
  Tensor out = Tensor::empty(shape, dtype, device);
  if (out.numel() > 0) kernel(out, seed, offset, loc, scale);
  return out;
}

Tensor random_integers(const Shape& shape, DType dtype, const Device& device, std::int64_t low, std::int64_t high,
                       bool endpoint, std::uint64_t seed, std::uint64_t offset) {
  ACC_CHECK(is_integral(dtype), DTypeError, "random_integers: {} is not an integer dtype", dtype_name(dtype));
  if (dtype != DType::i64) {
    // The bounds of the dtype; uint64 draws from [0, INT64_MAX], as low and high are int64.
    const auto [lo, hi] = detail::with_storage_type(dtype, [](auto t) {
      using T = decltype(t);
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, std::uint64_t>) {
        return std::pair<std::int64_t, std::int64_t>{std::numeric_limits<T>::min(), std::numeric_limits<T>::max()};
      } else {
        return std::pair<std::int64_t, std::int64_t>{0, std::numeric_limits<std::int64_t>::max()};
      }
    });
    ACC_CHECK(low >= lo && (endpoint ? high <= hi : high - 1 <= hi), ValueError,
              "random_integers: bounds [{}, {}{} are out of range for {}", low, high, endpoint ? "]" : ")",
              dtype_name(dtype));
  }
  ACC_CHECK(endpoint ? low <= high : low < high, ValueError, "random_integers: the interval [{}, {}{} is empty",
            low, high, endpoint ? "]" : ")");
  check_counters(shape.numel(), offset, "random_integers");
  // The count of values, modulo 2^64: only [INT64_MIN, INT64_MAX] with endpoint wraps, to 0 (= 2^64).
  const std::uint64_t range = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low) + (endpoint ? 1u : 0u);
  // The kernels draw int32 and int64; the other integer dtypes take int64 draws, which fit them exactly.
  const DType drawn = dtype == DType::i32 ? DType::i32 : DType::i64;
  const auto kernel = kernel_for(op::random_integers, device, drawn);
  Tensor out = Tensor::empty(shape, drawn, device);
  if (out.numel() > 0) kernel(out, seed, offset, low, range);
  return ops_detail::cast_to(out, dtype);
}

Tensor random_permutation(std::int64_t n, const Device& device, std::uint64_t seed, std::uint64_t offset) {
  ACC_CHECK(n >= 0, ValueError, "random_permutation: n must be >= 0, got {}", n);
  constexpr auto lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
  // The stable order of n random 64-bit keys, drawn and ranked on the device: the keys are the same on
  // every device (Philox), and equal keys (probability below n^2 / 2^65) keep index order, so the
  // permutation is too.
  const Tensor keys = random_integers(Shape{n}, DType::i64, device, lo, hi, true, seed, offset);
  return argsort(keys, 0, /*descending=*/false, /*stable=*/true);
}

}  // namespace accelera
