// sort and argsort of the rows of a contiguous matrix on the CPU (Note [CPU radix sort] in radix_sort.hpp):
// many rows are shared among threads, one row at a time; a long row is split among threads itself.
#include <omp.h>

#include "accelera/core/error.hpp"
#include "backends/cpu/radix_sort.hpp"
#include "backends/common/sort_keys.hpp"
#include "ops/sort.hpp"

namespace accelera::cpu {

namespace {

using backends::with_sort_key;

void sort_kernel(const Tensor& x, const Tensor& values, const Tensor& indices, bool descending) {
  const std::int64_t rows = x.dim(0), n = x.dim(1);
  with_sort_key(x.dtype(), [&](auto traits) {
    using U = typename decltype(traits)::Bits;
    const auto key = [](U b) { return decltype(traits)::key(b); };
    const U flip = descending ? static_cast<U>(~U{0}) : U{0};
    const U* src = static_cast<const U*>(x.data_ptr());
    U* val = values.defined() ? static_cast<U*>(values.data_ptr()) : nullptr;
    std::int64_t* at = indices.defined() ? indices.data<std::int64_t>() : nullptr;
    const int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
    const auto row = [&](std::int64_t r, int row_threads) {
      radix_sort_row(src + r * n, n, val ? val + r * n : nullptr, at ? at + r * n : nullptr, flip, key, row_threads);
    };
    if (rows >= threads || rows * n < (1 << 15)) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1 && rows > 1 && rows * n >= (1 << 15))
      for (std::int64_t r = 0; r < rows; ++r) row(r, 1);
    } else {
      for (std::int64_t r = 0; r < rows; ++r) row(r, threads);
    }
  });
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::sort, DeviceKind::cpu, dtypes::all, &sort_kernel); }

}  // namespace accelera::cpu
