// Element-wise add, subtract, multiply, divide over broadcast (stride-0) and strided operands. Contiguous,
// 16-byte aligned operands take a vector path: one 16-byte load per operand per thread and step.
#include "backends/cuda/kernels/common.cuh"

namespace accelera::cuda::kernels {

namespace {

// Integer arithmetic wraps as in NumPy; unsigned arithmetic keeps that defined.
template <typename T>
struct Wrap {
  using type = T;
};
template <>
struct Wrap<std::int32_t> {
  using type = std::uint32_t;
};
template <>
struct Wrap<std::int64_t> {
  using type = std::uint64_t;
};
template <typename T>
using wrap_t = typename Wrap<T>::type;

struct Add {
  template <typename C> __device__ static C apply(C a, C b) { return static_cast<C>(static_cast<wrap_t<C>>(a) + static_cast<wrap_t<C>>(b)); }
};
struct Sub {
  template <typename C> __device__ static C apply(C a, C b) { return static_cast<C>(static_cast<wrap_t<C>>(a) - static_cast<wrap_t<C>>(b)); }
};
struct Mul {
  template <typename C> __device__ static C apply(C a, C b) { return static_cast<C>(static_cast<wrap_t<C>>(a) * static_cast<wrap_t<C>>(b)); }
};
struct Div {
  template <typename C> __device__ static C apply(C a, C b) { return a / b; }
};

template <typename Op, typename T>
__device__ inline T apply(T a, T b) {
  return store<T>(Op::apply(load(a), load(b)));
}

template <typename Op, typename T>
__global__ void binary_strided(Layout L, T* out, const T* a, const T* b) {
  for (std::int64_t i = first_index(); i < L.numel; i += grid_stride()) {
    std::int64_t off[3];
    offsets_of<3>(L, i, off);
    out[off[0]] = apply<Op>(a[off[1]], b[off[2]]);
  }
}

template <typename Op, typename T>
__global__ void binary_vector(std::int64_t n, T* out, const T* a, const T* b) {
  using V = Vec<T>;
  const std::int64_t vectors = n / V::size;
  for (std::int64_t i = first_index(); i < vectors; i += grid_stride()) {
    const V x = reinterpret_cast<const V*>(a)[i];
    const V y = reinterpret_cast<const V*>(b)[i];
    V z;
#pragma unroll
    for (int j = 0; j < V::size; ++j) z.v[j] = apply<Op>(x.v[j], y.v[j]);
    reinterpret_cast<V*>(out)[i] = z;
  }
  for (std::int64_t i = vectors * V::size + first_index(); i < n; i += grid_stride()) out[i] = apply<Op>(a[i], b[i]);
}

template <typename Op, typename T>
bool launch_binary(const Layout& L, void* out, const void* a, const void* b, bool aligned, Launch launch) {
  auto* o = static_cast<T*>(out);
  const auto* x = static_cast<const T*>(a);
  const auto* y = static_cast<const T*>(b);
  if (aligned) {
    binary_vector<Op, T><<<blocks_for(L.numel / Vec<T>::size + 1, launch), kThreads, 0, launch.stream>>>(L.numel, o, x, y);
  } else {
    binary_strided<Op, T><<<blocks_for(L.numel, launch), kThreads, 0, launch.stream>>>(L, o, x, y);
  }
  check_launch("binary");
  return true;
}

template <typename Op>
bool dispatch(DType dtype, const Layout& L, void* out, const void* a, const void* b, bool aligned, Launch launch) {
  switch (dtype) {
    case DType::f32: return launch_binary<Op, float>(L, out, a, b, aligned, launch);
    case DType::f64: return launch_binary<Op, double>(L, out, a, b, aligned, launch);
    case DType::f16: return launch_binary<Op, Half>(L, out, a, b, aligned, launch);
    case DType::bf16: return launch_binary<Op, BFloat16>(L, out, a, b, aligned, launch);
    default: break;
  }
  if constexpr (!std::is_same_v<Op, Div>) {
    if (dtype == DType::i32) return launch_binary<Op, std::int32_t>(L, out, a, b, aligned, launch);
    if (dtype == DType::i64) return launch_binary<Op, std::int64_t>(L, out, a, b, aligned, launch);
  }
  return false;
}

}  // namespace

bool binary(BinaryOp op, DType dtype, const Layout& L, void* out, const void* a, const void* b, bool aligned,
            Launch launch) {
  switch (op) {
    case BinaryOp::add: return dispatch<Add>(dtype, L, out, a, b, aligned, launch);
    case BinaryOp::subtract: return dispatch<Sub>(dtype, L, out, a, b, aligned, launch);
    case BinaryOp::multiply: return dispatch<Mul>(dtype, L, out, a, b, aligned, launch);
    case BinaryOp::divide: return dispatch<Div>(dtype, L, out, a, b, aligned, launch);
  }
  return false;
}

}  // namespace accelera::cuda::kernels
