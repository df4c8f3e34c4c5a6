// The complex element-wise kernels of Note [Complex element-wise functions] on OpenCL: complex_math.cl on
// float2 (complex64) and double2 (complex128, where the device has cl_khr_fp64), one program per function.
#include <string>

#include "backends/opencl/layouts.hpp"
#include "ops/complex_elementwise.hpp"

namespace accelera::opencl {

namespace {

constexpr std::size_t kLocal = 256;

std::string unary_function(ComplexUnary fn) {
  switch (fn) {
#define ACC_CL_COMPLEX_NAME(name) \
  case ComplexUnary::name: return "c_" #name;
    ACC_COMPLEX_UNARY_FUNCTIONS(ACC_CL_COMPLEX_NAME)
#undef ACC_CL_COMPLEX_NAME
    case ComplexUnary::abs: return "c_abs";
    case ComplexUnary::isnan: return "(uchar)(isnan(z.x) || isnan(z.y))";
    case ComplexUnary::isinf: return "(uchar)(isinf(z.x) || isinf(z.y))";
    case ComplexUnary::isfinite: return "(uchar)(isfinite(z.x) && isfinite(z.y))";
  }
  return {};
}

std::string binary_function(ComplexBinary fn) {
  switch (fn) {
    case ComplexBinary::multiply: return "c_mul";
    case ComplexBinary::divide: return "c_div";
    case ComplexBinary::pow: return "c_pow";
    case ComplexBinary::equal: return "(uchar)(a.x == b.x && a.y == b.y)";
    case ComplexBinary::not_equal: return "(uchar)(a.x != b.x || a.y != b.y)";
  }
  return {};
}

// Build options: T, the part type, and OT, the output's.
std::string type_options(ClDevice& d, DType complex, DType result) {
  const std::string part = element_options(d, real_dtype(complex));  // checks float64 support
  const char* out = result == DType::boolean ? "uchar" : is_complex(result) ? "C" : "T";
  return part + " -DOT=" + out;
}

// The function as a macro of one (two) operands: a name applies to them, an expression uses z (a, b).
std::string function_macro(const std::string& fn, bool binary) {
  const bool is_name = fn.rfind("c_", 0) == 0;
  if (binary) return "#define ACC_COMPLEX_FN(a, b) " + (is_name ? fn + "(a, b)" : fn) + "\n";
  return "#define ACC_COMPLEX_FN(z) " + (is_name ? fn + "(z)" : fn) + "\n";
}

void complex_unary_kernel(ComplexUnary fn, const Tensor& x, const Tensor& out) {
  ClDevice& d = cl_device(out.device());
  const auto layout = backends::make_layout<2>(out.shape(), {&out.strides(), &x.strides()});
  const std::string options = type_options(d, x.dtype(), out.dtype()) + (is_dense(layout) ? " -DACC_CONTIGUOUS" : "");
  const std::string prelude = std::string(embedded_source("complex_math")) + "\n" + function_macro(unary_function(fn), false);
  const Kernel kernel = make_kernel(d, "complex_unary", options, prelude);
  KernelArgs(kernel.get())
      .add(static_cast<cl_int>(layout.dims.size()))
      .add(static_cast<cl_long>(layout.numel))
      .add(to_cl_layout(layout, "complex_unary"))
      .add(buffer_of(out))
      .add(static_cast<cl_long>(out.offset()))
      .add(buffer_of(x))
      .add(static_cast<cl_long>(x.offset()));
  launch(d, kernel, static_cast<std::size_t>(layout.numel), kLocal, "complex_unary");
}

void complex_binary_kernel(ComplexBinary fn, const Tensor& a, const Tensor& b, const Tensor& out) {
  ClDevice& d = cl_device(out.device());
  const auto layout = backends::make_layout<3>(out.shape(), {&out.strides(), &a.strides(), &b.strides()});
  const std::string options = type_options(d, a.dtype(), out.dtype()) + (is_dense(layout) ? " -DACC_CONTIGUOUS" : "");
  const std::string prelude = std::string(embedded_source("complex_math")) + "\n" + function_macro(binary_function(fn), true);
  const Kernel kernel = make_kernel(d, "complex_binary", options, prelude);
  KernelArgs(kernel.get())
      .add(static_cast<cl_int>(layout.dims.size()))
      .add(static_cast<cl_long>(layout.numel))
      .add(to_cl_layout(layout, "complex_binary"))
      .add(buffer_of(out))
      .add(static_cast<cl_long>(out.offset()))
      .add(buffer_of(a))
      .add(static_cast<cl_long>(a.offset()))
      .add(buffer_of(b))
      .add(static_cast<cl_long>(b.offset()));
  launch(d, kernel, static_cast<std::size_t>(layout.numel), kLocal, "complex_binary");
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::complex_unary, DeviceKind::opencl, dtypes::complex, &complex_unary_kernel);
  register_kernel(op::complex_binary, DeviceKind::opencl, dtypes::complex, &complex_binary_kernel);
}

}  // namespace accelera::opencl
