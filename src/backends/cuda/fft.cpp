// The fft kernel on CUDA through cuFFT (Note [Fourier transforms] in src/ops/fft.cpp): one axis at a time,
// each a batched 1-D plan over a copy with that axis last and contiguous; r2c transforms its half axis
// first, c2r last. Plans are kept per device and shape (cuFFT plans hold device twiddles, so they live as
// long as the process); their work areas come from the caching allocator, on the compute stream. cuFFT
// does not scale: a factor other than 1 is one multiply at the end. Every cuFFT status is checked.
#include <cufft.h>

#include <map>
#include <mutex>
#include <numeric>
#include <tuple>

#include "accelera/ops.hpp"
#include "backends/cuda/cuda_check.hpp"
#include "backends/cuda/cuda_interface.hpp"
#include "ops/fft.hpp"

namespace accelera::cuda {

namespace {

void check_fft(cufftResult status, const char* call, const char* what) {
  if (status == CUFFT_SUCCESS) [[likely]] return;
  const std::string message = fmt::format("{} failed while {}: cufftResult {}", call, what, static_cast<int>(status));
  if (status == CUFFT_ALLOC_FAILED) throw OutOfMemoryError(message);
  if (status == CUFFT_NOT_SUPPORTED) throw NotSupportedError(message);
  throw DeviceError(message);
}
#define ACC_CUFFT_CHECK(expr, what) check_fft((expr), #expr, what)

struct PlanKey {
  int device;
  long long n, batch, in_distance, out_distance;
  cufftType type;
  auto operator<=>(const PlanKey&) const = default;
};

struct Plan {
  cufftHandle handle = 0;
  std::size_t work_bytes = 0;
};

// Plans by key, and one mutex for their use: a plan's work area and stream are set per call.
std::mutex& plans_mutex() {
  static std::mutex m;
  return m;
}

Plan& plan_for(const PlanKey& key) {
  static std::map<PlanKey, Plan> plans;
  auto [it, added] = plans.try_emplace(key);
  if (added) {
    Plan& p = it->second;
    ACC_CUFFT_CHECK(cufftCreate(&p.handle), "creating a cuFFT plan");
    // Work areas come from Accelera's allocator, not from cuFFT's own cudaMalloc.
    ACC_CUFFT_CHECK(cufftSetAutoAllocation(p.handle, 0), "configuring a cuFFT plan");
    long long n = key.n, in_embed = key.in_distance, out_embed = key.out_distance;
    ACC_CUFFT_CHECK(cufftMakePlanMany64(p.handle, 1, &n, &in_embed, 1, key.in_distance, &out_embed, 1,
                                        key.out_distance, key.type, key.batch, &p.work_bytes),
                    "planning a batched 1-D transform");
  }
  return it->second;
}

cufftType type_of(FftKind kind, bool dbl) {
  switch (kind) {
    case FftKind::c2c: return dbl ? CUFFT_Z2Z : CUFFT_C2C;
    case FftKind::r2c: return dbl ? CUFFT_D2Z : CUFFT_R2C;
    case FftKind::c2r: return dbl ? CUFFT_Z2D : CUFFT_C2R;
  }
  return CUFFT_C2C;
}

// The transform of `kind` of t along `axis` (length n: the real length for r2c and c2r), as a view of a
// new tensor with t's axis order.
Tensor along_axis(const Tensor& t, std::int64_t axis, FftKind kind, std::int64_t n, bool forward, bool dbl) {
  CudaDevice& d = cuda_device(t.device());
  std::vector<std::int64_t> order(static_cast<std::size_t>(t.ndim()));
  std::iota(order.begin(), order.end(), 0);
  std::swap(order[static_cast<std::size_t>(axis)], order.back());
  // cuFFT's c2r overwrites its input: it always gets a copy.
  const Tensor permuted = t.permute(order);
  const Tensor in = kind == FftKind::c2r ? permuted.clone() : permuted.contiguous();
  std::vector<std::int64_t> dims = in.shape().dims();
  dims.back() = kind == FftKind::r2c ? n / 2 + 1 : n;
  const DType out_dtype = kind == FftKind::c2r ? real_dtype(t.dtype()) : complex_dtype(t.dtype());
  Tensor result = Tensor::empty(Shape(dims), out_dtype, t.device());
  const long long in_distance = in.dim(-1), out_distance = result.dim(-1);
  const long long batch = in_distance == 0 ? 0 : in.numel() / in_distance;
  if (batch > 0) {
    std::lock_guard lock(plans_mutex());
    Plan& plan = plan_for(PlanKey{d.index, n, batch, in_distance, out_distance, type_of(kind, dbl)});
    const Tensor work = Tensor::empty(Shape{static_cast<std::int64_t>(std::max<std::size_t>(plan.work_bytes, 1))},
                                      DType::u8, t.device());
    ACC_CUFFT_CHECK(cufftSetWorkArea(plan.handle, work.data_ptr()), "setting a cuFFT work area");
    ACC_CUFFT_CHECK(cufftSetStream(plan.handle, d.compute()), "binding cuFFT to the compute stream");
    const int direction = forward ? CUFFT_FORWARD : CUFFT_INVERSE;
    void* i = in.data_ptr();
    void* o = result.data_ptr();
    switch (type_of(kind, dbl)) {
      case CUFFT_C2C:
        ACC_CUFFT_CHECK(cufftExecC2C(plan.handle, static_cast<cufftComplex*>(i), static_cast<cufftComplex*>(o), direction),
                        "running a transform");
        break;
      case CUFFT_Z2Z:
        ACC_CUFFT_CHECK(cufftExecZ2Z(plan.handle, static_cast<cufftDoubleComplex*>(i),
                                     static_cast<cufftDoubleComplex*>(o), direction),
                        "running a transform");
        break;
      case CUFFT_R2C:
        ACC_CUFFT_CHECK(cufftExecR2C(plan.handle, static_cast<cufftReal*>(i), static_cast<cufftComplex*>(o)),
                        "running a transform");
        break;
      case CUFFT_D2Z:
        ACC_CUFFT_CHECK(cufftExecD2Z(plan.handle, static_cast<cufftDoubleReal*>(i), static_cast<cufftDoubleComplex*>(o)),
                        "running a transform");
        break;
      case CUFFT_C2R:
        ACC_CUFFT_CHECK(cufftExecC2R(plan.handle, static_cast<cufftComplex*>(i), static_cast<cufftReal*>(o)),
                        "running a transform");
        break;
      case CUFFT_Z2D:
        ACC_CUFFT_CHECK(cufftExecZ2D(plan.handle, static_cast<cufftDoubleComplex*>(i), static_cast<cufftDoubleReal*>(o)),
                        "running a transform");
        break;
      default: ACC_ASSERT(false, "unexpected cuFFT transform type");
    }
  }
  return result.permute(order);  // swapping two axes is its own inverse
}

void fft_kernel(FftKind kind, const Tensor& x, const Tensor& out, std::span<const std::int64_t> axes, bool forward,
                double scale) {
  CudaDevice& d = cuda_device(out.device());
  DeviceGuard guard(d.index);
  const bool dbl = (kind == FftKind::c2r ? out.dtype() : real_dtype(x.dtype())) == DType::f64;
  Tensor current = x;
  const std::size_t last = axes.size() - 1;
  if (kind == FftKind::r2c) current = along_axis(current, axes[last], FftKind::r2c, x.dim(axes[last]), forward, dbl);
  for (std::size_t i = 0; i < last; ++i) {
    current = along_axis(current, axes[i], FftKind::c2c, current.dim(axes[i]), forward, dbl);
  }
  if (kind == FftKind::c2c) current = along_axis(current, axes[last], FftKind::c2c, current.dim(axes[last]), forward, dbl);
  if (kind == FftKind::c2r) current = along_axis(current, axes[last], FftKind::c2r, out.dim(axes[last]), forward, dbl);
  if (scale != 1.0) current = multiply(current, full(Shape{}, scale, real_dtype(current.dtype()), out.device()));
  copy_into(current, out);
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::fft, DeviceKind::cuda, dtypes::complex, &fft_kernel); }

}  // namespace accelera::cuda
