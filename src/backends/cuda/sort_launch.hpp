#pragma once
// Host entry points of the CUDA kernels of sort, searchsorted and unique (sort.cu, searchsorted.cu,
// unique.cu; Note [Sort keys] in src/ops/sort.hpp, Note [Unique by groups] in src/ops/unique.hpp). Scratch
// memory comes from the caller (the library's allocator), sized by the *_scratch_bytes functions.
#include <cstddef>
#include <cstdint>

#include "accelera/core/dtype.hpp"
#include "backends/cuda/launch.hpp"

namespace accelera::cuda::kernels {

std::size_t sort_scratch_bytes(DType dtype, std::int64_t rows, std::int64_t n);
// Sorts the rows of the contiguous (rows, n) x stably by key (complemented when descending): CUB's
// segmented stable radix sort of (key, position) pairs. values (x's dtype) and indices (int64) may be null.
void sort(DType dtype, const void* x, std::int64_t rows, std::int64_t n, void* values, std::int64_t* indices,
          bool descending, void* scratch, std::size_t scratch_bytes, Launch launch);

void searchsorted(DType dtype, const void* sorted, std::int64_t n, const void* values, std::int64_t m,
                  std::int64_t* out, bool right, Launch launch);

std::size_t unique_groups_scratch_bytes(std::int64_t n);
// group[i] = the number of group starts in sorted[1 .. i] (a CUB inclusive scan of the start flags); the
// number of groups is group[n - 1] + 1.
void unique_groups(DType dtype, const void* sorted, std::int64_t n, std::int64_t* group, void* scratch,
                   std::size_t scratch_bytes, Launch launch);
// order, first and inverse may be null (first and inverse need order).
void unique_scatter(DType dtype, const void* sorted, const std::int64_t* order, const std::int64_t* group,
                    std::int64_t n, void* values, std::int64_t* first, std::int64_t* bounds, std::int64_t* inverse,
                    Launch launch);

}  // namespace accelera::cuda::kernels
