// The fft kernel on OpenCL devices through VkFFT (Note [OpenCL Fourier transforms]).
#include <algorithm>
#include <bit>
#include <clocale>
#include <list>
#include <memory>
#include <mutex>
#include <numeric>
#include <tuple>

#include "accelera/ops.hpp"
#include "backends/opencl/opencl_interface.hpp"
#include "core/log.hpp"
#include "ops/elementwise.hpp"
#include "ops/fft.hpp"
#include "ops/fill.hpp"

#define VKFFT_BACKEND 3
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wall"
#pragma GCC diagnostic ignored "-Wextra"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <vkFFT.h>
#pragma GCC diagnostic pop

// Note [OpenCL Fourier transforms]
// VkFFT (MIT, Debian's libvkfft-dev, header-only) generates and compiles OpenCL kernels for each plan: a
// batched 1-D transform of one length and batch size, complex-to-complex or real-to-complex (whose inverse
// is the complex-to-real transform). clFFT, the other OpenCL FFT library, is unmaintained since 2017.
//   Layout  As on CUDA, one axis at a time, each over a fresh copy with that axis last and contiguous,
//           transformed in place. Real-to-complex uses VkFFT's padded layout: rows of 2 (n / 2 + 1) reals,
//           the complex result in the same memory; complex-to-real gives rows of that length, of which the
//           first n are the result. Length 1 is the identity (VkFFT has no radix 1).
//   Real transforms of odd lengths, and of lengths beyond 8192, run as complex ones of twice the work (r2c:
//           of x + 0i, the first half kept; c2r: of the whole Hermitian spectrum, the real part kept).
//           VkFFT 1.2 plans no real transform of an odd length beyond its local memory, and its real
//           kernels that hold a whole long row in local memory crash PoCL (float64 65536, float32 98304,
//           131072, 196608 and 262144 among the powers of two and their multiples of 3 and 5 up to 4 Mi;
//           its complex kernels pass at every one of them, and its real ones at every length up to 8192).
//   Plans   Compiling a plan costs 0.05-1 s (PoCL; drivers cache the binaries on disk, so a plan is built
//           from scratch once per machine). The batch size is part of the generated code, so a batch is
//           run as chunks of powers of two (at most log2(batch) launches, at offsets given at launch) and
//           a few plans serve every batch size. Plans are kept per device, length, chunk, kind and
//           precision: the 16 most recently used, fewer when the work buffers they own pass 1/16 of the
//           device's memory. A plan's work buffer (four-step transforms of lengths beyond the local
//           memory, and their Bluestein twins) is VkFFT's own: handing it one from Accelera's allocator is
//           not possible, because VkFFT 1.2 sizes a user's buffer wrongly for Bluestein plans.
//   Scale   VkFFT does not normalise: a factor other than 1 is one multiply at the end.
// Plan creation briefly switches the process to the "C" locale (VkFFT writes the kernels' source with
// sprintf). VkFFT 1.2 then restores the locale from the pointer setlocale gave it, which the switch has
// overwritten, and would leave the whole process in "C" (Python would then decode its subprocesses' output
// as ASCII): LocaleRestorer keeps a copy and restores it. Plans are created under one mutex, which also
// serialises their use.

namespace accelera::opencl {

namespace {

void check_vkfft(VkFFTResult status, const char* call, const char* what) {
  if (status == VKFFT_SUCCESS) [[likely]] return;
  const std::string message = fmt::format("{} failed while {}: VkFFTResult {}", call, what, static_cast<int>(status));
  if (status == VKFFT_ERROR_MALLOC_FAILED || status == VKFFT_ERROR_FAILED_TO_ALLOCATE) throw OutOfMemoryError(message);
  if (status >= VKFFT_ERROR_UNSUPPORTED_RADIX && status <= VKFFT_ERROR_UNSUPPORTED_FFT_OMIT) {
    throw NotSupportedError(message);
  }
  throw DeviceError(message);
}
#define ACC_VKFFT_CHECK(expr, what) check_vkfft((expr), #expr, what)

struct PlanKey {
  int device;
  std::uint64_t n, rows;
  bool real, dbl;
  auto operator<=>(const PlanKey&) const = default;
};

// Restores the process's locale (all categories) when it goes out of scope.
class LocaleRestorer {
 public:
  LocaleRestorer() {
    const char* current = std::setlocale(LC_ALL, nullptr);
    if (current) m_saved = current;
  }
  ~LocaleRestorer() {
    if (!m_saved.empty()) std::setlocale(LC_ALL, m_saved.c_str());
  }
  LocaleRestorer(const LocaleRestorer&) = delete;
  LocaleRestorer& operator=(const LocaleRestorer&) = delete;

