// Philox random tensors on OpenCL (random.cl; Note [Counter-based random numbers] in ops/random.hpp).
#include "backends/opencl/programs.hpp"
#include "ops/random.hpp"

namespace accelera::opencl {

namespace {

constexpr std::size_t kLocal = 64;

const char* output_option(DType dtype) {
  switch (dtype) {
    case DType::f32: return "-DOUT_F32";
    case DType::f64: return "-DOUT_F64";
    case DType::f16: return "-DOUT_F16";
    case DType::bf16: return "-DOUT_BF16";
    case DType::i32: return "-DOUT_I32";
    case DType::i64: return "-DOUT_I64";
    default: break;
  }
  ACC_ASSERT(false, "the OpenCL random kernels were called for {}", dtype_name(dtype));
}

// Runs random.cl for distribution `dist` over the contiguous `out`. low and scale are rounded to the
// compute type (float, double for float64 outputs), as the CPU rounds them.
void launch_random(const Tensor& out, const char* dist, std::uint64_t seed, std::uint64_t offset, double low,
                   double scale, std::int64_t int_low, std::uint64_t range) {
  ClDevice& d = cl_device(out.device());
  ACC_CHECK(out.dtype() != DType::f64 || d.fp64, DTypeError, "{} has no float64 support (cl_khr_fp64)", d.name);
  // CPU devices run Philox on 8 blocks per work-item in vector lanes (random.cl).
  const std::size_t blocks_per_item = d.cpu_forms ? 8 : 1;
  const Kernel kernel = make_kernel(d, "random", fmt::format("-D{} {}{}", dist, output_option(out.dtype()),
                                                             d.cpu_forms ? " -DVECTOR_BLOCKS" : ""),
                                    embedded_source("half_pi_trig"));  // normals' cosine and sine
  const cl_long n = out.numel();
  KernelArgs args(kernel.get());
  args.add(n).add(buffer_of(out)).add(static_cast<cl_long>(out.offset())).add(static_cast<cl_ulong>(seed))
      .add(static_cast<cl_ulong>(offset));
  if (out.dtype() == DType::f64) {
    args.add(static_cast<cl_double>(low)).add(static_cast<cl_double>(scale));
  } else {
    args.add(static_cast<cl_float>(low)).add(static_cast<cl_float>(scale));
  }
  args.add(static_cast<cl_long>(int_low)).add(static_cast<cl_ulong>(range));
  const auto blocks = static_cast<std::size_t>((n + 3) / 4);
  launch(d, kernel, (blocks + blocks_per_item - 1) / blocks_per_item, kLocal, "launching random");
}

void uniform_kernel(const Tensor& out, std::uint64_t seed, std::uint64_t offset, double low, double scale) {
  launch_random(out, "UNIFORM", seed, offset, low, scale, 0, 0);
}

void normal_kernel(const Tensor& out, std::uint64_t seed, std::uint64_t offset, double loc, double scale) {
  launch_random(out, "NORMAL", seed, offset, loc, scale, 0, 0);
}

void integers_kernel(const Tensor& out, std::uint64_t seed, std::uint64_t offset, std::int64_t low,
                     std::uint64_t range) {
  launch_random(out, "INTEGERS", seed, offset, 0, 0, low, range);
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::random_uniform, DeviceKind::opencl, dtypes::floating | dtypes::half, &uniform_kernel);
  register_kernel(op::random_normal, DeviceKind::opencl, dtypes::floating | dtypes::half, &normal_kernel);
  // The op draws the other integer dtypes as int64 (ops/random.cpp).
  register_kernel(op::random_integers, DeviceKind::opencl, DTypeSet{DType::i32, DType::i64}, &integers_kernel);
}

}  // namespace accelera::opencl
