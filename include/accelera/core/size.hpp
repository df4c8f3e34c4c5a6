#pragma once
// Sizes written by people: "123", "64MB", "2GiB", "1.5GB".
#include <cstdint>
#include <string_view>

#include "accelera/core/export.hpp"

namespace accelera {

// Bytes in `text`: decimal units (kB, MB, GB, TB: powers of 1000) or binary ones (KiB, MiB, GiB, TiB);
// the B is optional. Throws ValueError saying what was wrong: not a size, below one byte, or beyond 2^63.
ACC_API std::int64_t parse_size(std::string_view text);

}  // namespace accelera
