// The fft kernel on the CPU (Note [Fourier transforms] in src/ops/fft.cpp): pocketfft, given the tensors'
// strides directly. pocketfft runs single-threaded here; a batch of transforms is split along its longest
// untransformed axis into one block per OpenMP thread.
#define POCKETFFT_NO_MULTITHREADING
#define POCKETFFT_CACHE_SIZE 16
#include <pocketfft_hdronly.h>

#include <omp.h>

#include <algorithm>
#include <complex>
#include <exception>

#include "accelera/core/error.hpp"
#include "ops/fft.hpp"

namespace accelera::cpu {

namespace {

// A tensor's shape and byte strides in pocketfft's types.
struct Layout {
  pocketfft::shape_t shape;
  pocketfft::stride_t strides;
};

Layout layout_of(const Tensor& t) {
  Layout l;
  for (std::int64_t d = 0; d < t.ndim(); ++d) {
    l.shape.push_back(static_cast<std::size_t>(t.dim(d)));
    l.strides.push_back(static_cast<std::ptrdiff_t>(t.strides()[static_cast<std::size_t>(d)]) *
                        static_cast<std::ptrdiff_t>(t.itemsize()));
  }
  return l;
}

template <typename T>
void transform(FftKind kind, const Tensor& x, const Tensor& out, const pocketfft::shape_t& axes, bool forward, T scale) {
  using C = std::complex<T>;
  const Layout in = layout_of(x), result = layout_of(out);
  switch (kind) {
    case FftKind::c2c:
      return pocketfft::c2c<T>(in.shape, in.strides, result.strides, axes, forward, x.data<C>(), out.data<C>(), scale);
    case FftKind::r2c:
      return pocketfft::r2c<T>(in.shape, in.strides, result.strides, axes, forward, x.data<T>(), out.data<C>(), scale);
    case FftKind::c2r:
      return pocketfft::c2r<T>(result.shape, in.strides, result.strides, axes, forward, x.data<C>(), out.data<T>(),
                               scale);
  }
}

// The longest axis not transformed (-1 if every axis is): the one the threads split.
std::int64_t batch_axis(const Tensor& out, std::span<const std::int64_t> axes) {
  std::int64_t best = -1;
  for (std::int64_t d = 0; d < out.ndim(); ++d) {
    if (std::ranges::find(axes, d) != axes.end()) continue;
    if (best < 0 || out.dim(d) > out.dim(best)) best = d;
  }
  return best;
}

template <typename T>
void fft_typed(FftKind kind, const Tensor& x, const Tensor& out, std::span<const std::int64_t> axes, bool forward,
               double scale) {
  const pocketfft::shape_t plan_axes(axes.begin(), axes.end());
  const std::int64_t b = batch_axis(out, axes);
  const std::int64_t extent = b < 0 ? 1 : out.dim(b);
  const std::int64_t blocks = std::min<std::int64_t>(extent, omp_get_max_threads());
  if (blocks <= 1 || omp_in_parallel()) {
    return transform<T>(kind, x, out, plan_axes, forward, static_cast<T>(scale));
  }
  // Exceptions (pocketfft's allocations) must not leave the parallel region: the first is kept and
  // rethrown after it.
  std::exception_ptr failure;
#pragma omp parallel for num_threads(static_cast<int>(blocks)) schedule(static, 1)
  for (std::int64_t k = 0; k < blocks; ++k) {
    const std::int64_t begin = extent * k / blocks, end = extent * (k + 1) / blocks;
    try {
      transform<T>(kind, x.slice(b, begin, end), out.slice(b, begin, end), plan_axes, forward, static_cast<T>(scale));
    } catch (...) {
#pragma omp critical(accelera_fft_failure)
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
}

void fft_kernel(FftKind kind, const Tensor& x, const Tensor& out, std::span<const std::int64_t> axes, bool forward,
                double scale) {
  const DType part = kind == FftKind::c2r ? out.dtype() : real_dtype(x.dtype());
  if (part == DType::f32) return fft_typed<float>(kind, x, out, axes, forward, scale);
  fft_typed<double>(kind, x, out, axes, forward, scale);
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::fft, DeviceKind::cpu, dtypes::complex, &fft_kernel); }

}  // namespace accelera::cpu
