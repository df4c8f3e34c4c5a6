// cumulative_sum, cumulative_prod and the positions of nonzero on OpenCL (scan.cl, scan_positions.cl;
// Note [Scans] in ops/scan.hpp).
#include "backends/common/scan_blocks.hpp"
#include "backends/opencl/programs.hpp"
#include "ops/scan.hpp"

namespace accelera::opencl {

namespace {

constexpr std::size_t kLocal = 256;

enum class ScanPhase { totals, carries, apply };

template <bool Prod>
void scan_kernel(const Tensor& x, std::int64_t outer, std::int64_t n, std::int64_t inner, bool include_initial,
                 const Tensor& out) {
  ClDevice& d = cl_device(out.device());
  const bool floating = is_floating(out.dtype());
  const char* acc = floating ? (d.fp64 ? "double" : "float") : "ulong";
  const DType acc_dtype = floating ? (d.fp64 ? DType::f64 : DType::f32) : DType::i64;
  const backends::ScanBlocks split = backends::device_scan_blocks(outer, n, inner);
  // Without blocks the apply phase reads no carries, but its argument still needs a valid buffer.
  const Tensor totals = Tensor::empty(Shape{split.blocks > 1 ? outer * split.blocks * inner : 1}, acc_dtype,
                                      out.device());
  const auto run = [&](ScanPhase phase, std::int64_t items) {
    static constexpr const char* phase_macros[] = {"-DSCAN_TOTALS", "-DSCAN_CARRIES", ""};
    const std::string options = fmt::format("{} -DACC={} {} {}", element_options(d, out.dtype()), acc,
                                            Prod ? "-DOP_PROD" : "", phase_macros[static_cast<int>(phase)]);
    const Kernel kernel = make_kernel(d, "scan", options);
    KernelArgs(kernel.get())
        .add(static_cast<cl_long>(outer))
        .add(static_cast<cl_long>(n))
        .add(static_cast<cl_long>(inner))
        .add(static_cast<cl_long>(split.blocks))
        .add(static_cast<cl_long>(split.block))
        .add(static_cast<cl_int>(include_initial ? 1 : 0))
        // An empty x (only the initial values are written) has no buffer; the kernel reads none of it.
        .add(buffer_of(x.numel() > 0 ? x : totals))
        .add(static_cast<cl_long>(x.offset()))
        .add(buffer_of(out))
        .add(static_cast<cl_long>(out.offset()))
        .add(buffer_of(totals));
    launch(d, kernel, static_cast<std::size_t>(items), kLocal, "launching a scan");
  };
  if (split.blocks > 1) {
    run(ScanPhase::totals, outer * split.blocks * inner);
    run(ScanPhase::carries, outer * inner);
  }
  run(ScanPhase::apply, outer * split.blocks * inner);
}

void scan_positions_kernel(const Tensor& counts, const Tensor& positions) {
  ClDevice& d = cl_device(counts.device());
  const Kernel kernel = make_kernel(d, "scan_positions", "");
  KernelArgs(kernel.get())
      .add(static_cast<cl_long>(counts.numel()))
      .add(buffer_of(counts))
      .add(static_cast<cl_long>(counts.offset()))
      .add(buffer_of(positions))
      .add(static_cast<cl_long>(positions.offset()));
  launch(d, kernel, static_cast<std::size_t>(counts.numel()), kLocal, "launching scan_positions");
}

}  // namespace

ACC_REGISTER_KERNELS {
  // The op computes int32 (and bool) scans in int64, so int32 never reaches the kernels.
  const DTypeSet computed = dtypes::floating | DTypeSet{DType::i64};
  register_kernel(op::cumulative_sum, DeviceKind::opencl, computed, &scan_kernel<false>);
  register_kernel(op::cumulative_prod, DeviceKind::opencl, computed, &scan_kernel<true>);
  register_kernel(op::scan_positions, DeviceKind::opencl, DTypeSet{DType::i64}, &scan_positions_kernel);
}

}  // namespace accelera::opencl
