// Fuzzes parse_npy_header: any text either parses into a header that obeys its contract and survives a
// round trip through the writer, or throws ValueError or DTypeError naming the file. Anything else (another
// exception, a sanitizer report) is a crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "accelera/core/error.hpp"
#include "npy_header.hpp"

namespace {

constexpr std::string_view kSource = "fuzz.npy";

void require(bool condition) {
  if (!condition) std::abort();
}

void require_named(const accelera::Error& error) {
  require(std::string_view(error.what()).find(kSource) != std::string_view::npos);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace accelera::cli;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const NpyHeader header = parse_npy_header(text, kSource);
    require(header.dtype == accelera::DType::f32 || header.dtype == accelera::DType::f64);
    require(header.shape.size() <= kMaxNpyRank);
    for (const std::int64_t extent : header.shape) require(extent >= 0);
    require(!text.empty() && text.back() == '\n');
    const NpyHeader back = parse_npy_header(format_npy_header(header, 10), kSource);
    require(back.dtype == header.dtype && back.fortran_order == header.fortran_order && back.shape == header.shape);
  } catch (const accelera::ValueError& error) {
    require_named(error);
  } catch (const accelera::DTypeError& error) {
    require_named(error);
  }
  return 0;
}
