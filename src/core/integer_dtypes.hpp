#pragma once
// X(dtype, C++ type) for every integer dtype, in DType's order: the one list that the backends' type
// switches expand, so that a kernel handling "every integer" cannot miss one.
#include <cstdint>

#include "accelera/core/dtype.hpp"

#define ACC_FOR_EACH_INTEGER_DTYPE(X)                                                                     \
  X(::accelera::DType::i8, std::int8_t)                                                                   \
  X(::accelera::DType::i16, std::int16_t)                                                                 \
  X(::accelera::DType::i32, std::int32_t)                                                                 \
  X(::accelera::DType::i64, std::int64_t)                                                                 \
  X(::accelera::DType::u8, std::uint8_t)                                                                  \
  X(::accelera::DType::u16, std::uint16_t)                                                                \
  X(::accelera::DType::u32, std::uint32_t)                                                                \
  X(::accelera::DType::u64, std::uint64_t)
