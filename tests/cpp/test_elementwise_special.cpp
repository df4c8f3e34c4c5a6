// The array API standard's special cases of the element-wise functions (nan, +-inf, +-0), and NumPy's
// integer edge cases of floor_divide, remainder and pow, on every device. The op test table checks random
// values; this file checks the values a library gets wrong.
#include <cmath>
#include <limits>
#include <numbers>

#include "helpers.hpp"

using namespace accelera;
using namespace acc_test;

namespace {

using UnaryFn = Tensor (*)(const Tensor&);
using BinaryFn = Tensor (*)(const Tensor&, const Tensor&);

constexpr double pi = std::numbers::pi;

Tensor host_tensor(const std::vector<double>& v, DType dt) {
  Tensor t = Tensor::empty(Shape{static_cast<std::int64_t>(v.size())}, dt);
  for (std::size_t i = 0; i < v.size(); ++i) set(t, {static_cast<std::int64_t>(i)}, v[i]);
  return t;
}

// Equal values with equal signs of zero, or both nan.
bool same(double got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  return got == want && std::signbit(got) == std::signbit(want);
}

struct UnarySpecial {
  const char* name;
  UnaryFn op;
  std::vector<std::pair<double, double>> cases;  // x, f(x)
};

struct BinarySpecial {
  const char* name;
  BinaryFn op;
  std::vector<std::tuple<double, double, double>> cases;  // x, y, f(x, y)
};

const std::vector<UnarySpecial>& unary_specials() {
  static const std::vector<UnarySpecial> s = {
      {"sin", &accelera::sin, {{kNaN, kNaN}, {-0.0, -0.0}, {kInf, kNaN}, {-kInf, kNaN}}},
      {"cos", &accelera::cos, {{-0.0, 1}, {kInf, kNaN}, {kNaN, kNaN}}},
      {"tan", &accelera::tan, {{-0.0, -0.0}, {-kInf, kNaN}}},
      {"asin", &accelera::asin, {{2, kNaN}, {-0.0, -0.0}, {1, pi / 2}}},
      {"acos", &accelera::acos, {{1, 0.0}, {-2, kNaN}, {-1, pi}}},
      {"atan", &accelera::atan, {{kInf, pi / 2}, {-kInf, -pi / 2}, {-0.0, -0.0}}},
      {"sinh", &accelera::sinh, {{-kInf, -kInf}, {-0.0, -0.0}, {kNaN, kNaN}}},
      {"cosh", &accelera::cosh, {{-kInf, kInf}, {-0.0, 1}}},
      {"asinh", &accelera::asinh, {{-kInf, -kInf}, {-0.0, -0.0}}},
      {"acosh", &accelera::acosh, {{1, 0.0}, {0.5, kNaN}, {kInf, kInf}}},
      {"atanh", &accelera::atanh, {{1, kInf}, {-1, -kInf}, {2, kNaN}, {-0.0, -0.0}}},
      {"expm1", &accelera::expm1, {{-kInf, -1}, {-0.0, -0.0}, {kInf, kInf}}},
      {"log1p", &accelera::log1p, {{-1, -kInf}, {-2, kNaN}, {-0.0, -0.0}, {kInf, kInf}}},
      {"log2", &accelera::log2, {{0.0, -kInf}, {-1, kNaN}, {kInf, kInf}, {8, 3}}},
      {"log10", &accelera::log10, {{-0.0, -kInf}, {1, 0.0}, {1000, 3}}},
      {"reciprocal", &accelera::reciprocal, {{-0.0, -kInf}, {0.0, kInf}, {-kInf, -0.0}, {4, 0.25}}},
      {"floor", &accelera::floor, {{-0.0, -0.0}, {-0.5, -1}, {-kInf, -kInf}, {kNaN, kNaN}, {2.5, 2}}},
      {"ceil", &accelera::ceil, {{-0.5, -0.0}, {kInf, kInf}, {kNaN, kNaN}, {2.5, 3}}},
      {"trunc", &accelera::trunc, {{-0.5, -0.0}, {-2.5, -2}, {kNaN, kNaN}}},
      {"round", &accelera::round, {{0.5, 0.0}, {1.5, 2}, {2.5, 2}, {-0.5, -0.0}, {-2.5, -2}, {kInf, kInf}, {kNaN, kNaN}}},
      {"sign", &accelera::sign, {{kNaN, kNaN}, {-0.0, 0.0}, {0.0, 0.0}, {-kInf, -1}, {kInf, 1}, {-3, -1}}},
      {"positive", &accelera::positive, {{-0.0, -0.0}, {kNaN, kNaN}, {-kInf, -kInf}}},
  };
  return s;
}

const std::vector<BinarySpecial>& binary_specials() {
  static const std::vector<BinarySpecial> s = {
      {"pow", &accelera::pow,
       {{kNaN, 0.0, 1}, {1, kNaN, 1}, {-kInf, 3, -kInf}, {0.0, -1, kInf}, {-0.0, -1, -kInf}, {-1, kInf, 1},
        {-8, 0.5, kNaN}, {2, 10, 1024}, {kNaN, 1, kNaN}}},
      {"atan2", &accelera::atan2,
       {{0.0, -0.0, pi}, {-0.0, -0.0, -pi}, {-0.0, 1, -0.0}, {kInf, kInf, pi / 4}, {1, -kInf, pi}, {kNaN, 1, kNaN}}},
      {"hypot", &accelera::hypot, {{kInf, kNaN, kInf}, {kNaN, 1, kNaN}, {-3, 4, 5}, {-0.0, -0.0, 0.0}}},
      {"logaddexp", &accelera::logaddexp,
       {{kInf, kInf, kInf}, {-kInf, -kInf, -kInf}, {kNaN, 1, kNaN}, {kInf, -kInf, kInf}, {-kInf, 1, 1}, {1, kNaN, kNaN}}},
      {"copysign", &accelera::copysign, {{1, -0.0, -1}, {-kInf, 1, kInf}, {kNaN, 1, kNaN}, {-0.0, 2, 0.0}}},
      {"nextafter", &accelera::nextafter, {{1, 1, 1}, {kNaN, 1, kNaN}, {1, kNaN, kNaN}, {0.0, -0.0, -0.0}}},
      // Python's sign convention: the remainder takes the divisor's sign; by zero: nan.
      {"remainder", &accelera::remainder,
       {{5, -3, -1}, {-5, 3, 1}, {5, 0.0, kNaN}, {kInf, 3, kNaN}, {5, kInf, 5}, {-5, kInf, kInf}, {-0.0, 3, 0.0},
        {0.0, -3, -0.0}, {kNaN, 3, kNaN}}},
      {"floor_divide", &accelera::floor_divide,
       {{5, 0.0, kInf}, {-5, 0.0, -kInf}, {0.0, 0.0, kNaN}, {5, -kInf, -1}, {-0.0, 3, -0.0}, {7, 2, 3}, {-7, 2, -4},
        {kInf, 3, kNaN}, {kNaN, 2, kNaN}}},
  };
  return s;
}

struct IntegerSpecial {
  const char* name;
  BinaryFn op;
  // x, y, f(x, y); kMin stands for the dtype's most negative value.
  std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>> cases;
};
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

// NumPy: integer division and remainder by zero give 0 (with a warning), and MIN // -1 wraps to MIN. A
// negative integer exponent raises in NumPy; here it gives the truncated 1 / x^|y| (documented in ops.hpp).
const std::vector<IntegerSpecial>& integer_specials() {
  static const std::vector<IntegerSpecial> s = {
      {"floor_divide", &accelera::floor_divide,
       {{7, 0, 0}, {-7, 2, -4}, {7, -2, -4}, {-7, -2, 3}, {kMin, -1, kMin}, {0, 0, 0}, {6, 3, 2}}},
      {"remainder", &accelera::remainder, {{7, 0, 0}, {-7, 2, 1}, {7, -2, -1}, {-7, -2, -1}, {kMin, -1, 0}, {6, -3, 0}}},
      {"pow", &accelera::pow, {{2, 10, 1024}, {3, -1, 0}, {-1, -3, -1}, {-1, -4, 1}, {1, -5, 1}, {0, 0, 1}, {-3, 3, -27}}},
  };
  return s;
}

class ElementwiseSpecial : public ::testing::TestWithParam<Device> {
 protected:
  void SetUp() override {
    if (const std::string why = device_absence(GetParam()); !why.empty()) GTEST_SKIP() << why;
  }
};

TEST_P(ElementwiseSpecial, FloatFunctionsFollowTheStandard) {
  const Device device = GetParam();
  for (DType dt : {DType::f32, DType::f64}) {
    for (const auto& f : unary_specials()) {
      // Repeated past 16 elements, so that the vector paths (eight floats a work-item on OpenCL) see them.
      std::vector<double> xs, want;
      while (xs.size() <= 16) {
        for (const auto& [x, y] : f.cases) xs.push_back(x), want.push_back(y);
      }
      const auto got = values_of(f.op(host_tensor(xs, dt).to(device)).to(Device::cpu()));
      for (std::size_t i = 0; i < xs.size(); ++i) {
        // Rounded to dt, the expected value is what a correctly rounded function gives.
        const double w = dt == DType::f32 ? static_cast<double>(static_cast<float>(want[i])) : want[i];
        EXPECT_TRUE(same(got[i], w)) << f.name << "(" << xs[i] << ") in " << dtype_name(dt) << " = " << got[i]
                                     << ", expected " << w;
      }
    }
    for (const auto& f : binary_specials()) {
      std::vector<double> xs, ys, want;
      for (const auto& [x, y, r] : f.cases) xs.push_back(x), ys.push_back(y), want.push_back(r);
      const auto got =
          values_of(f.op(host_tensor(xs, dt).to(device), host_tensor(ys, dt).to(device)).to(Device::cpu()));
      for (std::size_t i = 0; i < xs.size(); ++i) {
        const double w = dt == DType::f32 ? static_cast<double>(static_cast<float>(want[i])) : want[i];
        EXPECT_TRUE(same(got[i], w)) << f.name << "(" << xs[i] << ", " << ys[i] << ") in " << dtype_name(dt)
                                     << " = " << got[i] << ", expected " << w;
      }
    }
  }
}

TEST_P(ElementwiseSpecial, NextafterStepsOneUlpInTheDtype) {
  const Device device = GetParam();
  const auto f32 = values_of(accelera::nextafter(host_tensor({1, 1, 0}, DType::f32).to(device),
                                                 host_tensor({2, 0, 1}, DType::f32).to(device))
                                 .to(Device::cpu()));
  EXPECT_EQ(f32[0], static_cast<double>(std::nextafter(1.0f, 2.0f)));
  EXPECT_EQ(f32[1], static_cast<double>(std::nextafter(1.0f, 0.0f)));
  EXPECT_GT(f32[2], 0.0);  // the smallest subnormal, or the smallest normal where a device flushes them
  EXPECT_LE(f32[2], static_cast<double>(std::numeric_limits<float>::min()));
  const auto f64 = values_of(accelera::nextafter(host_tensor({1, 1}, DType::f64).to(device),
                                                 host_tensor({2, 0}, DType::f64).to(device))
                                 .to(Device::cpu()));
  EXPECT_EQ(f64[0], std::nextafter(1.0, 2.0));
  EXPECT_EQ(f64[1], std::nextafter(1.0, 0.0));
}

TEST_P(ElementwiseSpecial, IntegerEdgeCasesFollowNumPy) {
  const Device device = GetParam();
  for (DType dt : {DType::i32, DType::i64}) {
    const std::int64_t min = dt == DType::i32 ? std::numeric_limits<std::int32_t>::min() : kMin;
    for (const auto& f : integer_specials()) {
      const auto n = static_cast<std::int64_t>(f.cases.size());
      Tensor a = Tensor::empty(Shape{n}, dt), b = Tensor::empty(Shape{n}, dt);
      for (std::int64_t i = 0; i < n; ++i) {
        const auto& [x, y, r] = f.cases[static_cast<std::size_t>(i)];
        set_int(a, {i}, x == kMin ? min : x);
        set_int(b, {i}, y);
      }
      const Tensor out = f.op(a.to(device), b.to(device)).to(Device::cpu());
      ASSERT_EQ(out.dtype(), dt);
      for (std::int64_t i = 0; i < n; ++i) {
        const auto& [x, y, r] = f.cases[static_cast<std::size_t>(i)];
        EXPECT_EQ(get_int(out, {i}), r == kMin ? min : r)
            << f.name << "(" << x << ", " << y << ") in " << dtype_name(dt);
      }
    }
    // pow wraps as multiplication does: 2^31 in int32 is the most negative value.
    const Tensor p = accelera::pow(host_tensor({2}, dt).to(device), host_tensor({31}, dt).to(device)).to(Device::cpu());
    EXPECT_EQ(get_int(p, {0}), dt == DType::i32 ? min : std::int64_t{1} << 31);
  }
}

TEST_P(ElementwiseSpecial, RoundingAndSignKeepIntegers) {
  const Device device = GetParam();
  for (DType dt : {DType::i32, DType::i64}) {
    const Tensor x = host_tensor({-7, 0, 5}, dt).to(device);
    for (UnaryFn f : {&accelera::floor, &accelera::ceil, &accelera::trunc, &accelera::round, &accelera::positive}) {
      const Tensor out = f(x).to(Device::cpu());
      EXPECT_EQ(out.dtype(), dt);
      EXPECT_EQ(values_of(out), (std::vector<double>{-7, 0, 5}));
    }
    const Tensor s = accelera::sign(x).to(Device::cpu());
    EXPECT_EQ(s.dtype(), dt);
    EXPECT_EQ(values_of(s), (std::vector<double>{-1, 0, 1}));
  }
}

TEST_P(ElementwiseSpecial, ClassificationsReturnBool) {
  const Device device = GetParam();
  const std::vector<double> xs = {kNaN, kInf, -kInf, -0.0, 0.0, -1.5, 2, -kNaN};
  const struct {
    UnaryFn op;
    const char* name;
    std::vector<double> want;
  } cases[] = {{&accelera::isnan, "isnan", {1, 0, 0, 0, 0, 0, 0, 1}},
               {&accelera::isinf, "isinf", {0, 1, 1, 0, 0, 0, 0, 0}},
               {&accelera::isfinite, "isfinite", {0, 0, 0, 1, 1, 1, 1, 0}},
               {&accelera::signbit, "signbit", {std::signbit(kNaN) ? 1.0 : 0.0, 0, 1, 1, 0, 1, 0, 1}}};
  for (DType dt : {DType::f32, DType::f64}) {
    for (const auto& c : cases) {
      const Tensor out = c.op(host_tensor(xs, dt).to(device)).to(Device::cpu());
      ASSERT_EQ(out.dtype(), DType::boolean) << c.name;
      EXPECT_EQ(values_of(out), c.want) << c.name << " in " << dtype_name(dt);
    }
  }
  for (DType dt : {DType::i32, DType::i64}) {
    const Tensor x = host_tensor({-3, 0, 4}, dt).to(device);
    EXPECT_EQ(values_of(accelera::isnan(x).to(Device::cpu())), (std::vector<double>{0, 0, 0}));
    EXPECT_EQ(values_of(accelera::isinf(x).to(Device::cpu())), (std::vector<double>{0, 0, 0}));
    EXPECT_EQ(values_of(accelera::isfinite(x).to(Device::cpu())), (std::vector<double>{1, 1, 1}));
    EXPECT_EQ(values_of(accelera::signbit(x).to(Device::cpu())), (std::vector<double>{1, 0, 0}));
  }
}

TEST_P(ElementwiseSpecial, ComparisonsPromoteAndTreatNanAsUnordered) {
  const Device device = GetParam();
  const Tensor a = host_tensor({kNaN, 1, -0.0, kInf, 2}, DType::f32).to(device);
  const Tensor b = host_tensor({kNaN, 1, 0.0, kInf, 3}, DType::f64).to(device);
  const auto eq = accelera::equal(a, b).to(Device::cpu());
  ASSERT_EQ(eq.dtype(), DType::boolean);
  EXPECT_EQ(values_of(eq), (std::vector<double>{0, 1, 1, 1, 0}));
  EXPECT_EQ(values_of(accelera::not_equal(a, b).to(Device::cpu())), (std::vector<double>{1, 0, 0, 0, 1}));
  EXPECT_EQ(values_of(accelera::less(a, b).to(Device::cpu())), (std::vector<double>{0, 0, 0, 0, 1}));
  EXPECT_EQ(values_of(accelera::less_equal(a, b).to(Device::cpu())), (std::vector<double>{0, 1, 1, 1, 1}));
  EXPECT_EQ(values_of(accelera::greater(a, b).to(Device::cpu())), (std::vector<double>{0, 0, 0, 0, 0}));
  EXPECT_EQ(values_of(accelera::greater_equal(a, b).to(Device::cpu())), (std::vector<double>{0, 1, 1, 1, 0}));
  // int64 values past 2^53 compare exactly (no detour through float64).
  Tensor big = Tensor::empty(Shape{2}, DType::i64), next = Tensor::empty(Shape{2}, DType::i64);
  set_int(big, {0}, (std::int64_t{1} << 53) + 1);
  set_int(big, {1}, -5);
  set_int(next, {0}, std::int64_t{1} << 53);
  set_int(next, {1}, -5);
  EXPECT_EQ(values_of(accelera::equal(big.to(device), next.to(device)).to(Device::cpu())), (std::vector<double>{0, 1}));
  // bool against int promotes to the integer.
  const Tensor flags = host_tensor({1, 0}, DType::boolean).to(device);
  EXPECT_EQ(values_of(accelera::equal(flags, host_tensor({1, 1}, DType::i32).to(device)).to(Device::cpu())),
            (std::vector<double>{1, 0}));
}

TEST_P(ElementwiseSpecial, LogicalFunctionsConvertToBool) {
  const Device device = GetParam();
  const Tensor a = host_tensor({kNaN, 0.0, -0.0, 2, 0.5}, DType::f32).to(device);
  const Tensor b = host_tensor({0, 0, 3, 7, 0}, DType::i64).to(device);
  EXPECT_EQ(values_of(accelera::logical_and(a, b).to(Device::cpu())), (std::vector<double>{0, 0, 0, 1, 0}));
  EXPECT_EQ(values_of(accelera::logical_or(a, b).to(Device::cpu())), (std::vector<double>{1, 0, 1, 1, 1}));
  EXPECT_EQ(values_of(accelera::logical_xor(a, b).to(Device::cpu())), (std::vector<double>{1, 0, 1, 0, 1}));
  const Tensor n = accelera::logical_not(a).to(Device::cpu());
  ASSERT_EQ(n.dtype(), DType::boolean);
  EXPECT_EQ(values_of(n), (std::vector<double>{0, 1, 1, 0, 0}));
}

TEST_P(ElementwiseSpecial, BitwiseFunctionsAndShiftsFollowNumPy) {
  const Device device = GetParam();
  for (DType dt : {DType::i32, DType::i64}) {
    const std::int64_t width = dt == DType::i32 ? 32 : 64;
    const Tensor x = host_tensor({-8, 5, 1, -1, 7, -7}, dt).to(device);
    const Tensor n = host_tensor({1, 2, static_cast<double>(width), static_cast<double>(width + 3), -1, 100}, dt).to(device);
    const Tensor left = accelera::bitwise_left_shift(x, n).to(Device::cpu());
    ASSERT_EQ(left.dtype(), dt);
    EXPECT_EQ(values_of(left), (std::vector<double>{-16, 20, 0, 0, 0, 0}));
    EXPECT_EQ(values_of(accelera::bitwise_right_shift(x, n).to(Device::cpu())),
              (std::vector<double>{-4, 1, 0, -1, 0, -1}));
    EXPECT_EQ(values_of(accelera::bitwise_invert(x).to(Device::cpu())), (std::vector<double>{7, -6, -2, 0, -8, 6}));
    const Tensor m = host_tensor({12, -1, 3, 0, 6, -7}, dt).to(device);
    EXPECT_EQ(values_of(accelera::bitwise_and(x, m).to(Device::cpu())), (std::vector<double>{8, 5, 1, 0, 6, -7}));
    EXPECT_EQ(values_of(accelera::bitwise_or(x, m).to(Device::cpu())), (std::vector<double>{-4, -1, 3, -1, 7, -7}));
    EXPECT_EQ(values_of(accelera::bitwise_xor(x, m).to(Device::cpu())), (std::vector<double>{-12, -6, 2, -1, 1, 0}));
  }
  const Tensor t = host_tensor({1, 1, 0, 0}, DType::boolean).to(device);
  const Tensor u = host_tensor({1, 0, 1, 0}, DType::boolean).to(device);
  const Tensor inv = accelera::bitwise_invert(t).to(Device::cpu());
  ASSERT_EQ(inv.dtype(), DType::boolean);
  EXPECT_EQ(values_of(inv), (std::vector<double>{0, 0, 1, 1}));
  EXPECT_EQ(values_of(accelera::bitwise_and(t, u).to(Device::cpu())), (std::vector<double>{1, 0, 0, 0}));
  EXPECT_EQ(values_of(accelera::bitwise_xor(t, u).to(Device::cpu())), (std::vector<double>{0, 1, 1, 0}));
}

TEST_P(ElementwiseSpecial, DtypesOutsideAKindAreTypedErrors) {
  const Device device = GetParam();
  const Tensor f = host_tensor({1.5}, DType::f32).to(device);
  const Tensor b = host_tensor({1}, DType::boolean).to(device);
  const Tensor i = host_tensor({1}, DType::i32).to(device);
  EXPECT_THROW(accelera::bitwise_and(f, f), DTypeError);
  EXPECT_THROW(accelera::bitwise_invert(f), DTypeError);
  EXPECT_THROW(accelera::bitwise_left_shift(b, b), DTypeError);
  EXPECT_THROW(accelera::bitwise_left_shift(i, f), DTypeError);
  EXPECT_THROW(accelera::isnan(b), DTypeError);
  EXPECT_THROW(accelera::floor(b), DTypeError);
  EXPECT_THROW(accelera::sin(b), DTypeError);
  try {
    accelera::bitwise_or(f, i);
    ADD_FAILURE() << "bitwise_or of float32 and int32 did not raise";
  } catch (const DTypeError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("bitwise_or"), std::string::npos) << what;
    EXPECT_NE(what.find("float"), std::string::npos) << what;
    EXPECT_NE(what.find(device.str()), std::string::npos) << what;
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, ElementwiseSpecial, ::testing::ValuesIn(with_cuda_placeholder(all_devices())),
                         device_name);

}  // namespace
