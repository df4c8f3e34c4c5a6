// Every binary element-wise function of ops/elementwise.hpp as CUDA kernels, generated from its one-line
// definition, over broadcast (stride-0) and strided operands. Half formats compute in float. Contiguous,
// 16-byte aligned operands take a vector path: one 16-byte load per operand per thread and step.
#include "backends/cuda/elementwise_math.cuh"
#include "backends/cuda/launch.hpp"

namespace accelera::cuda::kernels {

namespace {

namespace functions {
using namespace elementwise_math;
#define ACC_CUDA_BINARY_FUNCTION(name, kind, expression) \
  struct name {                                          \
    template <typename C>                                \
    __device__ static auto apply(C x, C y) {             \
      return expression;                                 \
    }                                                    \
  };
ACC_BINARY_FUNCTIONS(ACC_CUDA_BINARY_FUNCTION)
#undef ACC_CUDA_BINARY_FUNCTION
}  // namespace functions

// T: the storage type of a and b; O: the output's (T, or Bool for the functions that return bool).
template <typename Fn, typename T, typename O>
__device__ inline O apply(T a, T b) {
  return store_element<O>(Fn::apply(load_element(a), load_element(b)));
}

template <typename Fn, typename T, typename O>
__global__ void binary_strided(Layout L, O* out, const T* a, const T* b) {
  for (std::int64_t i = first_index(); i < L.numel; i += grid_stride()) {
    std::int64_t off[3];
    offsets_of<3>(L, i, off);
    out[off[0]] = apply<Fn, T, O>(a[off[1]], b[off[2]]);
  }
}

template <typename Fn, typename T>
__global__ void binary_vector(std::int64_t n, T* out, const T* a, const T* b) {
  using V = Vec<T>;
  const std::int64_t vectors = n / V::size;
  for (std::int64_t i = first_index(); i < vectors; i += grid_stride()) {
    const V x = reinterpret_cast<const V*>(a)[i];
    const V y = reinterpret_cast<const V*>(b)[i];
    V z;
#pragma unroll
    for (int j = 0; j < V::size; ++j) z.v[j] = apply<Fn, T, T>(x.v[j], y.v[j]);
    reinterpret_cast<V*>(out)[i] = z;
  }
  for (std::int64_t i = vectors * V::size + first_index(); i < n; i += grid_stride()) {
    out[i] = apply<Fn, T, T>(a[i], b[i]);
  }
}

// The vector path needs the output's elements as wide as the inputs': functions that return bool take the
// strided one.
template <typename Fn, typename T, typename O>
void launch_binary(const Layout& L, void* out, const void* a, const void* b, bool aligned, Launch launch) {
  auto* o = static_cast<O*>(out);
  const auto* x = static_cast<const T*>(a);
  const auto* y = static_cast<const T*>(b);
  if constexpr (std::is_same_v<T, O>) {
    if (aligned) {
      binary_vector<Fn, T><<<blocks_for(L.numel / Vec<T>::size + 1, launch), kThreads, 0, launch.stream>>>(L.numel, o, x,
                                                                                                          y);
      check_launch("binary");
      return;
    }
  }
  binary_strided<Fn, T, O><<<blocks_for(L.numel, launch), kThreads, 0, launch.stream>>>(L, o, x, y);
  check_launch("binary");
}

template <typename Fn, ElementwiseKind Kind>
bool dispatch(DType dtype, const Layout& L, void* out, const void* a, const void* b, bool aligned, Launch launch) {
  return with_elementwise_type<Kind>(dtype, [&](auto t) {
    using T = decltype(t);
    launch_binary<Fn, T, std::conditional_t<returns_bool(Kind), Bool, T>>(L, out, a, b, aligned, launch);
  });
}

}  // namespace

bool binary(BinaryFunction fn, DType dtype, const Layout& L, void* out, const void* a, const void* b, bool aligned,
            Launch launch) {
  switch (fn) {
#define ACC_CUDA_BINARY_CASE(name, kind, expression) \
  case BinaryFunction::name:                         \
    return dispatch<functions::name, ElementwiseKind::kind>(dtype, L, out, a, b, aligned, launch);
    ACC_BINARY_FUNCTIONS(ACC_CUDA_BINARY_CASE)
#undef ACC_CUDA_BINARY_CASE
  }
  return false;
}

}  // namespace accelera::cuda::kernels
