#pragma once
// The header of a .npy file: the Python literal dictionary after the magic string, version and length,
// read strictly (Note [The .npy header grammar] in npy_header.cpp) and written as numpy.save writes it.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "accelera/core/dtype.hpp"

namespace accelera::cli {

// The dtypes a .npy file may hold here: little-endian float32 ('<f4') and float64 ('<f8').
struct NpyHeader {
  DType dtype = DType::f32;
  bool fortran_order = false;
  std::vector<std::int64_t> shape;  // any rank up to kMaxNpyRank, each extent in [0, 2^63)
};

inline constexpr std::size_t kMaxNpyRank = 64;  // NumPy's own limit on dimensions

// Parses a header's text (everything after the length field, padding and final newline included).
// `source` names the file in error messages. Throws ValueError for a malformed header, ShapeError for a
// shape that is not a tuple of non-negative extents, DTypeError for an unsupported descr.
NpyHeader parse_npy_header(std::string_view text, std::string_view source);

// The header text numpy.save writes for `header`, padded with spaces and ended by '\n' so that
// `prefix_bytes` plus its length is a multiple of 64 (the data then starts aligned).
std::string format_npy_header(const NpyHeader& header, std::size_t prefix_bytes);

// "<f4" or "<f8": the descr written for float32 or float64 (DTypeError for other dtypes).
std::string_view npy_descr(DType dtype);

}  // namespace accelera::cli
