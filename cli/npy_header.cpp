#include "npy_header.hpp"

#include <array>
#include <cstddef>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "accelera/core/error.hpp"

// Note [The .npy header grammar]
// NumPy writes the header as repr() of a dict and reads it back with ast.literal_eval, so any Python
// literal with the right keys loads. We read the subset that NumPy and every other writer produce, and
// reject the rest with a message rather than guess:
//
//   header := ws '{' ws [ entry (ws ',' ws entry)* [ws ','] ws ] '}' ws        (last byte '\n')
//   entry  := string ws ':' ws value      keys: exactly 'descr', 'fortran_order', 'shape', any order
//   descr  := '<f4' | '<f8'               (little-endian float32 / float64)
//   fortran_order := True | False
//   shape  := '(' ws ')' | '(' ws int ws ',' ws ')' | '(' ws int (ws ',' ws int)+ [ws ','] ws ')'
//   int    := '0' | [1-9][0-9]*           (decimal, below 2^63)
//   string := "'" chars "'" | '"' chars '"'   (no escapes, no prefixes)
//   ws     := (' ' | '\t' | '\n' | '\r' | '\f')*
//
// Stricter than ast.literal_eval on purpose: no duplicate keys (Python keeps the last one silently), no
// Python 2 long suffixes ('40L', which NumPy still reads from version 1 and 2 files), no signs, hex,
// underscores or leading zeros in extents, no comments or string concatenation. Each of those would be
// a file written by hand or damaged; the message says what was found and where. The parser runs in one
// pass without recursion, so no input can exhaust the stack.

namespace accelera::cli {

namespace {

constexpr std::array<std::string_view, 3> kKeys = {"descr", "fortran_order", "shape"};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_word_char(char c) { return is_digit(c) || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// The header as it can be shown in a message: printable ASCII, escapes for the rest, padding dropped.
std::string printable(std::string_view text) {
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  constexpr std::size_t kShown = 200;
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < kShown; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\\') {
      out += "\\\\";
    } else if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  if (text.size() > kShown) out += "...";
  return out;
}

class HeaderParser {
 public:
  HeaderParser(std::string_view text, std::string_view source) : m_text(text), m_source(source) {}

  NpyHeader parse() {
    NpyHeader header;
    std::array<bool, kKeys.size()> seen{};
    skip_space();
    expect('{', "the header must start with '{'");
    skip_space();
    while (peek() != '}') {
      if (m_pos == m_text.size()) fail("the header ends before its closing '}'");
      const std::size_t key_at = m_pos;
      const std::string_view key = parse_string("a quoted key ('descr', 'fortran_order' or 'shape')");
      std::size_t index = 0;
      while (index < kKeys.size() && kKeys[index] != key) ++index;
      if (index == kKeys.size()) {
        fail_at(key_at, fmt::format("unexpected key '{}' (a .npy header has exactly 'descr', 'fortran_order' and "
                                    "'shape')",
                                    printable(key)));
      }
      if (seen[index]) fail_at(key_at, fmt::format("key '{}' appears twice", key));
      seen[index] = true;
      skip_space();
      expect(':', fmt::format("expected ':' after '{}'", key));
      skip_space();
      if (index == 0) header.dtype = parse_descr();
      if (index == 1) header.fortran_order = parse_bool();
      if (index == 2) header.shape = parse_shape();
      skip_space();
      if (peek() == ',') {
        ++m_pos;
        skip_space();
      } else if (m_pos == m_text.size()) {
        fail("the header ends before its closing '}'");
      } else if (peek() != '}') {
        fail(fmt::format("expected ',' or '}}' after the value of '{}'", key));
      }
    }
    ++m_pos;  // the '}'
    for (std::size_t i = 0; i < kKeys.size(); ++i) {
      if (!seen[i]) fail(fmt::format("the key '{}' is missing", kKeys[i]));
    }
    skip_space();
    if (m_pos != m_text.size()) fail("unexpected text after the closing '}'");
    if (m_text.back() != '\n') fail("the header must end with a newline");
    return header;
  }

 private:
  template <typename ErrorType = ValueError>
  [[noreturn]] void fail_at(std::size_t pos, const std::string& what) const {
    throw ErrorType(fmt::format("{}: invalid .npy header: {} (at byte {} of the header \"{}\")", m_source, what, pos,
                                printable(m_text)));
  }
  [[noreturn]] void fail(const std::string& what) const { fail_at(m_pos, what); }

  // The next character, or '\0' at the end (a NUL inside the header is never valid either).
  char peek() const { return m_pos < m_text.size() ? m_text[m_pos] : '\0'; }
  std::string found() const {
    return m_pos < m_text.size() ? fmt::format("'{}'", printable(m_text.substr(m_pos, 1))) : "the end of the header";
  }

  void skip_space() {
    while (m_pos < m_text.size() && is_space(m_text[m_pos])) ++m_pos;
  }

  void expect(char c, const std::string& what) {
    if (peek() != c) fail(fmt::format("{}, found {}", what, found()));
    ++m_pos;
  }

  std::string_view parse_string(const std::string& what) {
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail(fmt::format("expected {}, found {}", what, found()));
    const std::size_t start = ++m_pos;
    while (m_pos < m_text.size() && m_text[m_pos] != quote) {
      const char c = m_text[m_pos];
      if (c == '\\') fail("escapes in strings are not supported");
      if (c == '\n' || c == '\r') fail("unterminated string");
      ++m_pos;
    }
    if (m_pos >= m_text.size()) fail_at(start - 1, "unterminated string");
    return m_text.substr(start, m_pos++ - start);
  }

