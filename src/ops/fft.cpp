// Note [Fourier transforms]
// The fft extension resolves lengths, axes, dtypes and the norm here, then runs one kernel per call: the
// `fft` kernel of the device (src/ops/fft.hpp), which transforms over all the axes at once.
//   cpu     pocketfft (third_party/pocketfft), NumPy's own FFT: mixed radix with Bluestein for large
//           primes, O(n log n) for every n; batches of transforms split over the OpenMP threads
//   cuda    cuFFT, one axis at a time (plans cached per device and shape, work areas from Accelera's
//           allocator, on the compute stream)
//   opencl  VkFFT (Debian's libvkfft-dev), one axis at a time like cuFFT, on kernels it generates per
//           plan (Note [OpenCL Fourier transforms] in backends/opencl/fft.cpp). clFFT is unmaintained
//           since 2017
// Inputs are cut or zero-padded to the requested lengths first (a copy only when a length changes), and
// the scale (1, 1/sqrt(N) or 1/N, N the product of the lengths) is applied by the kernel.
#include "ops/fft.hpp"

#include <algorithm>
#include <cmath>

#include "accelera/fft.hpp"
#include "accelera/ops.hpp"
#include "ops/common.hpp"

namespace accelera::fft {

using namespace ops_detail;

Norm norm_from_name(std::string_view name) {
  if (name == "backward") return Norm::backward;
  if (name == "ortho") return Norm::ortho;
  if (name == "forward") return Norm::forward;
  throw ValueError(fmt::format("norm must be 'backward', 'ortho' or 'forward', not '{}'", name));
}

namespace {

// x cut or zero-padded to `n` along `axis`.
Tensor resized(const Tensor& x, std::int64_t axis, std::int64_t n) {
  const std::int64_t have = x.dim(axis);
  if (have == n) return x;
  if (have > n) return x.slice(axis, 0, n);
  std::vector<std::int64_t> dims = x.shape().dims();
  dims[static_cast<std::size_t>(axis)] = n;
  Tensor out = zeros(Shape(dims), x.dtype(), x.device());
  copy_into(x, out.slice(axis, 0, have));
  return out;
}

double scale_of(Norm norm, bool forward, double count) {
  if (norm == Norm::ortho) return 1.0 / std::sqrt(count);
  const bool scaled = (norm == Norm::backward) != forward;  // backward scales the inverse, forward the forward
  return scaled ? 1.0 / count : 1.0;
}

// The complex dtype a transform of x computes in; `what` names the transform in errors.
DType transform_dtype(DType x, std::string_view what) {
  ACC_CHECK(x != DType::boolean, DTypeError, "{}: bool tensors have no Fourier transform (convert with astype)", what);
  return complex_dtype(x);
}

struct Plan {
  std::vector<std::int64_t> axes;     // normalized, distinct, in the order given
  std::vector<std::int64_t> lengths;  // the logical transform length along each
};

Plan make_plan(const Tensor& x, const Lengths& s, const AxisList& axes, std::string_view what) {
  Plan plan;
  if (axes) {
    for (auto a : *axes) {
      ACC_CHECK(a >= -x.ndim() && a < x.ndim(), IndexError, "{}: axis {} is out of range for a {}-d tensor", what, a,
                x.ndim());
      plan.axes.push_back(a < 0 ? a + x.ndim() : a);
    }
    std::vector<std::int64_t> sorted = plan.axes;
    std::ranges::sort(sorted);
    ACC_CHECK(std::ranges::adjacent_find(sorted) == sorted.end(), ValueError, "{}: repeated axis in axes", what);
  } else {
    const std::int64_t count = s ? static_cast<std::int64_t>(s->size()) : x.ndim();
    ACC_CHECK(count <= x.ndim(), ValueError, "{}: s has {} lengths but x has only {} axes", what, count, x.ndim());
    for (std::int64_t a = x.ndim() - count; a < x.ndim(); ++a) plan.axes.push_back(a);
  }
  ACC_CHECK(!s || s->size() == plan.axes.size(), ValueError, "{}: s has {} lengths for {} axes", what,
            s ? s->size() : 0, plan.axes.size());
  for (std::size_t i = 0; i < plan.axes.size(); ++i) {
    const std::int64_t n = s ? (*s)[i] : x.dim(plan.axes[i]);
    ACC_CHECK(n >= 1, ValueError, "{}: invalid length {} along axis {} (lengths must be at least 1)", what, n,
              plan.axes[i]);
    plan.lengths.push_back(n);
  }
  return plan;
}

Tensor run(FftKind kind, const Tensor& x, const Plan& plan, bool forward, Norm norm, std::string_view what) {
  const DType complex = transform_dtype(x.dtype(), what);
  ACC_CHECK(kind != FftKind::r2c || !is_complex(x.dtype()), DTypeError,
            "{}: needs a real tensor, not {} (use fft for complex ones)", what, dtype_name(x.dtype()));
  ACC_CHECK(!plan.axes.empty(), ValueError, "{}: no axes to transform", what);
  const DType input_dtype = kind == FftKind::r2c ? real_dtype(complex) : complex;
  Tensor in = cast_to(x, input_dtype);
  double count = 1;
  for (std::size_t i = 0; i < plan.axes.size(); ++i) {
    const bool half = kind == FftKind::c2r && i + 1 == plan.axes.size();
    in = resized(in, plan.axes[i], half ? plan.lengths[i] / 2 + 1 : plan.lengths[i]);
    count *= static_cast<double>(plan.lengths[i]);
  }
  std::vector<std::int64_t> out_dims = in.shape().dims();
  const auto last = static_cast<std::size_t>(plan.axes.back());
  if (kind == FftKind::r2c) out_dims[last] = plan.lengths.back() / 2 + 1;
  if (kind == FftKind::c2r) out_dims[last] = plan.lengths.back();
  const auto kernel = kernel_for(op::fft, x.device(), complex);
  Tensor out = Tensor::empty(Shape(out_dims), kind == FftKind::c2r ? real_dtype(complex) : complex, x.device());
  if (out.numel() > 0) kernel(kind, in, out, plan.axes, forward, scale_of(norm, forward, count));
  return out;
}

Plan one_axis(const Tensor& x, std::optional<std::int64_t> n, std::int64_t axis, std::string_view what,
              std::optional<std::int64_t> default_n = std::nullopt) {
  ACC_CHECK(x.ndim() >= 1, ValueError, "{}: needs at least one axis (x is 0-d)", what);
  ACC_CHECK(axis >= -x.ndim() && axis < x.ndim(), IndexError, "{}: axis {} is out of range for a {}-d tensor", what,
            axis, x.ndim());
  const std::int64_t a = axis < 0 ? axis + x.ndim() : axis;
  const std::int64_t length = n ? *n : default_n.value_or(x.dim(a));
  return make_plan(x, std::vector<std::int64_t>{length}, std::vector<std::int64_t>{a}, what);
}

// irfft's default length: 2 (m - 1) for m half-spectrum values along the last axis.
std::int64_t hermitian_length(const Tensor& x, std::int64_t axis) {
  const std::int64_t a = axis < 0 ? axis + x.ndim() : axis;
  return 2 * (x.dim(a) - 1);
}

Norm swapped(Norm norm) {
  if (norm == Norm::backward) return Norm::forward;
  if (norm == Norm::forward) return Norm::backward;
  return norm;
}

void check(const Tensor& x, std::string_view what) { check_defined(x, what, "x"); }

}  // namespace

Tensor fft(const Tensor& x, std::optional<std::int64_t> n, std::int64_t axis, Norm norm) {
  check(x, "fft");
  return run(FftKind::c2c, x, one_axis(x, n, axis, "fft"), true, norm, "fft");
}

Tensor ifft(const Tensor& x, std::optional<std::int64_t> n, std::int64_t axis, Norm norm) {
  check(x, "ifft");
  return run(FftKind::c2c, x, one_axis(x, n, axis, "ifft"), false, norm, "ifft");
}

Tensor fftn(const Tensor& x, const Lengths& s, const AxisList& axes, Norm norm) {
  check(x, "fftn");
  return run(FftKind::c2c, x, make_plan(x, s, axes, "fftn"), true, norm, "fftn");
}

Tensor ifftn(const Tensor& x, const Lengths& s, const AxisList& axes, Norm norm) {
  check(x, "ifftn");
  return run(FftKind::c2c, x, make_plan(x, s, axes, "ifftn"), false, norm, "ifftn");
}

Tensor rfft(const Tensor& x, std::optional<std::int64_t> n, std::int64_t axis, Norm norm) {
  check(x, "rfft");
  return run(FftKind::r2c, x, one_axis(x, n, axis, "rfft"), true, norm, "rfft");
}

Tensor irfft(const Tensor& x, std::optional<std::int64_t> n, std::int64_t axis, Norm norm) {
  check(x, "irfft");
  ACC_CHECK(x.ndim() >= 1, ValueError, "irfft: needs at least one axis (x is 0-d)");
  const Plan plan = one_axis(x, n, axis, "irfft", hermitian_length(x, axis));
  return run(FftKind::c2r, x, plan, false, norm, "irfft");
}

Tensor rfftn(const Tensor& x, const Lengths& s, const AxisList& axes, Norm norm) {
  check(x, "rfftn");
  return run(FftKind::r2c, x, make_plan(x, s, axes, "rfftn"), true, norm, "rfftn");
}

Tensor irfftn(const Tensor& x, const Lengths& s, const AxisList& axes, Norm norm) {
  check(x, "irfftn");
  Plan plan = make_plan(x, s, axes, "irfftn");
  if (!s) plan.lengths.back() = 2 * (x.dim(plan.axes.back()) - 1);
  ACC_CHECK(plan.lengths.back() >= 1, ValueError, "irfftn: invalid output length {} along axis {}",
            plan.lengths.back(), plan.axes.back());
  return run(FftKind::c2r, x, plan, false, norm, "irfftn");
}

Tensor hfft(const Tensor& x, std::optional<std::int64_t> n, std::int64_t axis, Norm norm) {
  check(x, "hfft");
  ACC_CHECK(x.ndim() >= 1, ValueError, "hfft: needs at least one axis (x is 0-d)");
  const Plan plan = one_axis(x, n, axis, "hfft", hermitian_length(x, axis));
  const Tensor z = cast_to(x, transform_dtype(x.dtype(), "hfft"));
  return run(FftKind::c2r, conj(z), plan, false, swapped(norm), "hfft");
}

Tensor ihfft(const Tensor& x, std::optional<std::int64_t> n, std::int64_t axis, Norm norm) {
  check(x, "ihfft");
  return conj(run(FftKind::r2c, x, one_axis(x, n, axis, "ihfft"), true, swapped(norm), "ihfft"));
}

}  // namespace accelera::fft
