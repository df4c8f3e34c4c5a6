// The .npy header parser (cli/npy_header.cpp): headers as numpy.save writes them for many shapes, dtypes
// and orders, the spellings NumPy also accepts, and malformed headers, each with the error type and message
// it must give.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "accelera/core/error.hpp"
#include "npy_header.hpp"

namespace {

using accelera::DType;
using accelera::cli::format_npy_header;
using accelera::cli::NpyHeader;
using accelera::cli::parse_npy_header;

// Padded as numpy.save pads a version 1.0 header: spaces up to a multiple of 64 bytes, then '\n'.
std::string padded(const std::string& dict) {
  std::string text = dict;
  const std::size_t unpadded = 10 + text.size() + 1;
  text.append((64 - unpadded % 64) % 64, ' ');
  return text + "\n";
}

struct ValidCase {
  std::string dict;
  DType dtype;
  bool fortran_order;
  std::vector<std::int64_t> shape;
};

// Dictionaries exactly as numpy.save (NumPy 2.4) writes them, then spellings ast.literal_eval also reads.
const std::vector<ValidCase> kValid = {
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (), }", DType::f32, false, {}},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }", DType::f32, false, {0}},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (7,), }", DType::f32, false, {7}},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", DType::f32, false, {3, 4}},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (0, 5), }", DType::f32, false, {0, 5}},
    {"{'descr': '<f4', 'fortran_order': True, 'shape': (123, 77), }", DType::f32, true, {123, 77}},
    {"{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3, 4), }", DType::f32, true, {2, 3, 4}},
    {"{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }", DType::f64, false, {1, 1}},
    {"{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2, 3, 4, 5), }", DType::f64, false, {1, 2, 3, 4, 5}},
    {"{'descr': '<f8', 'fortran_order': False, 'shape': (2147483648, 3), }", DType::f64, false, {2147483648, 3}},
    {"{'descr': '<f8', 'fortran_order': False, 'shape': (9223372036854775807,), }",
     DType::f64,
     false,
     {9223372036854775807}},
    {"{'descr': '<f8', 'fortran_order': True, 'shape': (3, 4), }", DType::f64, true, {3, 4}},
    // Any key order, no trailing comma, no spaces, double quotes, whitespace inside brackets.
    {"{'shape': (3, 4), 'fortran_order': True, 'descr': '<f8'}", DType::f64, true, {3, 4}},
    {"{'descr':'<f8','fortran_order':False,'shape':(3,4)}", DType::f64, false, {3, 4}},
    {"{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (3, 4)}", DType::f32, false, {3, 4}},
    {" {'descr': '<f8',\n 'fortran_order': False,\t'shape': ( 3 ,\n4 , ) ,\r\n}", DType::f64, false, {3, 4}},
    {"{'descr': '<f8', 'fortran_order': False, 'shape': (0, 0), }", DType::f64, false, {0, 0}},
};

TEST(NpyHeader, ReadsWhatNumpyWrites) {
  for (const ValidCase& c : kValid) {
    SCOPED_TRACE(c.dict);
    const NpyHeader h = parse_npy_header(padded(c.dict), "t.npy");
    EXPECT_EQ(h.dtype, c.dtype);
    EXPECT_EQ(h.fortran_order, c.fortran_order);
    EXPECT_EQ(h.shape, c.shape);
  }
}

TEST(NpyHeader, WritesWhatNumpyWritesAndReadsItBack) {
  for (const ValidCase& c : std::vector<ValidCase>(kValid.begin(), kValid.begin() + 12)) {
    SCOPED_TRACE(c.dict);
    const NpyHeader h{c.dtype, c.fortran_order, c.shape};
    const std::string text = format_npy_header(h, 10);
    EXPECT_EQ(text, padded(c.dict));
    EXPECT_EQ((10 + text.size()) % 64, 0u);
    EXPECT_EQ(parse_npy_header(text, "t.npy").shape, c.shape);
  }
}

enum class Kind { value, shape, dtype };

struct InvalidCase {
  std::string name;
  std::string text;  // the whole header text, padding included
  Kind kind;
  std::string needle;  // in the message, besides the file's name
};

const std::string kDescr = "'descr': '<f8', 'fortran_order': False, ";