 private:
  std::string m_saved;
};

// One VkFFT application. VkFFT keeps pointers to the handles and sizes it was configured with, so they live
// here, next to it, at stable addresses (a Plan is never moved).
struct Plan {
  PlanKey key;
  cl_platform_id platform;
  cl_device_id device;
  cl_context context;
  cl_mem buffer;
  std::uint64_t buffer_bytes;
  VkFFTApplication app{};
  std::uint64_t work_bytes = 0;  // the work buffer VkFFT allocated for this plan, if any

  Plan(const PlanKey& k, ClDevice& d, cl_mem data) : key(k), platform(d.platform), device(d.id), context(d.context),
                                                     buffer(data) {
    const std::uint64_t row_floats = k.real ? 2 * (k.n / 2 + 1) : 2 * k.n;
    buffer_bytes = row_floats * k.rows * (k.dbl ? 8 : 4);
    VkFFTConfiguration config{};
    config.FFTdim = 1;
    config.size[0] = k.n;
    config.numberBatches = k.rows;
    config.performR2C = k.real ? 1 : 0;
    config.doublePrecision = k.dbl ? 1 : 0;
    config.platform = &platform;
    config.device = &device;
    config.context = &context;
    config.buffer = &buffer;
    config.bufferSize = &buffer_bytes;
    config.specifyOffsetsAtLaunch = 1;
    const LocaleRestorer locale;
    ACC_VKFFT_CHECK(initializeVkFFT(&app, config), "planning a batched 1-D transform");
    if (app.configuration.allocateTempBuffer && app.configuration.tempBufferSize) {
      work_bytes = app.configuration.tempBufferSize[0];
    }
  }
  ~Plan() { deleteVkFFT(&app); }
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
};

class PlanCache {
 public:
  static constexpr std::size_t max_plans = 16;

  std::mutex mutex;  // held while a plan is found and run

  // The plan for `key`, most recently used first; `data` is a buffer of the plan's size for its creation.
  Plan& get(const PlanKey& key, ClDevice& d, cl_mem data) {
    auto it = std::ranges::find_if(m_plans, [&](const auto& p) { return p->key == key; });
    if (it != m_plans.end()) {
      m_plans.splice(m_plans.begin(), m_plans, it);
      return *m_plans.front();
    }
    m_plans.push_front(std::make_unique<Plan>(key, d, data));
    evict(key.device, d.global_memory / 16);
    return *m_plans.front();
  }

 private:
  // Drops the least recently used plans (never the newest) beyond the count or the device's work bytes.
  void evict(int device, std::int64_t work_budget) {
    while (m_plans.size() > max_plans) m_plans.pop_back();
    std::int64_t work = 0;
    for (auto it = m_plans.begin(); it != m_plans.end();) {
      if ((*it)->key.device == device) work += static_cast<std::int64_t>((*it)->work_bytes);
      if (it != m_plans.begin() && (*it)->key.device == device && work > work_budget) {
        work -= static_cast<std::int64_t>((*it)->work_bytes);
        it = m_plans.erase(it);
      } else {
        ++it;
      }
    }
  }

