#pragma once
// The fft kernel (Note [Fourier transforms] in src/ops/fft.cpp): one multi-axis discrete Fourier transform
// per call, of one of three kinds, registered by the complex dtype it computes in (complex64 transforms
// float32 data, complex128 float64).
#include <cstdint>
#include <span>

#include "accelera/core/tensor.hpp"
#include "core/kernel_table.hpp"

namespace accelera {

enum class FftKind : std::uint8_t {
  c2c,  // complex x -> complex out of the same shape
  r2c,  // real x -> complex out, the last axis of `axes` n / 2 + 1 long (the non-negative frequencies)
  c2r,  // complex x (last axis n / 2 + 1) -> real out (last axis n), x read as the half of a Hermitian signal
};

// out = scale * DFT(x) over `axes` (distinct, in [0, ndim), the r2c and c2r half axis last), forward
// (e^{-2 pi i jk / n}) or inverse (e^{+2 pi i jk / n}). x has any strides; out is contiguous and does not
// overlap x. Shapes are consistent with `kind`; no axis is empty.
using FftKernel = void(FftKind kind, const Tensor& x, const Tensor& out, std::span<const std::int64_t> axes,
                       bool forward, double scale);

namespace op {
inline constexpr OpSchema<FftKernel> fft{"fft"};
}  // namespace op

}  // namespace accelera
