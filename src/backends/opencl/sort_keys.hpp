#pragma once
// Build options of the programs that use the keys of Note [Sort keys] (src/ops/sort.hpp): sort_keys.cl is
// their prelude.
#include <string>

#include "accelera/core/dtype.hpp"
#include "backends/opencl/programs.hpp"

namespace accelera::opencl {

inline std::string sort_key_options(DType dtype) {
  switch (dtype) {
    case DType::f32: return "-DE=uint -DK=uint -DSIGN=0x80000000u -DKEY_FLOAT=0x7F800000u";
    case DType::f64: return "-DE=ulong -DK=ulong -DSIGN=0x8000000000000000ul -DKEY_FLOAT=0x7FF0000000000000ul";
    case DType::f16: return "-DE=ushort -DK=uint -DSIGN=0x8000 -DKEY_FLOAT=0x7C00";
    case DType::bf16: return "-DE=ushort -DK=uint -DSIGN=0x8000 -DKEY_FLOAT=0x7F80";
    case DType::i32: return "-DE=uint -DK=uint -DSIGN=0x80000000u -DKEY_SIGNED";
    case DType::i64: return "-DE=ulong -DK=ulong -DSIGN=0x8000000000000000ul -DKEY_SIGNED";
    case DType::i8: return "-DE=uchar -DK=uint -DSIGN=0x80 -DKEY_SIGNED";
    case DType::i16: return "-DE=ushort -DK=uint -DSIGN=0x8000 -DKEY_SIGNED";
    // Unsigned integers and bool are their own keys.
    case DType::u8: return "-DE=uchar -DK=uint -DSIGN=0x80";
    case DType::u16: return "-DE=ushort -DK=uint -DSIGN=0x8000";
    case DType::u32: return "-DE=uint -DK=uint -DSIGN=0x80000000u";
    case DType::u64: return "-DE=ulong -DK=ulong -DSIGN=0x8000000000000000ul";
    case DType::boolean: return "-DE=uchar -DK=uint -DSIGN=0x80";
    case DType::c64:
    case DType::c128: break;  // not ordered: no sort kernel takes them
  }
  ACC_ASSERT(false, "no sort keys for dtype {}", dtype_name(dtype));
}

inline std::string_view sort_key_prelude() { return embedded_source("sort_keys"); }

}  // namespace accelera::opencl
