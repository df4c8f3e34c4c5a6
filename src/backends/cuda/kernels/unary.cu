// Element-wise neg, exp, log, tanh, relu, sigmoid. Half formats compute in float; integers take neg and
// relu only (neg wraps as in NumPy). Contiguous, 16-byte aligned operands take a vector path.
#include "backends/cuda/kernels/common.cuh"

namespace accelera::cuda::kernels {

namespace {

struct Neg {
  template <typename C>
  __device__ static C apply(C x) {
    if constexpr (std::is_integral_v<C>) {
      using U = std::make_unsigned_t<C>;
      return static_cast<C>(U{0} - static_cast<U>(x));
    } else {
      return -x;
    }
  }
};
// NumPy's maximum propagates nan; so does this.
struct Relu {
  template <typename C> __device__ static C apply(C x) { return x > C{0} || x != x ? x : C{0}; }
};
struct Exp {
  template <typename C> __device__ static C apply(C x) { return exp_of(x); }
};
struct Log {
  template <typename C> __device__ static C apply(C x) { return log_of(x); }
};
struct Tanh {
  template <typename C> __device__ static C apply(C x) { return tanh_of(x); }
};
struct Sigmoid {
  template <typename C> __device__ static C apply(C x) { return C{1} / (C{1} + exp_of(-x)); }
};

template <typename Op, typename T>
__device__ inline T apply(T x) {
  return store<T>(Op::apply(load(x)));
}

template <typename Op, typename T>
__global__ void unary_strided(Layout L, T* out, const T* x) {
  for (std::int64_t i = first_index(); i < L.numel; i += grid_stride()) {
    std::int64_t off[2];
    offsets_of<2>(L, i, off);
    out[off[0]] = apply<Op>(x[off[1]]);
  }
}

template <typename Op, typename T>
__global__ void unary_vector(std::int64_t n, T* out, const T* x) {
  using V = Vec<T>;
  const std::int64_t vectors = n / V::size;
  for (std::int64_t i = first_index(); i < vectors; i += grid_stride()) {
    const V a = reinterpret_cast<const V*>(x)[i];
    V z;
#pragma unroll
    for (int j = 0; j < V::size; ++j) z.v[j] = apply<Op>(a.v[j]);
    reinterpret_cast<V*>(out)[i] = z;
  }
  for (std::int64_t i = vectors * V::size + first_index(); i < n; i += grid_stride()) out[i] = apply<Op>(x[i]);
}

template <typename Op, typename T>
bool launch_unary(const Layout& L, void* out, const void* x, bool aligned, Launch launch) {
  auto* o = static_cast<T*>(out);
  const auto* i = static_cast<const T*>(x);
  if (aligned) {
    unary_vector<Op, T><<<blocks_for(L.numel / Vec<T>::size + 1, launch), kThreads, 0, launch.stream>>>(L.numel, o, i);
  } else {
    unary_strided<Op, T><<<blocks_for(L.numel, launch), kThreads, 0, launch.stream>>>(L, o, i);
  }
  check_launch("unary");
  return true;
}

template <typename Op>
bool dispatch(DType dtype, const Layout& L, void* out, const void* x, bool aligned, Launch launch) {
  switch (dtype) {
    case DType::f32: return launch_unary<Op, float>(L, out, x, aligned, launch);
    case DType::f64: return launch_unary<Op, double>(L, out, x, aligned, launch);
    case DType::f16: return launch_unary<Op, Half>(L, out, x, aligned, launch);
    case DType::bf16: return launch_unary<Op, BFloat16>(L, out, x, aligned, launch);
    default: break;
  }
  if constexpr (std::is_same_v<Op, Neg> || std::is_same_v<Op, Relu>) {
    if (dtype == DType::i32) return launch_unary<Op, std::int32_t>(L, out, x, aligned, launch);
    if (dtype == DType::i64) return launch_unary<Op, std::int64_t>(L, out, x, aligned, launch);
  }
  return false;
}

}  // namespace

bool unary(UnaryOp op, DType dtype, const Layout& L, void* out, const void* x, bool aligned, Launch launch) {
  switch (op) {
    case UnaryOp::neg: return dispatch<Neg>(dtype, L, out, x, aligned, launch);
    case UnaryOp::exp: return dispatch<Exp>(dtype, L, out, x, aligned, launch);
    case UnaryOp::log: return dispatch<Log>(dtype, L, out, x, aligned, launch);
    case UnaryOp::tanh: return dispatch<Tanh>(dtype, L, out, x, aligned, launch);
    case UnaryOp::relu: return dispatch<Relu>(dtype, L, out, x, aligned, launch);
    case UnaryOp::sigmoid: return dispatch<Sigmoid>(dtype, L, out, x, aligned, launch);
  }
  return false;
}

}  // namespace accelera::cuda::kernels
