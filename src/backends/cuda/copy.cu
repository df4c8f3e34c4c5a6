// Strided copies: same-dtype moves by element size, and conversions between any two stored dtypes with
// the CPU backend's semantics (float to int out of range or nan gives the type's minimum; half formats
// round once, to nearest even; bool is "not zero").
#include "backends/cuda/common.cuh"

namespace accelera::cuda::kernels {

namespace {

template <typename E>
__global__ void move_kernel(Layout L, E* dst, const E* src) {
  for (std::int64_t i = first_index(); i < L.numel; i += grid_stride()) {
    std::int64_t off[2];
    offsets_of<2>(L, i, off);
    dst[off[0]] = src[off[1]];
  }
}

template <typename D, typename V>
__device__ inline D convert_to(V v) {
  if constexpr (std::is_same_v<D, Half> || std::is_same_v<D, BFloat16>) {
    // From float: one rounding; from anything wider: through round-to-odd float, still one rounding.
    float f;
    if constexpr (std::is_same_v<V, float>) {
      f = v;
    } else {
      f = double_to_float_round_odd(static_cast<double>(v));
    }
    if constexpr (std::is_same_v<D, Half>) return Half{float_to_half(f)};
    else return BFloat16{float_to_bf16(f)};
  } else if constexpr (std::is_same_v<D, Bool>) {
    return Bool{static_cast<std::uint8_t>(v != V{} ? 1 : 0)};
  } else if constexpr (std::is_integral_v<D> && std::is_floating_point_v<V>) {
    constexpr V lo = static_cast<V>(std::is_same_v<D, std::int32_t> ? static_cast<double>(INT32_MIN)
                                                                    : static_cast<double>(INT64_MIN));
    return (v >= lo && v < -lo) ? static_cast<D>(v) : (std::is_same_v<D, std::int32_t> ? D(INT32_MIN) : D(INT64_MIN));
  } else {
    return static_cast<D>(v);
  }
}

// The source value as the CPU loads it: half formats as float, bool as bool, the rest as themselves.
template <typename D>
__device__ inline D convert_from(const void* src, std::int64_t i, DType s) {
  switch (s) {
    case DType::f32: return convert_to<D>(static_cast<const float*>(src)[i]);
    case DType::f64: return convert_to<D>(static_cast<const double*>(src)[i]);
    case DType::f16: return convert_to<D>(half_to_float(static_cast<const Half*>(src)[i].bits));
    case DType::bf16: return convert_to<D>(bf16_to_float(static_cast<const BFloat16*>(src)[i].bits));
    case DType::i32: return convert_to<D>(static_cast<const std::int32_t*>(src)[i]);
    case DType::i64: return convert_to<D>(static_cast<const std::int64_t*>(src)[i]);
    case DType::boolean: return convert_to<D>(static_cast<const Bool*>(src)[i].value != 0);
  }
  return D{};
}

template <typename D>
__global__ void convert_kernel(Layout L, D* dst, const void* src, DType src_dtype) {
  for (std::int64_t i = first_index(); i < L.numel; i += grid_stride()) {
    std::int64_t off[2];
    offsets_of<2>(L, i, off);
    dst[off[0]] = convert_from<D>(src, off[1], src_dtype);
  }
}

template <typename D>
void launch_convert(const Layout& L, void* dst, const void* src, DType src_dtype, Launch launch) {
  convert_kernel<D><<<blocks_for(L.numel, launch), kThreads, 0, launch.stream>>>(L, static_cast<D*>(dst), src,
                                                                                 src_dtype);
  check_launch("convert_kernel");
}

}  // namespace

void copy_same(const Layout& L, void* dst, const void* src, std::size_t itemsize, Launch launch) {
  const unsigned blocks = blocks_for(L.numel, launch);
  switch (itemsize) {
    case 1: move_kernel<<<blocks, kThreads, 0, launch.stream>>>(L, static_cast<std::uint8_t*>(dst), static_cast<const std::uint8_t*>(src)); break;
    case 2: move_kernel<<<blocks, kThreads, 0, launch.stream>>>(L, static_cast<std::uint16_t*>(dst), static_cast<const std::uint16_t*>(src)); break;
    case 4: move_kernel<<<blocks, kThreads, 0, launch.stream>>>(L, static_cast<std::uint32_t*>(dst), static_cast<const std::uint32_t*>(src)); break;
    case 8: move_kernel<<<blocks, kThreads, 0, launch.stream>>>(L, static_cast<std::uint64_t*>(dst), static_cast<const std::uint64_t*>(src)); break;
    default: return;  // the host side only passes sizes of stored dtypes
  }
  check_launch("move_kernel");
}

void copy_convert(const Layout& L, void* dst, DType dst_dtype, const void* src, DType src_dtype, Launch launch) {
  switch (dst_dtype) {
    case DType::f32: return launch_convert<float>(L, dst, src, src_dtype, launch);
    case DType::f64: return launch_convert<double>(L, dst, src, src_dtype, launch);
    case DType::f16: return launch_convert<Half>(L, dst, src, src_dtype, launch);
    case DType::bf16: return launch_convert<BFloat16>(L, dst, src, src_dtype, launch);
    case DType::i32: return launch_convert<std::int32_t>(L, dst, src, src_dtype, launch);
    case DType::i64: return launch_convert<std::int64_t>(L, dst, src, src_dtype, launch);
    case DType::boolean: return launch_convert<Bool>(L, dst, src, src_dtype, launch);
  }
}

}  // namespace accelera::cuda::kernels
