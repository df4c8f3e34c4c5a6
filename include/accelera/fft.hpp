#pragma once
// The array API standard's `fft` extension (NumPy's numpy.fft): discrete Fourier transforms of complex and
// real tensors over one axis or several, on every device (Note [Fourier transforms] in src/ops/fft.cpp).
// `n` (`s`) sets the transform lengths: inputs are cut or zero-padded to them along the axes. Integer and
// half inputs compute in the complex dtype that holds them (complex_dtype); results are complex64 or
// complex128, and their real halves float32 or float64.
#include <cstdint>
#include <optional>
#include <vector>

#include "accelera/core/export.hpp"
#include "accelera/core/tensor.hpp"

namespace accelera::fft {

// Where the 1/n factor goes: on the inverse (backward, the default), split as 1/sqrt(n) both ways (ortho),
// or on the forward transform.
enum class Norm { backward, ortho, forward };
// "backward", "ortho" or "forward"; ValueError otherwise.
ACC_API Norm norm_from_name(std::string_view name);

using Lengths = std::optional<std::vector<std::int64_t>>;
using AxisList = std::optional<std::vector<std::int64_t>>;

ACC_API Tensor fft(const Tensor& x, std::optional<std::int64_t> n = std::nullopt, std::int64_t axis = -1,
                   Norm norm = Norm::backward);
ACC_API Tensor ifft(const Tensor& x, std::optional<std::int64_t> n = std::nullopt, std::int64_t axis = -1,
                    Norm norm = Norm::backward);
// Over `axes` (default: the last len(s) axes, or every axis), with lengths `s` (default: x's).
ACC_API Tensor fftn(const Tensor& x, const Lengths& s = std::nullopt, const AxisList& axes = std::nullopt,
                    Norm norm = Norm::backward);
ACC_API Tensor ifftn(const Tensor& x, const Lengths& s = std::nullopt, const AxisList& axes = std::nullopt,
                     Norm norm = Norm::backward);
// Real input: the n / 2 + 1 non-negative frequencies. Complex input is a DTypeError.
ACC_API Tensor rfft(const Tensor& x, std::optional<std::int64_t> n = std::nullopt, std::int64_t axis = -1,
                    Norm norm = Norm::backward);
// The inverse of rfft: n real outputs (default 2 * (len - 1)) from the half spectrum.
ACC_API Tensor irfft(const Tensor& x, std::optional<std::int64_t> n = std::nullopt, std::int64_t axis = -1,
                     Norm norm = Norm::backward);
ACC_API Tensor rfftn(const Tensor& x, const Lengths& s = std::nullopt, const AxisList& axes = std::nullopt,
                     Norm norm = Norm::backward);
ACC_API Tensor irfftn(const Tensor& x, const Lengths& s = std::nullopt, const AxisList& axes = std::nullopt,
                      Norm norm = Norm::backward);
// The transforms of a signal with Hermitian symmetry: hfft gives its n real values from the half spectrum,
// ihfft the half spectrum of real values.
ACC_API Tensor hfft(const Tensor& x, std::optional<std::int64_t> n = std::nullopt, std::int64_t axis = -1,
                    Norm norm = Norm::backward);
ACC_API Tensor ihfft(const Tensor& x, std::optional<std::int64_t> n = std::nullopt, std::int64_t axis = -1,
                     Norm norm = Norm::backward);

}  // namespace accelera::fft
