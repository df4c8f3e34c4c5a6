// Reading .npy files (cli/npy_format.cpp, cli/npy.cpp): the layout checks over raw bytes (versions, header
// length, sizes that overflow, short and long files) and MappedNpy::open on files written here.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <span>
#include <string>

#include "accelera/core/error.hpp"
#include "npy.hpp"
#include "npy_format.hpp"
#include "test_npy_helpers.hpp"

namespace {

using acc_test::npy_bytes;
using accelera::DType;
using accelera::cli::MappedNpy;
using accelera::cli::NpyHeader;
using accelera::cli::NpyLayout;
using accelera::cli::read_npy_layout;

NpyLayout layout_of(const std::string& bytes) {
  return read_npy_layout(std::span(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()), "m.npy");
}

// The error read_npy_layout gives for `bytes`, which must name m.npy.
template <typename ErrorType>
std::string layout_error(const std::string& bytes) {
  try {
    layout_of(bytes);
  } catch (const ErrorType& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("m.npy"), std::string::npos) << message;
    return message;
  }
  ADD_FAILURE() << "no error";
  return {};
}

const std::string kF8 = "{'descr': '<f8', 'fortran_order': False, 'shape': ";

TEST(NpyLayout, FindsHeaderAndDataInEveryVersion) {
  for (const int major : {1, 2, 3}) {
    const std::string bytes = npy_bytes(kF8 + "(3, 4), }", std::string(96, '\1'), major);
    const NpyLayout layout = layout_of(bytes);
    EXPECT_EQ(layout.data_offset % 64, 0u);
    EXPECT_EQ(layout.data_offset + 96, bytes.size());
    EXPECT_EQ(layout.data_bytes, 96u);
    EXPECT_EQ(layout.trailing_bytes, 0u);
    EXPECT_EQ(layout.header.shape, (std::vector<std::int64_t>{3, 4}));
  }
}

TEST(NpyLayout, CountsTrailingBytesAsNumpyIgnoresThem) {
  const NpyLayout layout = layout_of(npy_bytes(kF8 + "(3, 4), }", std::string(96 + 9, '\0')));
  EXPECT_EQ(layout.data_bytes, 96u);
  EXPECT_EQ(layout.trailing_bytes, 9u);
}

TEST(NpyLayout, EmptyArraysNeedNoData) {
  EXPECT_EQ(layout_of(npy_bytes(kF8 + "(0, 576460752303423488), }", "")).data_bytes, 0u);  // 0 x 2^59
}

TEST(NpyLayout, RejectsWhatIsNotANpyFile) {
  EXPECT_NE(layout_error<accelera::ValueError>("").find("not a .npy file"), std::string::npos);
  EXPECT_NE(layout_error<accelera::ValueError>("\x93NUMP").find("not a .npy file"), std::string::npos);
  EXPECT_NE(layout_error<accelera::ValueError>("PK\3\4 a zip file").find("not a .npy file"), std::string::npos);
  std::string v4 = npy_bytes(kF8 + "(3, 4), }", std::string(96, '\0'));
  v4[6] = 4;
  EXPECT_NE(layout_error<accelera::ValueError>(v4).find("version 4.0"), std::string::npos);
  std::string v11 = npy_bytes(kF8 + "(3, 4), }", std::string(96, '\0'));
  v11[7] = 1;
  EXPECT_NE(layout_error<accelera::ValueError>(v11).find("version 1.1"), std::string::npos);
  EXPECT_NE(layout_error<accelera::ValueError>(std::string("\x93NUMPY\x02\x00\x10", 9)).find("header length"),
            std::string::npos);
}

TEST(NpyLayout, RejectsAHeaderLongerThanTheFile) {
  std::string bytes = npy_bytes(kF8 + "(3, 4), }", std::string(96, '\0'));
  bytes[8] = '\xff';
  bytes[9] = '\xff';
  EXPECT_NE(layout_error<accelera::ValueError>(bytes).find("65535 bytes long"), std::string::npos);
  std::string v2 = npy_bytes(kF8 + "(3, 4), }", "", 2);
  v2[8] = v2[9] = v2[10] = v2[11] = '\xff';
  EXPECT_NE(layout_error<accelera::ValueError>(v2).find("4294967295 bytes long"), std::string::npos);
}

TEST(NpyLayout, ChecksTheDataSizeWithoutOverflow) {
  // 2^62 float64 elements are 2^65 bytes, which wrap to 0 in 64 bits: a 4.9 KB file must not pass.
  const std::string wrapped = npy_bytes(kF8 + "(1, 4611686018427387904), }", std::string(4800, '\0'));
  EXPECT_NE(layout_error<accelera::ValueError>(wrapped).find("more than 2^63 - 1 bytes"), std::string::npos);
  const std::string product = npy_bytes(kF8 + "(4294967296, 4294967296), }", "");
  EXPECT_NE(layout_error<accelera::ValueError>(product).find("more than 2^63 - 1 bytes"), std::string::npos);
  // As in NumPy, the other extents must fit even when one of them is zero.
  const std::string zero = npy_bytes(kF8 + "(0, 4294967296, 4294967296), }", "");
  EXPECT_NE(layout_error<accelera::ValueError>(zero).find("more than 2^63 - 1 bytes"), std::string::npos);
  // Just below 2^63 bytes: a size, but not one this file has.
  const std::string largest =
      npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2305843009213693951,), }", "");
  EXPECT_NE(layout_error<accelera::ValueError>(largest).find("shorter than its shape says"), std::string::npos);
}

