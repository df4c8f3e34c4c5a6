// sort and argsort on OpenCL: (key, position) pairs per row (sort_init.cl) are sorted, then the values
// gathered and/or the positions written (sort_finish.cl). Ordering the pair, not the key alone, makes the
// order total, so the result is the stable order on every device. Two forms (Note [OpenCL kernel forms]):
// - work-groups (GPUs): a bitonic sort. Rows are padded to a power of 2 P; blocks of B pairs are sorted in
//   local memory, longer distances merged by one global pass per step, the short steps of each later stage
//   again in local memory. Its barriers cost a CPU device dearly (a 1 Mi row took 220 ms on PoCL).
// - CPU devices: an LSD radix sort, a key byte per pass (sort_radix.cl). A work-item takes a whole row when
//   there are rows enough to fill the device (sort_rows.cl); otherwise each row is cut into chunks and each
//   pass counts the chunks' digits, scans the counts and scatters (sort_radix_*.cl).
#include <algorithm>

#include "backends/opencl/layouts.hpp"
#include "backends/opencl/sort_keys.hpp"
#include "ops/sort.hpp"

namespace accelera::opencl {

namespace {

constexpr std::int64_t kMaxHalfBlock = 256;
// The radix form's chunks are no shorter than this: each chunk counts and scans 256 digits per pass.
constexpr std::int64_t kMinRadixChunk = 16384;

std::int64_t power_of_two_at_least(std::int64_t n) {
  std::int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

std::int64_t power_of_two_at_most(std::int64_t n) {
  std::int64_t p = 1;
  while (p * 2 <= n) p <<= 1;
  return p;
}

// The key complement of a descending sort, in the key type's width (16-bit keys live in a uint).
template <typename K>
K flip_of(std::size_t itemsize, bool descending) {
  if (!descending) return 0;
  return itemsize >= sizeof(K) ? static_cast<K>(~K{0}) : static_cast<K>((K{1} << (8 * itemsize)) - 1);
}

// The (key, position) pairs of every row, rows `stride` apart (the bitonic form pads rows to a power of 2).
struct Pairs {
  Tensor keys, at;
  std::int64_t stride;
};

Pairs make_pairs(ClDevice& d, const Tensor& x, std::int64_t stride, bool descending, const std::string& options) {
  const std::int64_t rows = x.dim(0), n = x.dim(1);
  const bool wide = x.itemsize() == 8;
  Pairs pairs{Tensor::empty(Shape{rows * stride}, wide ? DType::i64 : DType::i32, x.device()),
              Tensor::empty(Shape{rows * stride}, DType::i64, x.device()), stride};
  const Kernel init = make_kernel(d, "sort_init", options, sort_key_prelude());
  KernelArgs args(init.get());
  args.add(static_cast<cl_long>(rows)).add(static_cast<cl_long>(n)).add(static_cast<cl_long>(stride));
  args.add(buffer_of(x)).add(static_cast<cl_long>(x.offset())).add(buffer_of(pairs.keys)).add(buffer_of(pairs.at));
  if (wide) args.add(flip_of<cl_ulong>(x.itemsize(), descending));
  else args.add(flip_of<cl_uint>(x.itemsize(), descending));
  launch(d, init, static_cast<std::size_t>(rows * stride), 256, "launching sort_init");
  return pairs;
}

void bitonic_sort(ClDevice& d, const Pairs& pairs, std::int64_t rows, const std::string& options) {
  const std::int64_t P = pairs.stride;
  if (P == 1) return;
  const std::size_t key_size = pairs.keys.itemsize();
  const std::string_view prelude = sort_key_prelude();
  const Tensor& keys = pairs.keys;
  const Tensor& at = pairs.at;
  const std::int64_t half_block =
      std::min({P / 2, kMaxHalfBlock, power_of_two_at_most(static_cast<std::int64_t>(d.max_work_group))});
  const std::int64_t B = 2 * half_block;
  const auto count = static_cast<std::size_t>(rows * P / 2);
  const Kernel block = make_kernel(d, "sort_block", options, prelude);
  KernelArgs(block.get())
      .add(buffer_of(keys))
      .add(buffer_of(at))
      .add(static_cast<cl_long>(P))
      .local(static_cast<std::size_t>(B) * key_size)
      .local(static_cast<std::size_t>(B) * 8);
  launch(d, block, count, static_cast<std::size_t>(half_block), "launching sort_block");
  if (P == B) return;
  const Kernel global_step = make_kernel(d, "sort_merge_global", options, prelude);
  const Kernel block_steps = make_kernel(d, "sort_merge_block", options, prelude);
  KernelArgs(block_steps.get()).add(buffer_of(keys)).add(buffer_of(at)).add(static_cast<cl_long>(P));
  KernelArgs(global_step.get()).add(buffer_of(keys)).add(buffer_of(at)).add(static_cast<cl_long>(rows))
      .add(static_cast<cl_long>(P));
  for (std::int64_t k = 2 * B; k <= P; k <<= 1) {
    for (std::int64_t j = k / 2; j >= B; j >>= 1) {
      ACC_CL_CHECK(clSetKernelArg(global_step.get(), 4, sizeof(cl_long), &k), "setting sort_merge_global's stage");
      ACC_CL_CHECK(clSetKernelArg(global_step.get(), 5, sizeof(cl_long), &j), "setting sort_merge_global's step");
      launch(d, global_step, count, 256, "launching sort_merge_global");
    }
    const cl_long stage = k;
    ACC_CL_CHECK(clSetKernelArg(block_steps.get(), 3, sizeof(cl_long), &stage), "setting sort_merge_block's stage");
    ACC_CL_CHECK(clSetKernelArg(block_steps.get(), 4, static_cast<std::size_t>(B) * key_size, nullptr),
                 "setting sort_merge_block's local keys");
    ACC_CL_CHECK(clSetKernelArg(block_steps.get(), 5, static_cast<std::size_t>(B) * 8, nullptr),
                 "setting sort_merge_block's local positions");
    launch(d, block_steps, count, static_cast<std::size_t>(half_block), "launching sort_merge_block");
  }
}

// Returns the positions in sorted order: pairs.at, or the scratch the last pass wrote.
Tensor radix_sort(ClDevice& d, const Pairs& pairs, std::int64_t rows, std::int64_t n, std::size_t itemsize,
                  const std::string& options) {
  const std::string prelude = std::string(sort_key_prelude()) + std::string(embedded_source("sort_radix"));
  const Pairs scratch{Tensor::empty(Shape{pairs.keys.numel()}, pairs.keys.dtype(), pairs.keys.device()),
                      Tensor::empty(Shape{pairs.at.numel()}, DType::i64, pairs.at.device()), n};
  const auto passes = static_cast<cl_int>(itemsize);  // a byte per pass; narrower keys fit their element
  const auto units = static_cast<std::int64_t>(std::max(d.compute_units, 1));
  const std::int64_t chunks =
      std::min((4 * units + rows - 1) / rows, (n + kMinRadixChunk - 1) / kMinRadixChunk);
  if (chunks <= 1) {
    const Kernel whole_rows = make_kernel(d, "sort_rows", options, prelude);
    KernelArgs(whole_rows.get())
        .add(buffer_of(pairs.keys))
        .add(buffer_of(pairs.at))
        .add(buffer_of(scratch.keys))
        .add(buffer_of(scratch.at))
        .add(static_cast<cl_long>(rows))
        .add(static_cast<cl_long>(n))
        .add(passes);
    const auto items = static_cast<std::size_t>(rows);
    launch(d, whole_rows, items, chunked_group_size(d, items), "launching sort_rows");
    return pairs.at;
  }
  const std::int64_t chunk = (n + chunks - 1) / chunks;
  const cl_long chunk_count = (n + chunk - 1) / chunk;
  const Tensor counts = Tensor::empty(Shape{rows * 256 * chunk_count}, DType::i64, pairs.keys.device());
  const Kernel count = make_kernel(d, "sort_radix_count", options, prelude);
  const Kernel offsets = make_kernel(d, "sort_radix_offsets", options, prelude);
  const Kernel scatter = make_kernel(d, "sort_radix_scatter", options, prelude);
  KernelArgs(offsets.get()).add(buffer_of(counts)).add(static_cast<cl_long>(rows)).add(chunk_count);
  const auto items = static_cast<std::size_t>(rows * chunk_count);
  const Pairs* from = &pairs;
  const Pairs* to = &scratch;
  for (cl_int pass = 0; pass < passes; ++pass) {
    const cl_int shift = 8 * pass;
    KernelArgs(count.get())
        .add(buffer_of(from->keys))
        .add(static_cast<cl_long>(rows))
        .add(static_cast<cl_long>(n))
        .add(static_cast<cl_long>(chunk))
        .add(chunk_count)
        .add(shift)
        .add(buffer_of(counts));
    launch(d, count, items, 1, "launching sort_radix_count");
    launch(d, offsets, static_cast<std::size_t>(rows), 1, "launching sort_radix_offsets");
    KernelArgs(scatter.get())
        .add(buffer_of(from->keys))
        .add(buffer_of(from->at))
        .add(static_cast<cl_long>(rows))
        .add(static_cast<cl_long>(n))
        .add(static_cast<cl_long>(chunk))
        .add(chunk_count)
        .add(shift)
        .add(buffer_of(counts))
        .add(buffer_of(to->keys))
        .add(buffer_of(to->at));
    launch(d, scatter, items, 1, "launching sort_radix_scatter");
    std::swap(from, to);
  }
  return from->at;
}

void sort_kernel(const Tensor& x, const Tensor& values, const Tensor& indices, bool descending) {
  ClDevice& d = cl_device(x.device());
  const std::int64_t rows = x.dim(0), n = x.dim(1);
  const std::string options = sort_key_options(x.dtype());
  const Pairs pairs = make_pairs(d, x, d.cpu_forms ? n : power_of_two_at_least(n), descending, options);
  Tensor sorted_at = pairs.at;
  if (d.cpu_forms) sorted_at = radix_sort(d, pairs, rows, n, x.itemsize(), options);
  else bitonic_sort(d, pairs, rows, options);
  const Kernel finish = make_kernel(d, "sort_finish", options, sort_key_prelude());
  // An output not wanted is given `sorted_at` (never written: its flag is 0).
  KernelArgs(finish.get())
      .add(static_cast<cl_long>(rows))
      .add(static_cast<cl_long>(n))
      .add(static_cast<cl_long>(pairs.stride))
      .add(buffer_of(x))
      .add(static_cast<cl_long>(x.offset()))
      .add(buffer_of(sorted_at))
      .add(values.defined() ? buffer_of(values) : buffer_of(sorted_at))
      .add(static_cast<cl_long>(values.defined() ? values.offset() : 0))
      .add(indices.defined() ? buffer_of(indices) : buffer_of(sorted_at))
      .add(static_cast<cl_long>(indices.defined() ? indices.offset() : 0))
      .add(static_cast<cl_int>(values.defined()))
      .add(static_cast<cl_int>(indices.defined()));
  launch(d, finish, static_cast<std::size_t>(rows * n), 256, "launching sort_finish");
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::sort, DeviceKind::opencl, dtypes::all, &sort_kernel); }

}  // namespace accelera::opencl
