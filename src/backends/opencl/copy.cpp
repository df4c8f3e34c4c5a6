// The copy kernel on OpenCL (core/copy_kernel.hpp): strided, converting between any two stored dtypes
// (copy.cl).
#include "backends/opencl/layouts.hpp"
#include "core/copy_kernel.hpp"

namespace accelera::opencl {

namespace {

constexpr std::size_t kLocal = 256;

const char* storage_macro(DType dtype, bool source) {
  switch (dtype) {
    case DType::f16: return source ? "-DSRC_F16" : "-DDST_F16";
    case DType::bf16: return source ? "-DSRC_BF16" : "-DDST_BF16";
    case DType::boolean: return source ? "-DSRC_BOOL" : "-DDST_BOOL";
    default: return nullptr;
  }
}

const char* plain_type(DType dtype) {
  switch (dtype) {
    case DType::f32: return "float";
    case DType::f64: return "double";
    case DType::i8: return "char";
    case DType::i16: return "short";
    case DType::i32: return "int";
    case DType::i64: return "long";
    case DType::u8: return "uchar";
    case DType::u16: return "ushort";
    case DType::u32: return "uint";
    case DType::u64: return "ulong";
    default: return nullptr;
  }
}

std::string copy_options(const ClDevice& device, DType src, DType dst) {
  ACC_CHECK(device.fp64 || (src != DType::f64 && dst != DType::f64), DTypeError, "{} has no float64 support",
            device.name);
  std::string options;
  if (const char* m = storage_macro(src, true)) options += std::string(" ") + m;
  else options += fmt::format(" -DS={}", plain_type(src));
  if (const char* m = storage_macro(dst, false)) options += std::string(" ") + m;
  else options += fmt::format(" -DD={}", plain_type(dst));
  const bool src_int = is_integral(src) || src == DType::boolean;
  const bool dst_int = is_integral(dst) || dst == DType::boolean;
  // Integer to integer converts exactly through long; anything else through double (or float).
  options += (src_int && dst_int) ? " -DCT=long" : (device.fp64 ? " -DCT=double" : " -DCT=float");
  if (is_integral(dst) && !src_int) {
    // As the CPU (core/convert.hpp): through int for the signed types narrower than 64 bits, through long
    // for int64 and the unsigned ones, keeping the low bits; uint64 takes [2^63, 2^64) directly.
    const bool via_int = !is_unsigned(dst) && dtype_size(dst) < 8;
    options += fmt::format(" -DDST_INT_FROM_FLOAT -DVIA={} -DVIA_MIN={}", via_int ? "int" : "long",
                           via_int ? "INT_MIN" : "LONG_MIN");
    if (dst == DType::u64) options += " -DDST_U64";
  }
  return options;
}

void copy_kernel(const Tensor& src, const Tensor& dst) {
  ClDevice& d = cl_device(dst.device());
  const auto layout = backends::make_layout<2>(dst.shape(), {&dst.strides(), &src.strides()});
  if (layout.numel == 0) return;
  const bool dense = is_dense(layout);
  const Kernel kernel =
      make_kernel(d, "copy", copy_options(d, src.dtype(), dst.dtype()) + (dense ? " -DACC_CONTIGUOUS" : ""));
  KernelArgs(kernel.get())
      .add(static_cast<cl_int>(layout.dims.size()))
      .add(static_cast<cl_long>(layout.numel))
      .add(to_cl_layout(layout, "copy"))
      .add(buffer_of(dst))
      .add(static_cast<cl_long>(dst.offset()))
      .add(buffer_of(src))
      .add(static_cast<cl_long>(src.offset()));
  launch(d, kernel, static_cast<std::size_t>(layout.numel), kLocal, "launching copy");
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::copy, DeviceKind::opencl, dtypes::all, &copy_kernel); }

}  // namespace accelera::opencl