  std::list<std::unique_ptr<Plan>> m_plans;
};

PlanCache& plan_cache() {
  static PlanCache cache;
  return cache;
}

// Transforms `rows` contiguous rows of `t` (a fresh tensor, offset 0 elements into its buffer beyond
// t.offset()) in place: rows of n complex values, or of 2 (n / 2 + 1) reals for the real kinds.
void transform_rows(const Tensor& t, std::uint64_t n, std::uint64_t rows, bool real, bool inverse, bool dbl) {
  ClDevice& d = cl_device(t.device());
  const std::uint64_t row_bytes = (real ? 2 * (n / 2 + 1) : 2 * n) * (dbl ? 8 : 4);
  cl_mem data = buffer_of(t);
  cl_command_queue queue = d.compute();
  PlanCache& cache = plan_cache();
  std::lock_guard lock(cache.mutex);
  std::uint64_t done = 0;
  for (int bit = 63; bit >= 0; --bit) {
    const std::uint64_t chunk = std::uint64_t{1} << bit;
    if ((rows & chunk) == 0) continue;
    Plan& plan = cache.get(PlanKey{t.device().index, n, chunk, real, dbl}, d, data);
    VkFFTLaunchParams launch{};
    launch.commandQueue = &queue;
    launch.buffer = &data;
    launch.bufferOffset = static_cast<std::uint64_t>(t.offset()) * t.itemsize() + done * row_bytes;
    ACC_VKFFT_CHECK(VkFFTAppend(&plan.app, inverse ? 1 : -1, &launch), "running a transform");
    done += chunk;
  }
}

// The longest real transform run on VkFFT's real-to-complex plans (Note [OpenCL Fourier transforms]).
constexpr std::int64_t max_real_plan_length = 8192;

// The transform of `kind` of t along `axis` (length n: the real length for r2c and c2r), as a view of a
// new tensor with t's axis order. `dest`, when defined, is a contiguous tensor of the result's shape that
// the result may be computed in (saving a copy at the end): used when the axis is the last one.
Tensor along_axis(const Tensor& t, std::int64_t axis, FftKind kind, std::int64_t n, bool forward, bool dbl,
                  const Tensor& dest = Tensor()) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(t.ndim()));
  std::iota(order.begin(), order.end(), 0);
  std::swap(order[static_cast<std::size_t>(axis)], order.back());
  const Tensor permuted = t.permute(order);
  const DType real = dbl ? DType::f64 : DType::f32;
  const std::int64_t half = n / 2 + 1;
  Tensor result;
  if (n == 1) {  // the identity; r2c and c2r keep only the real part
    result = kind == FftKind::c2c ? permuted.clone()
             : kind == FftKind::r2c ? permuted.astype(complex_dtype(real))
                                    : accelera::real(permuted).clone();
    return result.permute(order);
  }
  const std::int64_t rows = permuted.numel() / permuted.dim(-1);
  const bool in_dest = dest.defined() && axis == t.ndim() - 1;
  const bool real_as_complex = kind != FftKind::c2c && (n % 2 == 1 || n > max_real_plan_length);
  switch (real_as_complex ? FftKind::c2c : kind) {
    case FftKind::c2c:
      if (kind == FftKind::c2c) {
        if (in_dest) copy_into(permuted, dest);
        result = in_dest ? dest : permuted.clone();
        if (rows > 0) transform_rows(result, n, rows, false, !forward, dbl);
      } else if (kind == FftKind::r2c) {
        result = permuted.astype(complex_dtype(real));
        if (rows > 0) transform_rows(result, n, rows, false, false, dbl);
        result = result.slice(-1, 0, half);
      } else {
        // The whole Hermitian spectrum: X[k] = conj(X[n - k]) for k >= n / 2 + 1.
        std::vector<std::int64_t> dims = permuted.shape().dims();
        dims.back() = n;
        const Tensor spectrum = Tensor::empty(Shape(dims), complex_dtype(real), t.device());
        copy_into(permuted, spectrum.slice(-1, 0, half));
        copy_into(conj(permuted.slice(-1, n - half, 0, -1)), spectrum.slice(-1, half, n));
        // The imaginary parts of the zero and Nyquist frequencies are ignored, as below.
        const Tensor imag = spectrum.view_as_real().select(-1, 1);
        const auto fill = kernel_for(op::fill, t.device(), real);
        fill(imag.slice(-1, 0, 1), 0.0);
        if (n % 2 == 0) fill(imag.slice(-1, n / 2, n / 2 + 1), 0.0);
        if (rows > 0) transform_rows(spectrum, n, rows, false, true, dbl);
        result = spectrum.view_as_real().select(-1, 0);
      }
      break;
    case FftKind::r2c: {
      // The padded rows are the complex result's rows seen as reals.
      std::vector<std::int64_t> dims = permuted.shape().dims();
      dims.back() = half;
      const Tensor complex_rows = in_dest ? dest : Tensor::empty(Shape(dims), complex_dtype(real), t.device());
      dims.back() = 2 * half;
      const Tensor padded = complex_rows.view_as_real().reshape(dims);
      copy_into(permuted, padded.slice(-1, 0, n));
      if (rows > 0) transform_rows(padded, n, rows, true, false, dbl);
      result = complex_rows;
      break;
    }
    case FftKind::c2r: {
      const Tensor buffer = permuted.clone();  // the inverse overwrites its input
      // The imaginary parts of the zero and Nyquist frequencies are ignored (as pocketfft and cuFFT do):
      // VkFFT would fold them into the result.
      const Tensor imag = buffer.view_as_real().select(-1, 1);
      const auto fill = kernel_for(op::fill, t.device(), real);
      fill(imag.slice(-1, 0, 1), 0.0);
      fill(imag.slice(-1, half - 1, half), 0.0);
      if (rows > 0) transform_rows(buffer, n, rows, true, true, dbl);
      std::vector<std::int64_t> dims = permuted.shape().dims();
      dims.back() = 2 * half;
      result = buffer.view_as_real().reshape(dims).slice(-1, 0, n);
      break;
    }
  }
  return result.permute(order);  // swapping two axes is its own inverse
}

