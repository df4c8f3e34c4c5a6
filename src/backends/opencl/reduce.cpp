// The reductions sum, mean, prod, max and min on OpenCL (ops/reduce.hpp; the launch forms in reduce.cl).
#include <algorithm>
#include <utility>

#include "backends/common/reduce_axes.hpp"
#include "backends/opencl/layouts.hpp"
#include "backends/opencl/reduce_plan.hpp"
#include "ops/reduce.hpp"

namespace accelera::opencl {

namespace {

enum class ReduceOp { sum, mean, max, min, prod };

// The OpenCL C names of the lowest and highest values of `dtype` (infinities for floats).
std::pair<const char*, const char*> integer_limits(DType dtype) {
  switch (dtype) {
    case DType::i8: return {"SCHAR_MIN", "SCHAR_MAX"};
    case DType::i16: return {"SHRT_MIN", "SHRT_MAX"};
    case DType::i32: return {"INT_MIN", "INT_MAX"};
    case DType::i64: return {"LONG_MIN", "LONG_MAX"};
    case DType::u8: return {"0", "UCHAR_MAX"};
    case DType::u16: return {"0", "USHRT_MAX"};
    case DType::u32: return {"0", "UINT_MAX"};
    case DType::u64: return {"0", "ULONG_MAX"};
    default: return {"(-INFINITY)", "INFINITY"};
  }
}

template <ReduceOp Op>
void reduce_kernel(const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out) {
  ClDevice& d = cl_device(out.device());
  const auto split = backends::split_axes(x, axes, out);
  const Strides zeros(split.reduced_x.size(), 0);
  const auto kept = backends::make_layout<2>(split.kept_shape, {&split.kept_out, &split.kept_x});
  // The reduced layout's x strides go in slot 1, as the kernel reads them.
  const auto reduced = backends::make_layout<2>(split.reduced_shape, {&zeros, &split.reduced_x});
  const bool floating = is_floating(out.dtype());
  const char* acc = floating ? (d.fp64 ? "double" : "float") : "long";
  const auto [lowest, highest] = integer_limits(out.dtype());
  // Integer products multiply as unsigned so that overflow wraps (signed overflow is undefined in C).
  const char* acc_bits = floating ? acc : "ulong";
  static constexpr const char* macros[] = {"-DOP_SUM", "-DOP_MEAN", "-DOP_MAX", "-DOP_MIN", "-DOP_PROD"};
  constexpr bool extremum = Op == ReduceOp::max || Op == ReduceOp::min;
  const std::string options =
      fmt::format("{} -DACC={} -DACC_LOWEST={} -DACC_HIGHEST={} -DACC_BITS={} {}", element_options(d, out.dtype()),
                  extremum ? "T" : acc, lowest, highest, acc_bits, macros[static_cast<int>(Op)]) +
      (reduced.dims.size() == 1 ? " -DREDUCED_1D" : "");
  const std::size_t local = std::min<std::size_t>(64, d.max_work_group);
  const std::size_t acc_size = extremum ? out.itemsize() : (d.fp64 || !floating ? 8 : 4);
  const DType acc_dtype = extremum ? out.dtype() : (!floating ? DType::i64 : (d.fp64 ? DType::f64 : DType::f32));
  const ReducePlan plan = plan_reduction(d, kept, reduced);
  const auto run = [&](const char* form, const Tensor& dst, const Tensor& src, std::int64_t count, std::int64_t parts,
                       std::size_t global, std::size_t local_size) {
    const Kernel kernel = make_kernel(d, "reduce", options + form);
    KernelArgs(kernel.get())
        .add(static_cast<cl_int>(kept.dims.size()))
        .add(to_cl_layout(kept, "reduce"))
        .add(static_cast<cl_int>(reduced.dims.size()))
        .add(static_cast<cl_long>(count))
        .add(to_cl_layout(reduced, "reduce"))
        .add(buffer_of(dst))
        .add(static_cast<cl_long>(dst.offset()))
        .add(buffer_of(src))
        .add(static_cast<cl_long>(src.offset()))
        .add(static_cast<cl_long>(parts))
        .add(static_cast<cl_long>(reduced.numel))
        .local(local_size * acc_size);
    launch(d, kernel, global, local_size, "launching a reduction");
  };
  const auto outputs = static_cast<std::size_t>(kept.numel);
  if (plan.per_item) {
    // `parts` carries the number of outputs; the work-group size is free, so no local memory is used.
    run(" -DPER_ITEM", out, x, reduced.numel, kept.numel, outputs, local);
  } else if (plan.parts > 1) {
    const Tensor partials = Tensor::empty(Shape{kept.numel * plan.parts}, acc_dtype, out.device());
    run(" -DPARTIAL_PASS", partials, x, reduced.numel, plan.parts, outputs * static_cast<std::size_t>(plan.parts) * local,
        local);
    run(" -DFINAL_PASS", out, partials, plan.parts, plan.parts, outputs * local, local);
  } else {
    run("", out, x, reduced.numel, 1, outputs * local, local);
  }
}

}  // namespace

ACC_REGISTER_KERNELS {
  // The op sums every integer dtype and bool as int64 (Note [Integer accumulation] in ops/common.hpp).
  register_kernel(op::sum, DeviceKind::opencl, dtypes::floating | DTypeSet{DType::i64}, &reduce_kernel<ReduceOp::sum>);
  register_kernel(op::mean, DeviceKind::opencl, dtypes::floating, &reduce_kernel<ReduceOp::mean>);
  register_kernel(op::max, DeviceKind::opencl, dtypes::arithmetic, &reduce_kernel<ReduceOp::max>);
  register_kernel(op::min, DeviceKind::opencl, dtypes::arithmetic, &reduce_kernel<ReduceOp::min>);
  register_kernel(op::prod, DeviceKind::opencl, dtypes::floating | DTypeSet{DType::i64},
                  &reduce_kernel<ReduceOp::prod>);
}

}  // namespace accelera::opencl