const std::vector<InvalidCase> kInvalid = {
    {"negative extent", padded("{" + kDescr + "'shape': (-40, 30), }"), Kind::shape, "negative extent"},
    {"no closing brace", padded("{" + kDescr + "'shape': (40, 30), "), Kind::value, "before its closing '}'"},
    {"no closing brace nor comma", padded("{" + kDescr + "'shape': (40, 30)"), Kind::value, "before its closing '}'"},
    {"python 2 longs", padded("{" + kDescr + "'shape': (40L, 30L), }"), Kind::value, "Python 2 long"},
    {"extent beyond 64 bits", padded("{" + kDescr + "'shape': (99999999999999999999, 30), }"), Kind::value,
     "too large"},
    {"extent of 2^63", padded("{" + kDescr + "'shape': (9223372036854775808, 1), }"), Kind::value, "too large"},
    {"no newline", "{" + kDescr + "'shape': (3, 4), }", Kind::value, "end with a newline"},
    {"empty", "", Kind::value, "must start with '{'"},
    {"only padding", padded(""), Kind::value, "must start with '{'"},
    {"missing key", padded("{'descr': '<f8', 'shape': (3, 4), }"), Kind::value, "'fortran_order' is missing"},
    {"extra key", padded("{" + kDescr + "'shape': (3, 4), 'extra': 1}"), Kind::value, "unexpected key 'extra'"},
    {"duplicate key", padded("{" + kDescr + "'descr': '<f8', 'shape': (3, 4)}"), Kind::value, "appears twice"},
    {"two commas", padded("{" + kDescr + "'shape': (3, 4),,}"), Kind::value, "expected a quoted key"},
    {"missing comma", padded("{'descr': '<f8' 'fortran_order': False, 'shape': (3, 4)}"), Kind::value,
     "expected ',' or '}'"},
    {"missing colon", padded("{'descr' '<f8', 'fortran_order': False, 'shape': (3, 4)}"), Kind::value, "expected ':'"},
    {"shape as a list", padded("{" + kDescr + "'shape': [3, 4]}"), Kind::value, "not a list"},
    {"shape as a number", padded("{" + kDescr + "'shape': 12}"), Kind::value, "must be a tuple"},
    {"1-tuple without comma", padded("{" + kDescr + "'shape': (12)}"), Kind::value, "(n,)"},
    {"hex extent", padded("{" + kDescr + "'shape': (0x3, 4)}"), Kind::value, "decimal integers"},
    {"underscore extent", padded("{" + kDescr + "'shape': (1_0, 4)}"), Kind::value, "decimal integers"},
    {"float extent", padded("{" + kDescr + "'shape': (3.0, 4)}"), Kind::value, "decimal integers"},
    {"leading zeros", padded("{" + kDescr + "'shape': (3, 04)}"), Kind::value, "leading zeros"},
    {"plus sign", padded("{" + kDescr + "'shape': (+3, 4)}"), Kind::value, "non-negative integer"},
    {"empty extent", padded("{" + kDescr + "'shape': (3, , 4)}"), Kind::value, "non-negative integer"},
    {"unclosed shape", padded("{" + kDescr + "'shape': (3, 4}"), Kind::value, "expected ',' or ')'"},
    {"fortran_order as 0", padded("{'descr': '<f8', 'fortran_order': 0, 'shape': (3, 4)}"), Kind::value,
     "True or False"},
    {"fortran_order lower case", padded("{'descr': '<f8', 'fortran_order': false, 'shape': (3, 4)}"), Kind::value,
     "True or False"},
    {"int32", padded("{'descr': '<i4', 'fortran_order': False, 'shape': (3, 4)}"), Kind::dtype, "'<i4'"},
    {"float16", padded("{'descr': '<f2', 'fortran_order': False, 'shape': (3, 4)}"), Kind::dtype, "'<f2'"},
    {"big-endian", padded("{'descr': '>f8', 'fortran_order': False, 'shape': (3, 4)}"), Kind::dtype, "big-endian"},
    {"native order", padded("{'descr': '=f8', 'fortran_order': False, 'shape': (3, 4)}"), Kind::dtype, "'<f8'"},
    {"structured", padded("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (3,)}"), Kind::dtype,
     "structured"},
    {"concatenated strings", padded("{'descr': '<' 'f8', 'fortran_order': False, 'shape': (3, 4)}"), Kind::dtype,
     "dtype '<'"},
    {"escape", padded("{'descr': '<f\\x38', 'fortran_order': False, 'shape': (3, 4)}"), Kind::value, "escapes"},
    {"unterminated string", padded("{'descr': '<f8"), Kind::value, "unterminated string"},
    {"byte-string key", padded("{b'descr': '<f8', 'fortran_order': False, 'shape': (3, 4)}"), Kind::value,
     "expected a quoted key"},
    {"comment", padded("{" + kDescr + "'shape': (3, 4)} # note"), Kind::value, "after the closing '}'"},
    {"text after", padded("{" + kDescr + "'shape': (3, 4)} ; 1"), Kind::value, "after the closing '}'"},
    {"NUL padding", "{" + kDescr + "'shape': (3, 4)}" + std::string(3, '\0') + "\n", Kind::value,
     "after the closing '}'"},
    {"NUL inside", padded("{" + kDescr + "'shape': (3," + std::string(1, '\0') + " 4)}"), Kind::value, "found '\\x00'"},
    {"65 dimensions",
     padded("{" + kDescr + "'shape': (" +
            [] {
              std::string dims;
              for (int i = 0; i < 65; ++i) dims += "1, ";
              return dims;
            }() +
            ")}"),
     Kind::value, "more than 64 dimensions"},
};

TEST(NpyHeader, RejectsMalformedHeadersWithTypedErrors) {
  for (const InvalidCase& c : kInvalid) {
    SCOPED_TRACE(c.name);
    try {
      parse_npy_header(c.text, "bad.npy");
      ADD_FAILURE() << "accepted";
    } catch (const accelera::Error& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find("bad.npy"), std::string::npos) << message;
      EXPECT_NE(message.find(c.needle), std::string::npos) << message;
      if (c.kind == Kind::dtype) EXPECT_NE(dynamic_cast<const accelera::DTypeError*>(&error), nullptr) << message;
      if (c.kind == Kind::shape) EXPECT_NE(dynamic_cast<const accelera::ShapeError*>(&error), nullptr) << message;
      if (c.kind == Kind::value) EXPECT_NE(dynamic_cast<const accelera::ValueError*>(&error), nullptr) << message;
    }
  }
}

TEST(NpyHeader, MessagesShowTheHeaderPrintably) {
  try {
    parse_npy_header(padded("{'descr': '<f8', 'fortran_order': False, 'shape': (3, \x01)}"), "bad.npy");
    FAIL() << "accepted";
  } catch (const accelera::ValueError& error) {
    EXPECT_NE(std::string(error.what()).find("(3, \\x01)"), std::string::npos) << error.what();
  }
}

}  // namespace
