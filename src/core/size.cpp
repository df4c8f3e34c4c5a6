#include "accelera/core/size.hpp"

#include <cctype>
#include <regex>
#include <string>

#include "accelera/core/error.hpp"

namespace accelera {

std::int64_t parse_size(std::string_view view) {
  const std::string text(view);
  static const std::regex re(R"(\s*([0-9]*\.?[0-9]+)\s*([kKmMgGtT]?)(i?)[bB]?\s*)");
  std::smatch match;
  ACC_CHECK(std::regex_match(text, match, re), ValueError, "cannot read '{}' as a size (e.g. 512MB, 2GB, 1GiB)",
            text);
  double bytes = std::stod(match[1].str());  // digits only: cannot fail, and overflow gives inf
  const char unit = static_cast<char>(std::toupper(match[2].str().empty() ? ' ' : match[2].str()[0]));
  const double base = match[3].str().empty() ? 1000.0 : 1024.0;
  const int power = unit == 'K' ? 1 : unit == 'M' ? 2 : unit == 'G' ? 3 : unit == 'T' ? 4 : 0;
  for (int i = 0; i < power; ++i) bytes *= base;
  ACC_CHECK(bytes >= 1, ValueError, "a size must be at least one byte, got '{}'", text);
  // 2^63 is the first double that does not fit an int64.
  ACC_CHECK(bytes < 9223372036854775808.0, ValueError, "'{}' is too large: sizes stop below 2^63 bytes (8 EiB)",
            text);
  return static_cast<std::int64_t>(bytes);
}

}  // namespace accelera
