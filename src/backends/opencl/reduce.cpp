// The reductions sum, mean, prod, max and min on OpenCL (ops/reduce.hpp; the launch forms in reduce.cl).
#include <algorithm>
#include <utility>

#include "backends/common/reduce_axes.hpp"
#include "backends/opencl/layouts.hpp"
#include "backends/opencl/reduce_plan.hpp"
#include "ops/reduce.hpp"

namespace accelera::opencl {

namespace {

enum class ReduceOp { sum, mean, max, min, prod, squared_deviations };

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

// center: sum_squared_deviations' operand with out's layout (undefined for the other ops).
template <ReduceOp Op>
void reduce_into(const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out, const Tensor& center) {
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
  static constexpr const char* macros[] = {"-DOP_SUM", "-DOP_MEAN", "-DOP_MAX", "-DOP_MIN", "-DOP_PROD", "-DOP_SQDEV"};
  constexpr bool extremum = Op == ReduceOp::max || Op == ReduceOp::min;
  const auto options_for = [&](const char* op_macro) {
    return fmt::format("{} -DACC={} -DACC_LOWEST={} -DACC_HIGHEST={} -DACC_BITS={} {}", element_options(d, out.dtype()),
                       extremum ? "T" : acc, lowest, highest, acc_bits, op_macro) +
           (reduced.dims.size() == 1 ? " -DREDUCED_1D" : "");
  };
  const std::string options = options_for(macros[static_cast<int>(Op)]);
  // The squared deviations' partials combine as a sum.
  const std::string final_options = Op == ReduceOp::squared_deviations ? options_for("-DOP_SUM") : options;
  // Without a center the kernel's argument still needs a buffer: x's, never read.
  const Tensor& center_arg = center.defined() ? center : x;
  const std::size_t local = std::min<std::size_t>(64, d.max_work_group);
  const std::size_t acc_size = extremum ? out.itemsize() : (d.fp64 || !floating ? 8 : 4);
  const DType acc_dtype = extremum ? out.dtype() : (!floating ? DType::i64 : (d.fp64 ? DType::f64 : DType::f32));
  const ReducePlan plan = plan_reduction(d, kept, reduced);
  const auto run = [&](const std::string& form, const Tensor& dst, const Tensor& src, std::int64_t count,
                       std::int64_t parts, std::size_t global, std::size_t local_size) {
    const Kernel kernel = make_kernel(d, "reduce", form);
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
        .add(static_cast<cl_long>(kept.numel))
        .local(local_size * acc_size)
        .add(buffer_of(center_arg))
        .add(static_cast<cl_long>(center.defined() ? center.offset() : 0));
    launch(d, kernel, global, local_size, "launching a reduction");
  };
  const auto outputs = static_cast<std::size_t>(kept.numel);
  if (chunked_reduction(d, reduced) && Op != ReduceOp::prod) {
    const std::size_t items = outputs * static_cast<std::size_t>(plan.parts);
    const std::size_t group = chunked_group_size(d, items);
    if (plan.parts > 1) {
      const Tensor partials = Tensor::empty(Shape{kept.numel * plan.parts}, acc_dtype, out.device());
      run(options + " -DCHUNKED -DPARTIAL_PASS", partials, x, reduced.numel, plan.parts, items, group);
      run(final_options + " -DFINAL_PASS -DITEM_PER_OUTPUT", out, partials, plan.parts, plan.parts, outputs,
          chunked_group_size(d, outputs));
    } else {
      run(options + " -DCHUNKED", out, x, reduced.numel, 1, items, group);
    }
  } else if (const RowBlocks rows = row_blocks(d, kept, reduced); rows.items > 0 && Op != ReduceOp::prod) {
    const std::string form = options + fmt::format(" -DROW_BLOCKS -DCOLUMN_CHUNK={}", kColumnChunk);
    const std::size_t group = chunked_group_size(d, rows.items);
    if (rows.parts > 1) {
      const Tensor partials = Tensor::empty(Shape{kept.numel * rows.parts}, acc_dtype, out.device());
      run(form + " -DPARTIAL_PASS", partials, x, reduced.numel, rows.parts, rows.items, group);
      run(final_options + " -DFINAL_PASS -DITEM_PER_OUTPUT", out, partials, rows.parts, rows.parts, outputs,
          chunked_group_size(d, outputs));
    } else {
      run(form, out, x, reduced.numel, 1, rows.items, group);
    }
  } else if (plan.per_item) {
    // `parts` carries the number of outputs; the work-group size is free, so no local memory is used.
    run(options + " -DPER_ITEM", out, x, reduced.numel, kept.numel, outputs, local);
  } else if (plan.parts > 1) {
    const Tensor partials = Tensor::empty(Shape{kept.numel * plan.parts}, acc_dtype, out.device());
    run(options + " -DPARTIAL_PASS", partials, x, reduced.numel, plan.parts,
        outputs * static_cast<std::size_t>(plan.parts) * local, local);
    run(final_options + " -DFINAL_PASS", out, partials, plan.parts, plan.parts, outputs * local, local);
  } else {
    run(options, out, x, reduced.numel, 1, outputs * local, local);
  }
}

template <ReduceOp Op>
void reduce_kernel(const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out) {
  reduce_into<Op>(x, axes, out, Tensor{});
}

void sum_squared_deviations_kernel(const Tensor& x, const Tensor& center, std::span<const std::int64_t> axes,
                                   const Tensor& out) {
  reduce_into<ReduceOp::squared_deviations>(x, axes, out, center);
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
  register_kernel(op::sum_squared_deviations, DeviceKind::opencl, dtypes::floating, &sum_squared_deviations_kernel);
}

}  // namespace accelera::opencl