TEST(NpyLayout, RejectsAFileShorterThanItsShape) {
  const std::string bytes = npy_bytes(kF8 + "(3, 4), }", std::string(95, '\0'));
  const std::string message = layout_error<accelera::ValueError>(bytes);
  EXPECT_NE(message.find("needs 96 bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("holds 95"), std::string::npos) << message;
}

TEST(NpyLayout, PrefixIsWhatNumpyWrites) {
  const NpyHeader header{DType::f64, false, {3, 4}};
  const std::string prefix = accelera::cli::npy_file_prefix(header);
  EXPECT_EQ(prefix, npy_bytes(kF8 + "(3, 4), }", ""));
  EXPECT_EQ(layout_of(prefix + std::string(96, '\0')).header.shape, header.shape);
}

class NpyOpen : public ::testing::Test {
 protected:
  acc_test::ScratchDir dir;

  template <typename ErrorType>
  std::string open_error(const std::string& name, const std::string& bytes) {
    const std::string path = dir.file(name);
    acc_test::write_bytes(path, bytes);
    try {
      MappedNpy::open(path);
    } catch (const ErrorType& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find(path), std::string::npos) << message;
      return message;
    }
    ADD_FAILURE() << "opened " << name;
    return {};
  }
};

TEST_F(NpyOpen, MapsCAndFortranOrder) {
  const std::string data = acc_test::f64_bytes({0, 1, 2, 3, 4, 5});
  acc_test::write_bytes(dir.file("c.npy"), npy_bytes(kF8 + "(2, 3), }", data));
  acc_test::write_bytes(dir.file("f.npy"),
                        npy_bytes("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", data));
  const auto c = MappedNpy::open(dir.file("c.npy"));
  const auto f = MappedNpy::open(dir.file("f.npy"));
  ASSERT_EQ(c->tensor().shape(), accelera::Shape({2, 3}));
  ASSERT_EQ(f->tensor().shape(), accelera::Shape({2, 3}));
  EXPECT_EQ(c->tensor().strides(), (accelera::Strides{3, 1}));
  EXPECT_EQ(f->tensor().strides(), (accelera::Strides{1, 2}));
  EXPECT_EQ(c->tensor().data<double>()[4], 4.0);
  EXPECT_EQ(c->tensor().dtype(), DType::f64);
  EXPECT_EQ(c->trailing_bytes(), 0u);
}

TEST_F(NpyOpen, ReportsTheFileAndTheProblem) {
  EXPECT_NE(open_error<accelera::ValueError>("empty.npy", "").find("empty"), std::string::npos);
  EXPECT_NE(open_error<accelera::ValueError>("text.npy", "not numpy at all").find("not a .npy file"),
            std::string::npos);
  EXPECT_NE(open_error<accelera::ShapeError>("neg.npy", npy_bytes(kF8 + "(-40, 30), }", std::string(9600, '\0')))
                .find("negative"),
            std::string::npos);
  EXPECT_NE(open_error<accelera::ShapeError>("vector.npy", npy_bytes(kF8 + "(12,), }", std::string(96, '\0')))
                .find("must be 2-D, got shape (12,)"),
            std::string::npos);
  EXPECT_NE(open_error<accelera::ShapeError>("cube.npy", npy_bytes(kF8 + "(2, 2, 3), }", std::string(96, '\0')))
                .find("got shape (2, 2, 3)"),
            std::string::npos);
  EXPECT_NE(open_error<accelera::DTypeError>("ints.npy", npy_bytes("{'descr': '<i4', 'fortran_order': False, "
                                                                   "'shape': (3, 4), }",
                                                                   std::string(48, '\0')))
                .find("'<i4' is not supported"),
            std::string::npos);
  EXPECT_NE(open_error<accelera::ValueError>("wrapped.npy",
                                             npy_bytes(kF8 + "(1, 4611686018427387904), }", std::string(4800, '\0')))
                .find("2^63"),
            std::string::npos);
  // A header of odd length leaves the float64 data unaligned.
  std::string odd = npy_bytes(kF8 + "(1, 1), }", std::string(8, '\0'));
  odd.insert(odd.size() - 9, " ");
  odd[8] = static_cast<char>(odd[8] + 1);
  EXPECT_NE(open_error<accelera::ValueError>("odd.npy", odd).find("not a multiple of the element size"),
            std::string::npos);
  try {
    MappedNpy::open(dir.file("missing.npy"));
    ADD_FAILURE() << "opened a missing file";
  } catch (const accelera::ValueError& error) {
    EXPECT_NE(std::string(error.what()).find("cannot open"), std::string::npos) << error.what();
  }
  try {
    MappedNpy::open(dir.path().string());
    ADD_FAILURE() << "opened a directory";
  } catch (const accelera::ValueError& error) {
    EXPECT_NE(std::string(error.what()).find("not a regular file"), std::string::npos) << error.what();
  }
}

TEST_F(NpyOpen, AcceptsTrailingBytesAndCountsThem) {
  acc_test::write_bytes(dir.file("t.npy"), npy_bytes(kF8 + "(1, 2), }", acc_test::f64_bytes({1, 2}) + "garbage"));
  const auto t = MappedNpy::open(dir.file("t.npy"));
  EXPECT_EQ(t->trailing_bytes(), 7u);
  EXPECT_EQ(t->tensor().data<double>()[1], 2.0);
}

}  // namespace
