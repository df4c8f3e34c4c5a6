#pragma once
// Where the parts of a .npy file lie: the magic string and version, the header, the data. Pure functions
// over bytes, so that the reader's every size check can be tested and fuzzed without a file.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "npy_header.hpp"

namespace accelera::cli {

struct NpyLayout {
  NpyHeader header;
  std::size_t data_offset = 0;     // where the first element starts
  std::size_t data_bytes = 0;      // elements x element size, checked against overflow
  std::size_t trailing_bytes = 0;  // bytes after the data, which numpy.load ignores too
};

// Reads the layout of a whole .npy file held in `bytes` (versions 1.0, 2.0 and 3.0). Throws ValueError
// (ShapeError, DTypeError) naming `source` and the problem, e.g. a file shorter than its shape says or a
// shape whose byte count overflows 64 bits.
NpyLayout read_npy_layout(std::span<const unsigned char> bytes, std::string_view source);

// Magic string, version, header length and header for a new file: version 1.0, as numpy.save writes it
// (2.0 when the header is longer than version 1.0 can say).
std::string npy_file_prefix(const NpyHeader& header);

// Elements times element size, or ValueError naming `source` if it exceeds 2^63 - 1 bytes.
std::size_t npy_data_bytes(const NpyHeader& header, std::string_view source);

}  // namespace accelera::cli
