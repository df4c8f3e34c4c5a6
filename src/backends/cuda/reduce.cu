// Sum, product, mean, max and min over any set of axes (see ReduceShape for the three strategies), and the
// centered sum of squared deviations (var's second pass: Op::kCentered, each output's elements taken
// relative to its center). Float sums and products accumulate in double (float16/bfloat16 in float), integer
// ones in int64 wrapping back on store, as in the CPU backend; max and min propagate nan.
#include <limits>

#include "backends/cuda/common.cuh"
#include "core/integer_dtypes.hpp"

namespace accelera::cuda::kernels {

namespace {

template <typename T>
struct SumOp {
  using Acc = std::conditional_t<std::is_integral_v<T>, std::int64_t,
                                 std::conditional_t<std::is_same_v<compute_t<T>, float> && !std::is_same_v<T, float>,
                                                    float, double>>;
  static constexpr bool kCentered = false;
  __device__ static Acc init() { return Acc{0}; }
  __device__ static Acc combine(Acc a, Acc b) {
    if constexpr (std::is_integral_v<Acc>) {
      return static_cast<Acc>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
    } else {
      return a + b;
    }
  }
  __device__ static Acc step(Acc a, T v) { return combine(a, static_cast<Acc>(load(v))); }
  __device__ static T finish(Acc a, std::int64_t) { return store<T>(static_cast<compute_t<T>>(a)); }
};

template <typename T>
struct MeanOp : SumOp<T> {
  using Acc = typename SumOp<T>::Acc;
  __device__ static T finish(Acc a, std::int64_t count) {
    return store<T>(static_cast<compute_t<T>>(static_cast<double>(a) / static_cast<double>(count)));
  }
};

template <typename T>
struct ProdOp {
  using Acc = typename SumOp<T>::Acc;
  static constexpr bool kCentered = false;
  __device__ static Acc init() { return Acc{1}; }
  __device__ static Acc combine(Acc a, Acc b) {
    if constexpr (std::is_integral_v<Acc>) {
      return static_cast<Acc>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
    } else {
      return a * b;
    }
  }
  __device__ static Acc step(Acc a, T v) { return combine(a, static_cast<Acc>(load(v))); }
  __device__ static T finish(Acc a, std::int64_t) { return store<T>(static_cast<compute_t<T>>(a)); }
};

template <typename T>
struct MinOp {
  using Acc = compute_t<T>;
  static constexpr bool kCentered = false;
  __device__ static Acc init() {
    if constexpr (std::is_integral_v<Acc>) return std::numeric_limits<Acc>::max();
    else return static_cast<Acc>(INFINITY);
  }
  // nan wins and stays, as in NumPy.
  __device__ static Acc combine(Acc a, Acc v) { return (v < a || v != v) ? v : a; }
  __device__ static Acc step(Acc a, T v) { return combine(a, load(v)); }
  __device__ static T finish(Acc a, std::int64_t) { return store<T>(a); }
};

template <typename T>
struct MaxOp {
  using Acc = compute_t<T>;
  static constexpr bool kCentered = false;
  __device__ static Acc init() {
    if constexpr (std::is_integral_v<Acc>) return std::numeric_limits<Acc>::lowest();
    else return -static_cast<Acc>(INFINITY);
  }
  // nan wins and stays, as in NumPy.
  __device__ static Acc combine(Acc a, Acc v) { return (v > a || v != v) ? v : a; }
  __device__ static Acc step(Acc a, T v) { return combine(a, load(v)); }
  __device__ static T finish(Acc a, std::int64_t) { return store<T>(a); }
};

// The squared deviations from a center, summed as SumOp sums (Acc: double, float for the half formats).
template <typename T>
struct SquaredDeviationOp : SumOp<T> {
  using Acc = typename SumOp<T>::Acc;
  static constexpr bool kCentered = true;
  __device__ static Acc centered_step(Acc a, T v, Acc c) {
    const Acc d = static_cast<Acc>(load(v)) - c;
    return a + d * d;
  }
};

// The center of the output at out offset `at` (centered ops; unused by the others).
template <typename Op, typename T>
__device__ typename Op::Acc center_at(const T* center, std::int64_t at) {
  if constexpr (Op::kCentered) {
    return static_cast<typename Op::Acc>(load(center[at]));
  } else {
    return typename Op::Acc{};
  }
}

// One element of x into the accumulator.
template <typename Op, typename T>
__device__ typename Op::Acc x_step(typename Op::Acc a, T v, typename Op::Acc c) {
  if constexpr (Op::kCentered) {
    return Op::centered_step(a, v, c);
  } else {
    return Op::step(a, v);
  }
}

template <typename Op, typename T>
__global__ void reduce_per_thread(ReduceShape S, T* out, const T* x, const T* center) {
  for (std::int64_t o = first_index(); o < S.outputs; o += grid_stride()) {
    std::int64_t kept[2];
    offsets_of<2>(S.kept, o, kept);
    const auto c = center_at<Op>(center, kept[0]);
    auto acc = Op::init();
    for (std::int64_t r = 0; r < S.count; ++r) {
      std::int64_t off[1];
      offsets_of<1>(S.reduced, r, off);
      acc = x_step<Op>(acc, x[kept[1] + off[0]], c);
    }
    out[kept[0]] = Op::finish(acc, S.count);
  }
}

template <typename Op, typename T>
__global__ void reduce_blocks(ReduceShape S, T* out, const T* x, typename Op::Acc* partials, const T* center) {
  using Acc = typename Op::Acc;
  __shared__ Acc shared[kThreads];
  const int tid = static_cast<int>(threadIdx.x);
  // Every thread of a block takes the same iterations, so the barriers below are reached by all.
  for (std::int64_t b = blockIdx.x; b < S.outputs * S.parts; b += gridDim.x) {
    const std::int64_t o = b / S.parts, p = b % S.parts;
    std::int64_t kept[2];
    offsets_of<2>(S.kept, o, kept);
    const std::int64_t begin = S.count * p / S.parts, end = S.count * (p + 1) / S.parts;
    const Acc c = center_at<Op>(center, kept[0]);
    Acc acc = Op::init();
    for (std::int64_t r = begin + tid; r < end; r += blockDim.x) {
      std::int64_t off[1];
      offsets_of<1>(S.reduced, r, off);
      acc = x_step<Op>(acc, x[kept[1] + off[0]], c);
    }
    shared[tid] = acc;
    __syncthreads();
    for (int s = kThreads / 2; s > 0; s >>= 1) {
      if (tid < s) shared[tid] = Op::combine(shared[tid], shared[tid + s]);
      __syncthreads();
    }
    if (tid == 0) {
      if (S.parts == 1) out[kept[0]] = Op::finish(shared[0], S.count);
      else partials[b] = shared[0];
    }
    __syncthreads();  // shared[0] is read before the next iteration overwrites it
  }
}

template <typename Op, typename T>
__global__ void reduce_partials(ReduceShape S, T* out, const typename Op::Acc* partials) {
  for (std::int64_t o = first_index(); o < S.outputs; o += grid_stride()) {
    std::int64_t kept[2];
    offsets_of<2>(S.kept, o, kept);
    auto acc = partials[o * S.parts];
    for (std::int64_t p = 1; p < S.parts; ++p) acc = Op::combine(acc, partials[o * S.parts + p]);
    out[kept[0]] = Op::finish(acc, S.count);
  }
}

template <typename Op, typename T>
bool launch_reduce(const ReduceShape& S, void* out, const void* x, void* partials, Launch launch, const void* center) {
  using Acc = typename Op::Acc;
  static_assert(sizeof(Acc) <= 8, "partials hold 8 bytes per part");
  auto* o = static_cast<T*>(out);
  const auto* in = static_cast<const T*>(x);
  const auto* c = static_cast<const T*>(center);
  if (S.per_thread) {
    reduce_per_thread<Op, T><<<blocks_for(S.outputs, launch), kThreads, 0, launch.stream>>>(S, o, in, c);
    check_launch("reduce_per_thread");
    return true;
  }
  const std::int64_t blocks = S.outputs * S.parts;
  const unsigned grid = static_cast<unsigned>(blocks < 0x7fffffff ? blocks : 0x7fffffff);
  reduce_blocks<Op, T><<<grid, kThreads, 0, launch.stream>>>(S, o, in, static_cast<Acc*>(partials), c);
  check_launch("reduce_blocks");
  if (S.parts > 1) {
    reduce_partials<Op, T><<<blocks_for(S.outputs, launch), kThreads, 0, launch.stream>>>(
        S, o, static_cast<const Acc*>(partials));
    check_launch("reduce_partials");
  }
  return true;
}

// Integers: none (mean), int64 only (sum and prod: Note [Integer accumulation]) or all of them (max, min).
enum class Integers { none, int64, all };

template <template <typename> class Op, Integers Ints>
bool dispatch(DType dtype, const ReduceShape& S, void* out, const void* x, void* partials,
              Launch launch, const void* center) {
  switch (dtype) {
    case DType::f32: return launch_reduce<Op<float>, float>(S, out, x, partials, launch, center);
    case DType::f64: return launch_reduce<Op<double>, double>(S, out, x, partials, launch, center);
    case DType::f16: return launch_reduce<Op<Half>, Half>(S, out, x, partials, launch, center);
    case DType::bf16: return launch_reduce<Op<BFloat16>, BFloat16>(S, out, x, partials, launch, center);
    default: break;
  }
  if constexpr (Ints == Integers::int64) {
    if (dtype == DType::i64) {
      return launch_reduce<Op<std::int64_t>, std::int64_t>(S, out, x, partials, launch, center);
    }
  }
  if constexpr (Ints == Integers::all) {
    switch (dtype) {
#define ACC_REDUCE_INTEGER(dt, type) \
  case dt: return launch_reduce<Op<type>, type>(S, out, x, partials, launch, center);
      ACC_FOR_EACH_INTEGER_DTYPE(ACC_REDUCE_INTEGER)
#undef ACC_REDUCE_INTEGER
      default: break;
    }
  }
  return false;
}

}  // namespace

bool reduce(ReduceFunction fn, DType dtype, const ReduceShape& S, void* out, const void* x, void* partials, Launch launch,
            const void* center) {
  switch (fn) {
    case ReduceFunction::sum: return dispatch<SumOp, Integers::int64>(dtype, S, out, x, partials, launch, nullptr);
    case ReduceFunction::mean: return dispatch<MeanOp, Integers::none>(dtype, S, out, x, partials, launch, nullptr);
    case ReduceFunction::max: return dispatch<MaxOp, Integers::all>(dtype, S, out, x, partials, launch, nullptr);
    case ReduceFunction::min: return dispatch<MinOp, Integers::all>(dtype, S, out, x, partials, launch, nullptr);
    case ReduceFunction::prod: return dispatch<ProdOp, Integers::int64>(dtype, S, out, x, partials, launch, nullptr);
    case ReduceFunction::squared_deviations:
      return dispatch<SquaredDeviationOp, Integers::none>(dtype, S, out, x, partials, launch, center);
  }
  return false;
}

}  // namespace accelera::cuda::kernels
