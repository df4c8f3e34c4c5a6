// Every unary element-wise function of ops/elementwise.hpp as CUDA kernels, generated from its one-line
// definition. Half formats compute in float. Contiguous, 16-byte aligned operands take a vector path.
#include "backends/cuda/elementwise_math.cuh"
#include "backends/cuda/launch.hpp"

namespace accelera::cuda::kernels {

namespace {

namespace functions {
using namespace elementwise_math;
#define ACC_CUDA_UNARY_FUNCTION(name, kind, expression) \
  struct name {                                         \
    template <typename C>                               \
    __device__ static auto apply(C x) {                 \
      return expression;                                \
    }                                                   \
  };
ACC_UNARY_FUNCTIONS(ACC_CUDA_UNARY_FUNCTION)
#undef ACC_CUDA_UNARY_FUNCTION
}  // namespace functions

// T: the storage type of x; O: the output's (T, or Bool for the functions that return bool).
template <typename Fn, typename T, typename O>
__device__ inline O apply(T x) {
  return store_element<O>(Fn::apply(load_element(x)));
}

template <typename Fn, typename T, typename O>
__global__ void unary_strided(Layout L, O* out, const T* x) {
  for (std::int64_t i = first_index(); i < L.numel; i += grid_stride()) {
    std::int64_t off[2];
    offsets_of<2>(L, i, off);
    out[off[0]] = apply<Fn, T, O>(x[off[1]]);
  }
}

template <typename Fn, typename T>
__global__ void unary_vector(std::int64_t n, T* out, const T* x) {
  using V = Vec<T>;
  const std::int64_t vectors = n / V::size;
  for (std::int64_t i = first_index(); i < vectors; i += grid_stride()) {
    const V a = reinterpret_cast<const V*>(x)[i];
    V z;
#pragma unroll
    for (int j = 0; j < V::size; ++j) z.v[j] = apply<Fn, T, T>(a.v[j]);
    reinterpret_cast<V*>(out)[i] = z;
  }
  for (std::int64_t i = vectors * V::size + first_index(); i < n; i += grid_stride()) out[i] = apply<Fn, T, T>(x[i]);
}

// The vector path needs the output's elements as wide as the input's: functions that return bool take the
// strided one.
template <typename Fn, typename T, typename O>
void launch_unary(const Layout& L, void* out, const void* x, bool aligned, Launch launch) {
  auto* o = static_cast<O*>(out);
  const auto* i = static_cast<const T*>(x);
  if constexpr (std::is_same_v<T, O>) {
    if (aligned) {
      unary_vector<Fn, T><<<blocks_for(L.numel / Vec<T>::size + 1, launch), kThreads, 0, launch.stream>>>(L.numel, o, i);
      check_launch("unary");
      return;
    }
  }
  unary_strided<Fn, T, O><<<blocks_for(L.numel, launch), kThreads, 0, launch.stream>>>(L, o, i);
  check_launch("unary");
}

template <typename Fn, ElementwiseKind Kind>
bool dispatch(DType dtype, const Layout& L, void* out, const void* x, bool aligned, Launch launch) {
  return with_elementwise_type<Kind>(dtype, [&](auto t) {
    using T = decltype(t);
    launch_unary<Fn, T, std::conditional_t<returns_bool(Kind), Bool, T>>(L, out, x, aligned, launch);
  });
}

}  // namespace

bool unary(UnaryFunction fn, DType dtype, const Layout& L, void* out, const void* x, bool aligned, Launch launch) {
  switch (fn) {
#define ACC_CUDA_UNARY_CASE(name, kind, expression) \
  case UnaryFunction::name:                         \
    return dispatch<functions::name, ElementwiseKind::kind>(dtype, L, out, x, aligned, launch);
    ACC_UNARY_FUNCTIONS(ACC_CUDA_UNARY_CASE)
#undef ACC_CUDA_UNARY_CASE
  }
  return false;
}

}  // namespace accelera::cuda::kernels
