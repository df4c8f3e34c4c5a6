// Every binary element-wise function of ops/elementwise.hpp on OpenCL, generated from its one-line
// definition: the expression becomes the program's ACC_EXPRESSION (binary.cl, elementwise_math.cl).
#include "backends/opencl/elementwise_options.hpp"
#include "backends/opencl/layouts.hpp"
#include "ops/elementwise.hpp"

namespace accelera::opencl {

namespace {

constexpr std::size_t kLocal = 256;

template <const char* Name, const char* Expression>
void binary_kernel(const Tensor& a, const Tensor& b, const Tensor& out) {
  ClDevice& d = cl_device(out.device());
  const auto layout = backends::make_layout<3>(out.shape(), {&out.strides(), &a.strides(), &b.strides()});
  const std::string options = elementwise_options(d, a.dtype(), out.dtype()) + linear_options(layout);
  const std::string prelude =
      elementwise_math_source() + "\n#define ACC_EXPRESSION(x, y) (" + Expression + ")\n";
  const Kernel kernel = make_kernel(d, "binary", options, prelude);
  KernelArgs(kernel.get())
      .add(static_cast<cl_int>(layout.dims.size()))
      .add(static_cast<cl_long>(layout.numel))
      .add(to_cl_layout(layout, Name))
      .add(buffer_of(out))
      .add(static_cast<cl_long>(out.offset()))
      .add(buffer_of(a))
      .add(static_cast<cl_long>(a.offset()))
      .add(buffer_of(b))
      .add(static_cast<cl_long>(b.offset()));
  launch(d, kernel, static_cast<std::size_t>(layout.numel), kLocal, Name);
}

namespace names {
#define ACC_CL_BINARY_TEXT(name, kind, expression) \
  constexpr char name##_name[] = #name;            \
  constexpr char name##_expression[] = #expression;
ACC_BINARY_FUNCTIONS(ACC_CL_BINARY_TEXT)
#undef ACC_CL_BINARY_TEXT
}  // namespace names

}  // namespace

ACC_REGISTER_KERNELS {
#define ACC_CL_REGISTER_BINARY(name, kind, expression)                                                      \
  register_kernel(op::name, DeviceKind::opencl, elementwise_dtypes(ElementwiseKind::kind, dtypes::floating), \
                  &binary_kernel<names::name##_name, names::name##_expression>);
  ACC_BINARY_FUNCTIONS(ACC_CL_REGISTER_BINARY)
#undef ACC_CL_REGISTER_BINARY
}

}  // namespace accelera::opencl
