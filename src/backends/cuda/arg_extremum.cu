// argmax and argmin: one thread per output for short or column reductions, else one block per output
// combining per-thread candidates in shared memory. A nan beats everything and ties go to the smaller
// index, so the result is NumPy's first extremum however the work is split.
#include "backends/cuda/common.cuh"
#include "core/integer_dtypes.hpp"

namespace accelera::cuda::kernels {

namespace {

template <typename C>
__device__ bool is_nan(C v) {
  return v != v;  // false for integers
}

// Whether candidate (v, i) replaces (best, at); at < 0 is "none yet".
template <bool kMax, typename C>
__device__ bool replaces(C v, std::int64_t i, C best, std::int64_t at) {
  if (i < 0) return false;
  if (at < 0) return true;
  if (is_nan(best)) return is_nan(v) && i < at;
  if (is_nan(v)) return true;
  if (kMax ? v > best : v < best) return true;
  return v == best && i < at;
}

template <bool kMax, typename T>
__global__ void arg_per_thread(ReduceShape S, std::int64_t* out, const T* x) {
  for (std::int64_t o = first_index(); o < S.outputs; o += grid_stride()) {
    std::int64_t kept[2];
    offsets_of<2>(S.kept, o, kept);
    compute_t<T> best{};
    std::int64_t at = -1;
    for (std::int64_t r = 0; r < S.count; ++r) {
      std::int64_t off[1];
      offsets_of<1>(S.reduced, r, off);
      const auto v = load(x[kept[1] + off[0]]);
      if (replaces<kMax>(v, r, best, at)) best = v, at = r;
    }
    out[kept[0]] = at;
  }
}

template <bool kMax, typename T>
__global__ void arg_blocks(ReduceShape S, std::int64_t* out, const T* x) {
  using C = compute_t<T>;
  __shared__ C values[kThreads];
  __shared__ std::int64_t where[kThreads];
  const int tid = static_cast<int>(threadIdx.x);
  for (std::int64_t o = blockIdx.x; o < S.outputs; o += gridDim.x) {
    std::int64_t kept[2];
    offsets_of<2>(S.kept, o, kept);
    C best{};
    std::int64_t at = -1;
    for (std::int64_t r = tid; r < S.count; r += blockDim.x) {
      std::int64_t off[1];
      offsets_of<1>(S.reduced, r, off);
      const C v = load(x[kept[1] + off[0]]);
      if (replaces<kMax>(v, r, best, at)) best = v, at = r;
    }
    values[tid] = best;
    where[tid] = at;
    __syncthreads();
    for (int s = kThreads / 2; s > 0; s >>= 1) {
      if (tid < s && replaces<kMax>(values[tid + s], where[tid + s], values[tid], where[tid])) {
        values[tid] = values[tid + s];
        where[tid] = where[tid + s];
      }
      __syncthreads();
    }
    if (tid == 0) out[kept[0]] = where[0];
    __syncthreads();  // where[0] is read before the next iteration overwrites it
  }
}

template <bool kMax, typename T>
bool launch_arg(const ReduceShape& S, void* out, const void* x, Launch launch) {
  auto* o = static_cast<std::int64_t*>(out);
  const auto* in = static_cast<const T*>(x);
  if (S.per_thread) {
    arg_per_thread<kMax, T><<<blocks_for(S.outputs, launch), kThreads, 0, launch.stream>>>(S, o, in);
    check_launch("arg_per_thread");
    return true;
  }
  const unsigned grid = static_cast<unsigned>(S.outputs < 0x7fffffff ? S.outputs : 0x7fffffff);
  arg_blocks<kMax, T><<<grid, kThreads, 0, launch.stream>>>(S, o, in);
  check_launch("arg_blocks");
  return true;
}

template <bool kMax>
bool dispatch(DType dtype, const ReduceShape& S, void* out, const void* x, Launch launch) {
  switch (dtype) {
    case DType::f32: return launch_arg<kMax, float>(S, out, x, launch);
    case DType::f64: return launch_arg<kMax, double>(S, out, x, launch);
    case DType::f16: return launch_arg<kMax, Half>(S, out, x, launch);
    case DType::bf16: return launch_arg<kMax, BFloat16>(S, out, x, launch);
#define ACC_ARG_INTEGER(dt, type) \
  case dt: return launch_arg<kMax, type>(S, out, x, launch);
    ACC_FOR_EACH_INTEGER_DTYPE(ACC_ARG_INTEGER)
#undef ACC_ARG_INTEGER
    default: return false;
  }
}

}  // namespace

bool arg_extremum(bool max, DType dtype, const ReduceShape& S, void* out, const void* x, Launch launch) {
  return max ? dispatch<true>(dtype, S, out, x, launch) : dispatch<false>(dtype, S, out, x, launch);
}

}  // namespace accelera::cuda::kernels
