// Every unary element-wise function of ops/elementwise.hpp on OpenCL, generated from its one-line
// definition: the expression becomes the program's ACC_EXPRESSION (unary.cl, elementwise_math.cl).
#include "backends/opencl/elementwise_options.hpp"
#include "backends/opencl/layouts.hpp"
#include "ops/elementwise.hpp"

namespace accelera::opencl {

namespace {

constexpr std::size_t kLocal = 256;

template <const char* Name, const char* Expression>
void unary_kernel(const Tensor& x, const Tensor& out) {
  ClDevice& d = cl_device(out.device());
  const auto layout = backends::make_layout<2>(out.shape(), {&out.strides(), &x.strides()});
  // Dense float32 operands run eight elements per work-item (PoCL vectorises these far better).
  const bool vector8 = is_dense(layout) && out.dtype() == DType::f32;
  const std::string options = elementwise_options(d, x.dtype(), out.dtype()) + (is_dense(layout) ? " -DACC_CONTIGUOUS" : "") +
                              (vector8 ? " -DACC_VECTOR8" : "");
  const std::string prelude =
      elementwise_math_source() + "\n#define ACC_EXPRESSION(x) (" + Expression + ")\n";
  const Kernel kernel = make_kernel(d, "unary", options, prelude);
  KernelArgs(kernel.get())
      .add(static_cast<cl_int>(layout.dims.size()))
      .add(static_cast<cl_long>(layout.numel))
      .add(to_cl_layout(layout, Name))
      .add(buffer_of(out))
      .add(static_cast<cl_long>(out.offset()))
      .add(buffer_of(x))
      .add(static_cast<cl_long>(x.offset()));
  const auto items = static_cast<std::size_t>(vector8 ? (layout.numel + 7) / 8 : layout.numel);
  launch(d, kernel, items, kLocal, Name);
}

namespace names {
#define ACC_CL_UNARY_TEXT(name, kind, expression)        \
  constexpr char name##_name[] = #name;                  \
  constexpr char name##_expression[] = #expression;
ACC_UNARY_FUNCTIONS(ACC_CL_UNARY_TEXT)
#undef ACC_CL_UNARY_TEXT
}  // namespace names

}  // namespace

ACC_REGISTER_KERNELS {
#define ACC_CL_REGISTER_UNARY(name, kind, expression)                                                       \
  register_kernel(op::name, DeviceKind::opencl, elementwise_dtypes(ElementwiseKind::kind, dtypes::floating), \
                  &unary_kernel<names::name##_name, names::name##_expression>);
  ACC_UNARY_FUNCTIONS(ACC_CL_REGISTER_UNARY)
#undef ACC_CL_REGISTER_UNARY
}

}  // namespace accelera::opencl