void fft_kernel(FftKind kind, const Tensor& x, const Tensor& out, std::span<const std::int64_t> axes, bool forward,
                double scale) {
  const bool dbl = (kind == FftKind::c2r ? out.dtype() : real_dtype(x.dtype())) == DType::f64;
  ACC_CHECK(!dbl || cl_device(out.device()).fp64, DTypeError, "{} has no float64 support (cl_khr_fp64)",
            cl_device(out.device()).name);
  // The last step computes in `out` where it can (see along_axis); its axis is the last of `axes` but for
  // r2c over several axes, whose last step is the c2c transform of the last but one.
  const std::size_t last = axes.size() - 1;
  const std::size_t last_step = kind == FftKind::r2c && last > 0 ? last - 1 : last;
  const auto dest_at = [&](std::size_t step) { return kind != FftKind::c2r && step == last_step ? out : Tensor(); };
  Tensor current = x;
  if (kind == FftKind::r2c) {
    current = along_axis(current, axes[last], FftKind::r2c, x.dim(axes[last]), forward, dbl, dest_at(last));
  }
  for (std::size_t i = 0; i < last; ++i) {
    current = along_axis(current, axes[i], FftKind::c2c, current.dim(axes[i]), forward, dbl, dest_at(i));
  }
  if (kind == FftKind::c2c) {
    current = along_axis(current, axes[last], FftKind::c2c, current.dim(axes[last]), forward, dbl, dest_at(last));
  }
  if (kind == FftKind::c2r) current = along_axis(current, axes[last], FftKind::c2r, out.dim(axes[last]), forward, dbl);
  const bool in_out = current.shares_storage_with(out);
  if (scale == 1.0) {
    if (!in_out) copy_into(current, out);
    return;
  }
  // out = current * scale in one pass (in place when current is out), over real views.
  const Tensor from = is_complex(current.dtype()) ? current.view_as_real() : current;
  const Tensor to = is_complex(out.dtype()) ? out.view_as_real() : out;
  const DType real = to.dtype();
  kernel_for(op::multiply, out.device(), real)(from, full(Shape{}, scale, real, out.device()).broadcast_to(to.shape()),
                                               to);
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::fft, DeviceKind::opencl, dtypes::complex, &fft_kernel); }

}  // namespace accelera::opencl
