// sort and argsort of the rows of a contiguous matrix on the CPU: 32- and 64-bit keys by vqsort (Note [CPU
// vector sort] in vector_sort.hpp), narrower ones and very short rows by Note [CPU radix sort] in
// radix_sort.hpp. Many rows are shared among threads, one row at a time; a long row is split among threads.
#include <omp.h>

#include <algorithm>

#include "accelera/core/error.hpp"
#include "backends/cpu/radix_sort.hpp"
#include "backends/cpu/vector_sort.hpp"
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
    using Traits = decltype(traits);
    const bool vector = n > radix_detail::kInsertionLimit && vector_sort_applies<U>(n, at != nullptr);
    const auto row = [&](std::int64_t r, int row_threads) {
      U* row_values = val ? val + r * n : nullptr;
      std::int64_t* row_indices = at ? at + r * n : nullptr;
      if constexpr (sizeof(U) >= 4) {
        if (vector) return vector_sort_row<Traits>(src + r * n, n, row_values, row_indices, flip, row_threads);
      }
      radix_sort_row(src + r * n, n, row_values, row_indices, flip, key, row_threads);
    };
    if (rows >= threads || rows * n < (1 << 15)) {
      // Threads take rows in batches of about 4096 elements: one row at a time, short rows spent more on
      // handing out rows than on sorting them (100000 rows of 1 element: 12 ms on 2 threads, 0.75 ms on 1).
      const std::int64_t batch = std::max<std::int64_t>(1, 4096 / n);
#pragma omp parallel for schedule(dynamic, batch) num_threads(threads) if (threads > 1 && rows > 1 && rows * n >= (1 << 15))
      for (std::int64_t r = 0; r < rows; ++r) row(r, 1);
    } else {
      for (std::int64_t r = 0; r < rows; ++r) row(r, threads);
    }
  });
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::sort, DeviceKind::cpu, dtypes::all, &sort_kernel); }

}  // namespace accelera::cpu
