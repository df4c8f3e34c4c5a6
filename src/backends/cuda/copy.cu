// Strided copies: same-dtype moves by element size, and conversions between any two stored dtypes with
// the CPU backend's semantics (float to int as core/convert.hpp converts; half formats
// round once, to nearest even; bool is "not zero").
#include "backends/cuda/common.cuh"
#include "core/integer_dtypes.hpp"

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

// As the CPU (core/convert.hpp): int32 and int64 take their minimum out of range and for nan; int8 and
// int16 keep the low bits of the int32 conversion, the unsigned types those of the int64 one; uint64 takes
// [2^63, 2^64) directly.
template <typename D, typename V>
__device__ inline D float_to_integer(V v) {
  if constexpr (std::is_same_v<D, std::uint64_t>) {
    if (v >= V(0x1p63) && v < V(0x1p64)) return static_cast<D>(v);
    return static_cast<D>(float_to_integer<std::int64_t>(v));
  } else if constexpr (std::is_unsigned_v<D>) {
    return static_cast<D>(float_to_integer<std::int64_t>(v));
  } else if constexpr (sizeof(D) < 4) {
    return static_cast<D>(float_to_integer<std::int32_t>(v));
  } else {
    constexpr D lowest = std::is_same_v<D, std::int32_t> ? D(INT32_MIN) : D(INT64_MIN);
    constexpr V lo = static_cast<V>(static_cast<double>(lowest));
    return (v >= lo && v < -lo) ? static_cast<D>(v) : lowest;
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
    return float_to_integer<D>(v);
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
#define ACC_CONVERT_FROM_INTEGER(dt, type) \
  case dt: return convert_to<D>(static_cast<const type*>(src)[i]);
    ACC_FOR_EACH_INTEGER_DTYPE(ACC_CONVERT_FROM_INTEGER)
#undef ACC_CONVERT_FROM_INTEGER
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
#define ACC_CONVERT_TO_INTEGER(dt, type) \
  case dt: return launch_convert<type>(L, dst, src, src_dtype, launch);
    ACC_FOR_EACH_INTEGER_DTYPE(ACC_CONVERT_TO_INTEGER)
#undef ACC_CONVERT_TO_INTEGER
    case DType::boolean: return launch_convert<Bool>(L, dst, src, src_dtype, launch);
  }
}

}  // namespace accelera::cuda::kernels
