// The OpenCL backend's element-wise kernels: copy (with conversion), fill, binary, unary, reduce.
#include <algorithm>
#include <cstring>

#include "backends/common/reduce_axes.hpp"
#include "backends/common/strided_loop.hpp"
#include "backends/opencl/opencl_backend.hpp"
#include "backends/opencl/programs.hpp"

namespace accelera::opencl {

namespace {

constexpr std::size_t kLocal = 256;

template <std::size_t N>
ClLayout to_cl_layout(const backends::LoopLayout<N>& layout, const char* op) {
  ACC_CHECK(layout.dims.size() <= static_cast<std::size_t>(kMaxDims), NotSupportedError,
            "{} on OpenCL: {} non-mergeable axes exceed the limit of {}", op, layout.dims.size(), kMaxDims);
  ClLayout cl{};
  for (std::size_t d = 0; d < layout.dims.size(); ++d) {
    cl.dims[d] = layout.dims[d];
    for (std::size_t k = 0; k < N; ++k) cl.strides[k][d] = layout.strides[k][d];
  }
  return cl;
}

// Dense operands (one coalesced axis of unit stride) take the kernels' index-free path.
template <std::size_t N>
const char* contiguous_option(const backends::LoopLayout<N>& layout) {
  if (layout.dims.size() != 1) return "";
  for (std::size_t k = 0; k < N; ++k) {
    if (layout.strides[k][0] != 1) return "";
  }
  return " -DACC_CONTIGUOUS";
}

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
    case DType::i32: return "int";
    case DType::i64: return "long";
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
    options += fmt::format(" -DDST_INT_FROM_FLOAT -DDST_MIN={}", dst == DType::i32 ? "INT_MIN" : "LONG_MIN");
  }
  return options;
}

}  // namespace