  std::string_view parse_word() {
    const std::size_t start = m_pos;
    while (m_pos < m_text.size() && is_word_char(m_text[m_pos])) ++m_pos;
    return m_text.substr(start, m_pos - start);
  }

  DType parse_descr() {
    if (peek() == '[') {
      throw DTypeError(
          fmt::format("{}: structured dtypes (a list as 'descr') are not supported: accelera reads "
                      "little-endian float32 ('<f4') and float64 ('<f8')",
                      m_source));
    }
    const std::string_view descr = parse_string("a string for 'descr', e.g. '<f8'");
    if (descr == "<f4") return DType::f32;
    if (descr == "<f8") return DType::f64;
    if (descr == ">f4" || descr == ">f8") {
      throw DTypeError(
          fmt::format("{}: big-endian data ('{}') is not supported: convert it with "
                      "a.astype('<{}') and save it again",
                      m_source, descr, descr.substr(1)));
    }
    throw DTypeError(
        fmt::format("{}: dtype '{}' is not supported: accelera reads little-endian float32 ('<f4') "
                    "and float64 ('<f8'), as numpy.save writes them",
                    m_source, printable(descr)));
  }

  bool parse_bool() {
    const std::size_t start = m_pos;
    const std::string_view word = parse_word();
    if (word == "True") return true;
    if (word == "False") return false;
    m_pos = start;
    fail(fmt::format("'fortran_order' must be True or False, found {}", found()));
  }

  std::vector<std::int64_t> parse_shape() {
    if (peek() == '[') fail("'shape' must be a tuple such as (3, 4), not a list");
    expect('(', "'shape' must be a tuple such as (3, 4)");
    std::vector<std::int64_t> shape;
    skip_space();
    if (peek() == ')') {
      ++m_pos;
      return shape;  // (): a 0-d array
    }
    while (true) {
      if (shape.size() == kMaxNpyRank) fail(fmt::format("'shape' has more than {} dimensions", kMaxNpyRank));
      shape.push_back(parse_extent());
      skip_space();
      if (peek() == ',') {
        ++m_pos;
        skip_space();
        if (peek() == ')') break;
        continue;
      }
      if (peek() != ')') fail(fmt::format("expected ',' or ')' in 'shape', found {}", found()));
      if (shape.size() == 1) fail("'shape' (n) is a number, not a tuple: a 1-tuple is written (n,)");
      break;
    }
    ++m_pos;  // the ')'
    return shape;
  }

  std::int64_t parse_extent() {
    const std::size_t start = m_pos;
    if (peek() == '-') fail_at<ShapeError>(start, "'shape' has a negative extent");
    if (!is_digit(peek())) fail(fmt::format("expected a non-negative integer in 'shape', found {}", found()));
    std::uint64_t value = 0;
    bool overflow = false;
    while (is_digit(peek())) {
      const auto digit = static_cast<std::uint64_t>(m_text[m_pos] - '0');
      overflow = overflow || value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10;
      if (!overflow) value = value * 10 + digit;
      ++m_pos;
    }
    const std::string_view digits = m_text.substr(start, m_pos - start);
    if (peek() == 'L' || peek() == 'l') {
      fail_at(start, fmt::format("the extent {}{} is a Python 2 long literal: load the file with NumPy and save it "
                                 "again to write a current header",
                                 digits, peek()));
    }
    if (is_word_char(peek()) || peek() == '.') {
      fail_at(start, "extents in 'shape' must be decimal integers (no hex, underscores or fractions)");
    }
    if (digits.size() > 1 && digits[0] == '0') fail_at(start, fmt::format("extent {} has leading zeros", digits));
    if (overflow || value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      fail_at(start, fmt::format("the extent {} in 'shape' is too large (extents stop below 2^63)", digits));
    }
    return static_cast<std::int64_t>(value);
  }

  std::string_view m_text;
  std::string_view m_source;
  std::size_t m_pos = 0;
};

}  // namespace

NpyHeader parse_npy_header(std::string_view text, std::string_view source) {
  return HeaderParser(text, source).parse();
}

std::string_view npy_descr(DType dtype) {
  ACC_CHECK(dtype == DType::f32 || dtype == DType::f64, DTypeError,
            ".npy files are written as float32 or float64, not {}", dtype_name(dtype));
  return dtype == DType::f32 ? "<f4" : "<f8";
}

std::string format_npy_header(const NpyHeader& header, std::size_t prefix_bytes) {
  std::string shape;
  for (const std::int64_t extent : header.shape) shape += fmt::format("{}, ", extent);
  if (header.shape.size() > 1) shape.resize(shape.size() - 2);  // (3, 4) but (3,)
  if (header.shape.size() == 1) shape.pop_back();
  std::string text = fmt::format("{{'descr': '{}', 'fortran_order': {}, 'shape': ({}), }}", npy_descr(header.dtype),
                                 header.fortran_order ? "True" : "False", shape);
  const std::size_t unpadded = prefix_bytes + text.size() + 1;
  text.append((64 - unpadded % 64) % 64, ' ');
  text.push_back('\n');
  return text;
}

}  // namespace accelera::cli
