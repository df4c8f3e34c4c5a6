#pragma once
// Note [Batch slices]: oneDNN's RNN primitive runs a few hundred short OpenMP loops per training step, one
// per cell and gate GEMM, with serial work between them. Each loop wakes the sleeping OpenMP workers (the
// package keeps their spin short: Note [OpenMP wait policy] in cli/main.cpp), and on a virtual machine a
// wake-up can cost tens of microseconds or more: a small LSTM's step ran up to 3x slower in noisy periods.
// The sequences of a batch are independent, so the batch is cut into one slice per OpenMP thread and each
// thread runs the whole primitive on its slice by itself: one parallel region per call instead of hundreds,
// and no barrier between cells. On two cores the small LSTM of bench/bench_rnn.py (28 steps, batch 128, 28 ->
// 128) trains at 12.5 ms per step (90th percentile 14 ms), where one primitive over the whole batch took
// 13.1-17.8 ms (90th percentile up to 40 ms in noisy periods). Each slice has its own workspace; the
// weights' gradients are summed over the slices in slice order, so results do not depend on thread timing.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <vector>

#include "accelera/core/tensor.hpp"

namespace accelera::cpu::onednn {

struct BatchSlice {
  std::int64_t begin = 0, size = 0;
};

// How many slices a batch is cut into now: one per OpenMP thread, at most one sequence each; one inside a
// parallel region, where oneDNN would run on one thread anyway.
inline std::int64_t slice_count(std::int64_t batch) {
  return omp_in_parallel() ? 1 : std::clamp<std::int64_t>(omp_get_max_threads(), 1, std::max<std::int64_t>(batch, 1));
}

// The batch cut into `parts` slices of nearly equal size.
inline std::vector<BatchSlice> batch_slices(std::int64_t batch, std::int64_t parts) {
  std::vector<BatchSlice> out;
  for (std::int64_t k = 0; k < parts; ++k) {
    const std::int64_t begin = batch * k / parts, end = batch * (k + 1) / parts;
    out.push_back({begin, end - begin});
  }
  return out;
}

// f(slice index) for every slice, one per thread of one parallel region (the caller's thread alone for one
// slice, so that the primitive keeps the whole team). The first failure, in slice order, is rethrown after
// every slice has finished.
template <typename F>
void for_each_slice(std::size_t count, F&& f) {
  if (count == 1) {
    f(std::size_t{0});
    return;
  }
  std::vector<std::exception_ptr> failures(count);
#pragma omp parallel for num_threads(static_cast<int>(count)) schedule(static, 1)
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(count); ++k) {
    try {
      f(static_cast<std::size_t>(k));
    } catch (...) {
      failures[static_cast<std::size_t>(k)] = std::current_exception();  // rethrown below, outside the region
    }
  }
  for (const auto& failure : failures)
    if (failure) std::rethrow_exception(failure);
}

// Rows [s.begin, s.begin + s.size) of the batch axis (axis 1) of a contiguous (T, B, F) float tensor, copied
// into a contiguous (T, s.size, F) one, or copied back.
inline void gather_batch(const Tensor& full, const BatchSlice& s, const Tensor& slice) {
  const std::int64_t steps = full.dim(0), batch = full.dim(1), features = full.dim(2);
  const float* from = full.data<float>();
  float* to = slice.data<float>();
  for (std::int64_t t = 0; t < steps; ++t)
    std::memcpy(to + t * s.size * features, from + (t * batch + s.begin) * features,
                static_cast<std::size_t>(s.size * features) * sizeof(float));
}
inline void scatter_batch(const Tensor& slice, const BatchSlice& s, const Tensor& full) {
  const std::int64_t steps = full.dim(0), batch = full.dim(1), features = full.dim(2);
  const float* from = slice.data<float>();
  float* to = full.data<float>();
  for (std::int64_t t = 0; t < steps; ++t)
    std::memcpy(to + (t * batch + s.begin) * features, from + t * s.size * features,
                static_cast<std::size_t>(s.size * features) * sizeof(float));
}

// The slice of a (T, B, F) tensor as a contiguous tensor: the tensor itself when the slice is the whole
// batch, else a copy (`copy_in`) or an uninitialised one to scatter back later.
inline Tensor batch_part(const Tensor& full, const BatchSlice& s, bool copy_in) {
  if (s.begin == 0 && s.size == full.dim(1)) return full;
  Tensor out = Tensor::empty(Shape{full.dim(0), s.size, full.dim(2)}, DType::f32, Device::cpu());
  if (copy_in) gather_batch(full, s, out);
  return out;
}

// Rows of a (B, H) state: a view (contiguous, since rows are).
inline Tensor state_rows(const Tensor& state, const BatchSlice& s) {
  return state.slice(0, s.begin, s.begin + s.size);
}

// The forward pass's workspace starts with the number of slices it was cut into, so that its backward cuts
// the batch the same way even if the thread count changed in between; each slice's workspace follows.
inline constexpr std::int64_t kWorkspaceHeader = 64;

// Byte offsets of each slice's workspace in one buffer (64-byte aligned, after the header), and the total.
inline std::vector<std::int64_t> workspace_offsets(const std::vector<std::int64_t>& sizes, std::int64_t& total) {
  std::vector<std::int64_t> out;
  total = kWorkspaceHeader;
  for (const std::int64_t size : sizes) {
    out.push_back(total);
    total += (size + 63) / 64 * 64;
  }
  return out;
}

}  // namespace accelera::cpu::onednn