void OpenClBackend::copy(const Tensor& src, const Tensor& dst) {
  ClDevice& d = device(dst.device().index);
  const auto layout = backends::make_layout<2>(dst.shape(), {&dst.strides(), &src.strides()});
  if (layout.numel == 0) return;
  const Kernel kernel = make_kernel(d, "copy", copy_options(d, src.dtype(), dst.dtype()));
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

void OpenClBackend::fill(const Tensor& dst, double value) {
  ClDevice& d = device(dst.device().index);
  if (dst.numel() == 0) return;
  ACC_ASSERT(dst.is_contiguous(), "fill expects a contiguous tensor");
  // The pattern is the value converted exactly as the CPU backend converts it.
  const Tensor pattern = Tensor::empty(Shape{}, dst.dtype());
  backend_for(Device::cpu()).fill(pattern, value);
  ACC_CL_CHECK(clEnqueueFillBuffer(d.compute(), buffer_of(dst), pattern.data_ptr(), dst.itemsize(),
                                   dst.offset() * dst.itemsize(), dst.nbytes(), 0, nullptr, nullptr),
               "filling a buffer");
  // The pattern lives on the host stack of this call: the fill must have read it before we return.
  ACC_CL_CHECK(clFinish(d.compute()), "waiting for a fill");
}

void OpenClBackend::binary(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out) {
  ClDevice& d = device(out.device().index);
  static constexpr const char* macros[] = {"-DOP_ADD", "-DOP_SUB", "-DOP_MUL", "-DOP_DIV"};
  ACC_CHECK(op != BinaryOp::divide || is_floating(out.dtype()), DTypeError, "divide computes floats only");
  const auto layout = backends::make_layout<3>(out.shape(), {&out.strides(), &a.strides(), &b.strides()});
  const Kernel kernel = make_kernel(
      d, "binary", element_options(d, out.dtype()) + " " + macros[static_cast<int>(op)] + contiguous_option(layout));
  KernelArgs(kernel.get())
      .add(static_cast<cl_int>(layout.dims.size()))
      .add(static_cast<cl_long>(layout.numel))
      .add(to_cl_layout(layout, binary_op_name(op).data()))
      .add(buffer_of(out))
      .add(static_cast<cl_long>(out.offset()))
      .add(buffer_of(a))
      .add(static_cast<cl_long>(a.offset()))
      .add(buffer_of(b))
      .add(static_cast<cl_long>(b.offset()));
  launch(d, kernel, static_cast<std::size_t>(layout.numel), kLocal, "launching a binary kernel");
}

void OpenClBackend::unary(UnaryOp op, const Tensor& x, const Tensor& out) {
  ClDevice& d = device(out.device().index);
  static constexpr const char* macros[] = {"-DOP_NEG", "-DOP_EXP", "-DOP_LOG", "-DOP_TANH", "-DOP_RELU",
                                           "-DOP_SIGMOID"};
  const bool integer_ok = op == UnaryOp::neg || op == UnaryOp::relu;
  ACC_CHECK(integer_ok || is_floating(out.dtype()), DTypeError, "{} computes floats only", unary_op_name(op));
  const auto layout = backends::make_layout<2>(out.shape(), {&out.strides(), &x.strides()});
  // Dense float exp and sigmoid run eight elements per work-item (kernels/unary.cl, OP8).
  const bool vector8 = *contiguous_option(layout) != '\0' && out.dtype() == DType::f32 &&
                       (op == UnaryOp::exp || op == UnaryOp::sigmoid);
  const Kernel kernel =
      make_kernel(d, "unary", element_options(d, out.dtype()) + " " + macros[static_cast<int>(op)] +
                                   contiguous_option(layout));
  KernelArgs(kernel.get())
      .add(static_cast<cl_int>(layout.dims.size()))
      .add(static_cast<cl_long>(layout.numel))
      .add(to_cl_layout(layout, unary_op_name(op).data()))
      .add(buffer_of(out))
      .add(static_cast<cl_long>(out.offset()))
      .add(buffer_of(x))
      .add(static_cast<cl_long>(x.offset()));
  const auto items = static_cast<std::size_t>(vector8 ? (layout.numel + 7) / 8 : layout.numel);
  launch(d, kernel, items, kLocal, "launching a unary kernel");
}

void OpenClBackend::reduce(ReduceOp op, const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out) {
  ClDevice& d = device(out.device().index);
  const auto split = backends::split_axes(x, axes, out);
  const Strides zeros(split.reduced_x.size(), 0);
  const auto kept = backends::make_layout<2>(split.kept_shape, {&split.kept_out, &split.kept_x});
  // The reduced layout's x strides go in slot 1, as the kernel reads them.
  const auto reduced = backends::make_layout<2>(split.reduced_shape, {&zeros, &split.reduced_x});
  const bool floating = is_floating(out.dtype());
  const char* acc = floating ? (d.fp64 ? "double" : "float") : "long";
  const char* lowest = floating ? "(-INFINITY)" : (out.dtype() == DType::i32 ? "INT_MIN" : "LONG_MIN");
  static constexpr const char* macros[] = {"-DOP_SUM", "-DOP_MEAN", "-DOP_MAX"};
  const std::string options = fmt::format("{} -DACC={} -DACC_LOWEST={} {}", element_options(d, out.dtype()),
                                          op == ReduceOp::max ? "T" : acc, lowest, macros[static_cast<int>(op)]);
  const std::size_t local = std::min<std::size_t>(64, d.max_work_group);
  const std::size_t acc_size = op == ReduceOp::max ? out.itemsize() : 8;
  const Kernel kernel = make_kernel(d, "reduce", options);
  KernelArgs(kernel.get())
      .add(static_cast<cl_int>(kept.dims.size()))
      .add(to_cl_layout(kept, "reduce"))
      .add(static_cast<cl_int>(reduced.dims.size()))
      .add(static_cast<cl_long>(reduced.numel))
      .add(to_cl_layout(reduced, "reduce"))
      .add(buffer_of(out))
      .add(static_cast<cl_long>(out.offset()))
      .add(buffer_of(x))
      .add(static_cast<cl_long>(x.offset()))
      .local(local * (d.fp64 || !floating || op == ReduceOp::max ? acc_size : 4));
  launch(d, kernel, static_cast<std::size_t>(kept.numel) * local, local, "launching a reduction");
}

}  // namespace accelera::opencl
