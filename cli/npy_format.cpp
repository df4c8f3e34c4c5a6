#include "npy_format.hpp"

#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "accelera/core/error.hpp"

namespace accelera::cli {

namespace {

constexpr unsigned char kMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr std::size_t kMagicBytes = sizeof(kMagic);

std::size_t little_endian(const unsigned char* bytes, std::size_t count) {
  std::size_t value = 0;
  for (std::size_t i = count; i-- > 0;) value = value << 8 | bytes[i];
  return value;
}

}  // namespace

std::size_t npy_data_bytes(const NpyHeader& header, std::string_view source) {
  // Every extent is below 2^63 (the parser checks); their product and the byte count are checked here.
  // As in NumPy, the extents other than zero must multiply to a size that fits even when one extent is zero,
  // so that every stride of the array fits too.
  std::int64_t bytes = static_cast<std::int64_t>(dtype_size(header.dtype));
  bool overflow = false;
  bool empty = false;
  for (const std::int64_t extent : header.shape) {
    if (extent == 0) {
      empty = true;
    } else {
      overflow = overflow || __builtin_mul_overflow(bytes, extent, &bytes);
    }
  }
  ACC_CHECK(!overflow, ValueError, "{}: the shape in the .npy header needs more than 2^63 - 1 bytes of data", source);
  if (empty) return 0;
  return static_cast<std::size_t>(bytes);
}

NpyLayout read_npy_layout(std::span<const unsigned char> bytes, std::string_view source) {
  ACC_CHECK(bytes.size() >= kMagicBytes + 2 && std::memcmp(bytes.data(), kMagic, kMagicBytes) == 0, ValueError,
            "{} is not a .npy file (it does not start with \\x93NUMPY)", source);
  const unsigned major = bytes[6], minor = bytes[7];
  ACC_CHECK((major == 1 || major == 2 || major == 3) && minor == 0, ValueError,
            "{}: .npy format version {}.{} is not supported (1.0, 2.0 and 3.0 are)", source, major, minor);
  // Version 1.0 stores the header length in 2 bytes, later versions in 4.
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  const std::size_t header_offset = kMagicBytes + 2 + length_bytes;
  ACC_CHECK(bytes.size() >= header_offset, ValueError, "{}: the .npy file ends inside its header length ({} bytes)",
            source, bytes.size());
  const std::size_t header_length = little_endian(bytes.data() + kMagicBytes + 2, length_bytes);
  // Both terms are below 2^32 + 12: no overflow.
  ACC_CHECK(header_length <= bytes.size() - header_offset, ValueError,
            "{}: the .npy header says it is {} bytes long, but the file ends {} bytes after its start", source,
            header_length, bytes.size() - header_offset);
  NpyLayout layout;
  const std::string_view text(reinterpret_cast<const char*>(bytes.data() + header_offset), header_length);
  layout.header = parse_npy_header(text, source);
  layout.data_offset = header_offset + header_length;
  layout.data_bytes = npy_data_bytes(layout.header, source);
  const std::size_t available = bytes.size() - layout.data_offset;
  ACC_CHECK(layout.data_bytes <= available, ValueError,
            "{}: the file is shorter than its shape says: the data needs {} bytes, the file holds {} after the header "
            "(truncated, or still being written?)",
            source, layout.data_bytes, available);
  layout.trailing_bytes = available - layout.data_bytes;
  return layout;
}

std::string npy_file_prefix(const NpyHeader& header) {
  std::string text = format_npy_header(header, kMagicBytes + 2 + 2);
  unsigned major = 1;
  if (text.size() > 0xffff) {
    major = 2;
    text = format_npy_header(header, kMagicBytes + 2 + 4);
  }
  std::string prefix(reinterpret_cast<const char*>(kMagic), kMagicBytes);
  prefix.push_back(static_cast<char>(major));
  prefix.push_back('\0');
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  for (std::size_t i = 0; i < length_bytes; ++i) prefix.push_back(static_cast<char>((text.size() >> (8 * i)) & 0xff));
  return prefix + text;
}

}  // namespace accelera::cli
