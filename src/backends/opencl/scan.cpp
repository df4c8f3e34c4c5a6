// cumulative_sum and cumulative_prod on OpenCL (scan.cl; Note [Scans] in ops/scan.hpp).
#include "backends/common/scan_blocks.hpp"
#include "backends/opencl/programs.hpp"
#include "ops/scan.hpp"

namespace accelera::opencl {

namespace {

constexpr std::size_t kLocal = 256;

enum class ScanPhase { totals, carries, apply };

// scan.cl's CPU-device forms: adjacent columns per work-item of the column form, and how the
// scanned axis splits into blocks so that every compute unit has several items.
constexpr std::int64_t kScanColumnChunk = 1024;

backends::ScanBlocks cpu_scan_blocks(const ClDevice& d, std::int64_t outer, std::int64_t n, std::int64_t inner) {
  if (n == 0) return {1, 0};
  const std::int64_t groups = std::max<std::int64_t>(
      1, inner == 1 ? outer : outer * ((inner + kScanColumnChunk - 1) / kScanColumnChunk));
  const std::int64_t wanted = 8 * std::max(d.compute_units, 1);
  // A block long enough that its share of the totals pass and the carries stays small.
  const std::int64_t min_rows = inner == 1 ? 4096 : 64;
  const std::int64_t blocks =
      std::clamp<std::int64_t>((wanted + groups - 1) / groups, 1, std::max<std::int64_t>(n / min_rows, 1));
  backends::ScanBlocks s{blocks, (n + blocks - 1) / blocks};
  if (inner == 1) s.block = (s.block + 15) / 16 * 16;  // whole vectors per block
  s.blocks = (n + s.block - 1) / s.block;
  return s;
}

template <bool Prod>
void scan_kernel(const Tensor& x, std::int64_t outer, std::int64_t n, std::int64_t inner, bool include_initial,
                 const Tensor& out) {
  ClDevice& d = cl_device(out.device());
  const bool floating = is_floating(out.dtype());
  const char* acc = floating ? (d.fp64 ? "double" : "float") : "ulong";
  const DType acc_dtype = floating ? (d.fp64 ? DType::f64 : DType::f32) : DType::i64;
  const bool cpu_forms = d.cpu_forms;
  const backends::ScanBlocks split =
      cpu_forms ? cpu_scan_blocks(d, outer, n, inner) : backends::device_scan_blocks(outer, n, inner);
  // Without blocks the apply phase reads no carries, but its argument still needs a valid buffer.
  const Tensor totals = Tensor::empty(Shape{split.blocks > 1 ? outer * split.blocks * inner : 1}, acc_dtype,
                                      out.device());
  std::string form;  // scan.cl's CPU-device form
  std::int64_t items = outer * split.blocks * inner;
  if (cpu_forms && inner == 1) {
    form = " -DLINES";
  } else if (cpu_forms) {
    form = fmt::format(" -DCOLUMNS -DCOLUMN_CHUNK={}", kScanColumnChunk);
    items = outer * ((inner + kScanColumnChunk - 1) / kScanColumnChunk) * split.blocks;
  }
  const auto run = [&](ScanPhase phase, std::int64_t count) {
    static constexpr const char* phase_macros[] = {"-DSCAN_TOTALS", "-DSCAN_CARRIES", ""};
    const bool chunks = cpu_forms && phase != ScanPhase::carries;  // the carries have one form
    const std::string options =
        fmt::format("{} -DACC={} {} {}{}", element_options(d, out.dtype()), acc, Prod ? "-DOP_PROD" : "",
                    phase_macros[static_cast<int>(phase)], chunks ? form : "");
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
    const std::size_t local = chunks ? chunked_group_size(d, static_cast<std::size_t>(count)) : kLocal;
    launch(d, kernel, static_cast<std::size_t>(count), local, "launching a scan");
  };
  if (split.blocks > 1) {
    run(ScanPhase::totals, items);
    run(ScanPhase::carries, outer * inner);
  }
  run(ScanPhase::apply, items);
}

}  // namespace

ACC_REGISTER_KERNELS {
  // The op computes int32 (and bool) scans in int64, so int32 never reaches the kernels.
  const DTypeSet computed = dtypes::floating | DTypeSet{DType::i64};
  register_kernel(op::cumulative_sum, DeviceKind::opencl, computed, &scan_kernel<false>);
  register_kernel(op::cumulative_prod, DeviceKind::opencl, computed, &scan_kernel<true>);
}

}  // namespace accelera::opencl
