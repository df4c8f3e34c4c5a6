// sort and argsort on OpenCL: a bitonic sort of (key, position) pairs per row (sort_*.cl). Comparing the
// pair, not the key alone, makes the order total, so the result is the stable order on every device. Rows
// are padded to a power of 2 P; blocks of B pairs are sorted in local memory, longer distances merged by one
// global pass per step, the short steps of each later stage again in local memory.
#include <algorithm>

#include "backends/opencl/layouts.hpp"
#include "backends/opencl/sort_keys.hpp"
#include "ops/sort.hpp"

namespace accelera::opencl {

namespace {

constexpr std::int64_t kMaxHalfBlock = 256;

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

void sort_kernel(const Tensor& x, const Tensor& values, const Tensor& indices, bool descending) {
  ClDevice& d = cl_device(x.device());
  const std::int64_t rows = x.dim(0), n = x.dim(1), P = power_of_two_at_least(n);
  const bool wide = x.itemsize() == 8;
  const std::size_t key_size = wide ? 8 : 4;
  const std::string options = sort_key_options(x.dtype());
  const std::string_view prelude = sort_key_prelude();
  const Tensor keys = Tensor::empty(Shape{rows * P}, wide ? DType::i64 : DType::i32, x.device());
  const Tensor at = Tensor::empty(Shape{rows * P}, DType::i64, x.device());
  {
    const Kernel init = make_kernel(d, "sort_init", options, prelude);
    KernelArgs args(init.get());
    args.add(static_cast<cl_long>(rows)).add(static_cast<cl_long>(n)).add(static_cast<cl_long>(P));
    args.add(buffer_of(x)).add(static_cast<cl_long>(x.offset())).add(buffer_of(keys)).add(buffer_of(at));
    if (wide) args.add(flip_of<cl_ulong>(x.itemsize(), descending));
    else args.add(flip_of<cl_uint>(x.itemsize(), descending));
    launch(d, init, static_cast<std::size_t>(rows * P), 256, "launching sort_init");
  }
  if (P > 1) {
    const std::int64_t half_block =
        std::min({P / 2, kMaxHalfBlock, power_of_two_at_most(static_cast<std::int64_t>(d.max_work_group))});
    const std::int64_t B = 2 * half_block;
    const auto pairs = static_cast<std::size_t>(rows * P / 2);
    const Kernel block = make_kernel(d, "sort_block", options, prelude);
    KernelArgs(block.get())
        .add(buffer_of(keys))
        .add(buffer_of(at))
        .add(static_cast<cl_long>(P))
        .local(static_cast<std::size_t>(B) * key_size)
        .local(static_cast<std::size_t>(B) * 8);
    launch(d, block, pairs, static_cast<std::size_t>(half_block), "launching sort_block");
    if (P > B) {
      const Kernel global_step = make_kernel(d, "sort_merge_global", options, prelude);
      const Kernel block_steps = make_kernel(d, "sort_merge_block", options, prelude);
      KernelArgs(block_steps.get()).add(buffer_of(keys)).add(buffer_of(at)).add(static_cast<cl_long>(P));
      KernelArgs(global_step.get()).add(buffer_of(keys)).add(buffer_of(at)).add(static_cast<cl_long>(rows))
          .add(static_cast<cl_long>(P));
      for (std::int64_t k = 2 * B; k <= P; k <<= 1) {
        for (std::int64_t j = k / 2; j >= B; j >>= 1) {
          ACC_CL_CHECK(clSetKernelArg(global_step.get(), 4, sizeof(cl_long), &k), "setting sort_merge_global's stage");
          ACC_CL_CHECK(clSetKernelArg(global_step.get(), 5, sizeof(cl_long), &j), "setting sort_merge_global's step");
          launch(d, global_step, pairs, 256, "launching sort_merge_global");
        }
        const cl_long stage = k;
        ACC_CL_CHECK(clSetKernelArg(block_steps.get(), 3, sizeof(cl_long), &stage), "setting sort_merge_block's stage");
        ACC_CL_CHECK(clSetKernelArg(block_steps.get(), 4, static_cast<std::size_t>(B) * key_size, nullptr),
                     "setting sort_merge_block's local keys");
        ACC_CL_CHECK(clSetKernelArg(block_steps.get(), 5, static_cast<std::size_t>(B) * 8, nullptr),
                     "setting sort_merge_block's local positions");
        launch(d, block_steps, pairs, static_cast<std::size_t>(half_block), "launching sort_merge_block");
      }
    }
  }
  const Kernel finish = make_kernel(d, "sort_finish", options, prelude);
  // An output not wanted is given `at` (never written: its flag is 0).
  KernelArgs(finish.get())
      .add(static_cast<cl_long>(rows))
      .add(static_cast<cl_long>(n))
      .add(static_cast<cl_long>(P))
      .add(buffer_of(x))
      .add(static_cast<cl_long>(x.offset()))
      .add(buffer_of(at))
      .add(values.defined() ? buffer_of(values) : buffer_of(at))
      .add(static_cast<cl_long>(values.defined() ? values.offset() : 0))
      .add(indices.defined() ? buffer_of(indices) : buffer_of(at))
      .add(static_cast<cl_long>(indices.defined() ? indices.offset() : 0))
      .add(static_cast<cl_int>(values.defined()))
      .add(static_cast<cl_int>(indices.defined()));
  launch(d, finish, static_cast<std::size_t>(rows * n), 256, "launching sort_finish");
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::sort, DeviceKind::opencl, dtypes::all, &sort_kernel); }

}  // namespace accelera::opencl
