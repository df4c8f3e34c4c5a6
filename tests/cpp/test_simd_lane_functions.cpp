// The functions of Note [Vector transcendental functions] (lane_functions-inl.h): tan, the inverse
// trigonometric and hyperbolic functions, sinh, cosh, log2, log10 and atan2, on every Highway target this
// CPU supports. float results against double libm over a sampled sweep of every exponent (tan within 1 ulp:
// one rounding of a double result; the others within their bounds in float lanes); double results against
// long double on random inputs; special values against libm, bit for bit, the sign of zero included; pow
// of float and of double operands (Notes [Table-driven pow] and [Double pow]).
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>

#include "simd_support.hpp"

namespace acc_test::simd {
namespace {

using ks::Store;
using F = ks::UnaryFunction;

struct Function {
  const char* name;
  F fn;
  double (*ref)(double);
  long double (*ref_long)(long double);
  // ulp from the exact value: 1 in double lanes (tan); in float lanes Highway's documented bound (which counts
  // from the correctly rounded result) plus the half ulp of that rounding, or our own (cosh: exp's 1.5 and
  // two roundings; log2 and log10: log's 2 and one or two roundings).
  double float_bound;
};

const Function kFunctions[] = {
    {"tan", F::tan, [](double x) { return std::tan(x); }, [](long double x) { return std::tan(x); }, 1},
    {"asin", F::asin, [](double x) { return std::asin(x); }, [](long double x) { return std::asin(x); }, 2.5},
    {"acos", F::acos, [](double x) { return std::acos(x); }, [](long double x) { return std::acos(x); }, 2.5},
    {"atan", F::atan, [](double x) { return std::atan(x); }, [](long double x) { return std::atan(x); }, 3.5},
    {"sinh", F::sinh, [](double x) { return std::sinh(x); }, [](long double x) { return std::sinh(x); }, 4.5},
    {"cosh", F::cosh, [](double x) { return std::cosh(x); }, [](long double x) { return std::cosh(x); }, 2.5},
    {"asinh", F::asinh, [](double x) { return std::asinh(x); }, [](long double x) { return std::asinh(x); }, 3.5},
    {"acosh", F::acosh, [](double x) { return std::acosh(x); }, [](long double x) { return std::acosh(x); }, 3.5},
    {"atanh", F::atanh, [](double x) { return std::atanh(x); }, [](long double x) { return std::atanh(x); }, 3.5},
    {"log2", F::log2, [](double x) { return std::log2(x); }, [](long double x) { return std::log2(x); }, 2.5},
    {"log10", F::log10, [](double x) { return std::log10(x); }, [](long double x) { return std::log10(x); }, 3.5},
};

// Every 4099th float bit pattern up to `limit`, the positive ones first: vectors of one sign, so that a
// function defined for one sign is not handed to libm by a lane of the other.
std::vector<float> sampled_floats(float limit) {
  std::vector<float> xs;
  for (std::uint64_t bits = 0; bits <= std::bit_cast<std::uint32_t>(limit); bits += 4099) {
    xs.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
  }
  const std::size_t positive = xs.size();
  for (std::size_t i = 0; i < positive; ++i) xs.push_back(-xs[i]);
  return xs;
}

// Results of both signs of zero, inf and nan where libm gives them, and values beside them in the same
// vectors.
template <typename T>
std::vector<T> special_values() {
  using L = std::numeric_limits<T>;
  return {T(0),           -T(0),     T(1),     -T(1),    T(0.5),     L::infinity(), -L::infinity(), L::quiet_NaN(),
          L::denorm_min(), -L::min(), L::max(), -L::max(), T(710),   T(-89.5), T(1e-30),  T(1.0000001), T(-0.9999999),
          T(2.5),          T(3e6),    T(-8),    T(1000),   T(0.001), T(-0.25)};
}

template <typename T>
bool same_special(T got, T want) {
  if (std::isnan(want)) return std::isnan(got);
  if (want == 0 || std::isinf(want)) return got == want && std::signbit(got) == std::signbit(want);
  return true;  // ordinary values: checked in ulp
}

TEST(SimdLaneFunctions, FloatFunctionsOverSampledFloats) {
  // Lanes beyond tan's 2^20, sinh's 88.72 and cosh's 88.7 go to libm, whose float forms are not always
  // within 1 ulp there: the sweep stops at the vector domain.
  const std::vector<float> x = sampled_floats(std::numeric_limits<float>::max());
  const std::vector<float> x_tan = sampled_floats(1048576.0f), x_sinh = sampled_floats(88.72f),
                           x_cosh = sampled_floats(88.7f);
  // tan beside the multiples of pi/2 up to 2^20 (the reduction's hard cases).
  std::vector<float> near_poles;
  for (std::int64_t k = 1; k < 667000; k += 7) {
    const float p = static_cast<float>(static_cast<double>(k) * 1.5707963267948966);
    near_poles.insert(near_poles.end(), {p, std::nextafter(p, 0.0f), std::nextafter(p, 2e6f), -p});
  }
  std::vector<float> y(std::max(x.size(), near_poles.size()));
  for (const Function& f : kFunctions) {
    for_each_target([&](const std::string& target) {
      double worst = 0;
      float at = 0;
      const auto check = [&](const std::vector<float>& in) {
        ks::unary(f.fn, in.data(), y.data(), static_cast<std::int64_t>(in.size()), Store::cached);
        for (std::size_t i = 0; i < in.size(); ++i) {
          const double want = f.ref(in[i]);
          const double e = y[i] == static_cast<float>(want) ? 0.0 : ulp_error(y[i], want);
          if (e > worst) worst = e, at = in[i];
        }
      };
      check(f.fn == F::tan ? x_tan : f.fn == F::sinh ? x_sinh : f.fn == F::cosh ? x_cosh : x);
      if (f.fn == F::tan) check(near_poles);
      EXPECT_LE(worst, f.float_bound) << f.name << " on " << target << " at x = " << at;
      std::printf("  %-6s %-8s worst %.3f ulp at x = %.9g\n", f.name, target.c_str(), worst, at);
    });
  }
}

// The double forms: within 4 ulp (Highway's documented bounds are 2 to 4; cosh is exp's 1.5 plus two
// roundings; log2 and log10 log's reduction and a product). Small magnitudes and [-2, 2] are drawn apart.
TEST(SimdLaneFunctions, DoubleFunctionsOnRandomInputs) {
  struct Case {
    F fn;
    double lo, hi, bound;
  };
  const Case cases[] = {{F::asin, -1, 1, 3},         {F::acos, -1, 1, 3},      {F::atan, -1e300, 1e300, 3.5},
                        {F::sinh, -709, 709, 4},       {F::cosh, -709, 709, 3},  {F::asinh, -1e300, 1e300, 4},
                        {F::acosh, 1, 1e300, 3.5},     {F::atanh, -1, 1, 4},     {F::log2, 0, 1e300, 3},
                        {F::log10, 0, 1e300, 3}};
  std::mt19937_64 rng(21);
  const std::size_t n = 1 << 16;
  std::vector<double> x(n), y(n);
  for (const Case& c : cases) {
    const Function& f = *std::find_if(std::begin(kFunctions), std::end(kFunctions),
                                      [&](const Function& g) { return g.fn == c.fn; });
    std::uniform_real_distribution<double> dist(c.lo, c.hi);
    for (auto& v : x) v = dist(rng);
    for (std::size_t i = 0; i < 256; ++i) x[i] = std::ldexp(dist(rng) / c.hi, -static_cast<int>(i) * 4);  // small
    for (std::size_t i = 256; i < 512; ++i) x[i] = std::uniform_real_distribution<double>(-2, 2)(rng);
    for_each_target([&](const std::string& target) {
      ks::unary(c.fn, x.data(), y.data(), static_cast<std::int64_t>(n), Store::cached);
      double worst = 0, at = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const double e = ulp_error(y[i], static_cast<double>(f.ref_long(x[i])));
        if (e > worst) worst = e, at = x[i];
      }
      EXPECT_LE(worst, c.bound) << f.name << " on " << target << " at x = " << at;
    });
  }
}

template <typename T>
void check_unary_special_values() {
  const std::vector<T> x = special_values<T>();
  std::vector<T> y(x.size());
  for (const Function& f : kFunctions) {
    for_each_target([&](const std::string&) {  // for_each_target names the target in failures
      ks::unary(f.fn, x.data(), y.data(), static_cast<std::int64_t>(x.size()), Store::cached);
      for (std::size_t i = 0; i < x.size(); ++i) {
        const long double exact = f.ref_long(x[i]);
        const T want = static_cast<T>(exact);
        EXPECT_TRUE(same_special(y[i], want)) << f.name << "(" << x[i] << ") = " << y[i] << ", libm " << want;
        if (std::isfinite(want) && want != 0) EXPECT_LE(ulp_error(y[i], static_cast<double>(exact)), 4.0);
      }
    });
  }
}

// log2 adds the exponent exactly: every power of two, subnormals included, gives its integer.
template <typename T>
void check_log2_of_powers_of_two() {
  constexpr int lowest = std::numeric_limits<T>::min_exponent - std::numeric_limits<T>::digits;  // -149, -1074
  std::vector<T> x;
  for (int e = lowest; e < std::numeric_limits<T>::max_exponent; ++e) x.push_back(std::ldexp(T(1), e));
  std::vector<T> y(x.size());
  for_each_target([&](const std::string&) {
    ks::unary(F::log2, x.data(), y.data(), static_cast<std::int64_t>(x.size()), Store::cached);
    for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], static_cast<T>(static_cast<int>(i) + lowest));
  });
}

TEST(SimdLaneFunctions, Log2OfPowersOfTwoIsExact) {
  check_log2_of_powers_of_two<float>();
  check_log2_of_powers_of_two<double>();
}

TEST(SimdLaneFunctions, SpecialValuesAsLibm) {
  check_unary_special_values<float>();
  check_unary_special_values<double>();
}

// atan2 over every pair of special values (each also beside ordinary pairs), against libm bit for bit
// where the result is 0, +-pi/2, +-pi, inf or nan; random pairs within Highway's atan bound plus the
// rounding of c +- t (4 ulp in float, 3 in double); one operand broadcast.
template <typename T>
void check_atan2() {
  const std::vector<T> values = special_values<T>();
  std::vector<T> a, b;
  for (T u : values) {
    for (T v : values) a.push_back(u), b.push_back(v);
  }
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> dist(-100, 100);
  for (int i = 0; i < 4096; ++i) {
    a.push_back(static_cast<T>(dist(rng)));
    b.push_back(static_cast<T>(std::ldexp(dist(rng), static_cast<int>(i % 64) - 32)));
  }
  std::vector<T> out(a.size());
  const double bound = sizeof(T) == 4 ? 4.0 : 3.0;
  for_each_target([&](const std::string& target) {
    ks::binary(ks::BinaryFunction::atan2, a.data(), false, b.data(), false, out.data(),
               static_cast<std::int64_t>(a.size()), Store::cached);
    for (std::size_t i = 0; i < a.size(); ++i) {
      const long double want = std::atan2(static_cast<long double>(a[i]), static_cast<long double>(b[i]));
      const T libm = std::atan2(a[i], b[i]);
      ASSERT_TRUE(same_special(out[i], libm))
          << "atan2(" << a[i] << ", " << b[i] << ") = " << out[i] << " on " << target;
      if (a[i] == 0 || std::isinf(a[i]) || std::isinf(b[i]) || std::isnan(a[i]) || std::isnan(b[i])) {
        ASSERT_TRUE(out[i] == libm || std::isnan(libm)) << "atan2(" << a[i] << ", " << b[i] << ") = " << out[i];
      } else {
        ASSERT_LE(ulp_error(out[i], static_cast<double>(want)), bound) << "atan2(" << a[i] << ", " << b[i] << ")";
      }
    }
    // One operand broadcast: the same values as the paired call.
    const T y0 = T(-0.75);
    std::vector<T> broadcast(b.size());
    ks::binary(ks::BinaryFunction::atan2, &y0, true, b.data(), false, broadcast.data(),
               static_cast<std::int64_t>(b.size()), Store::cached);
    for (std::size_t i = 0; i < b.size(); ++i) {
      const T want = std::atan2(y0, b[i]);
      const bool close = std::isnan(want) || ulp_error(broadcast[i], static_cast<double>(want)) <= bound + 0.5;
      ASSERT_TRUE(same_special(broadcast[i], want) && close)
          << "atan2(" << y0 << ", " << b[i] << ") = " << broadcast[i];
    }
  });
}

// float pow through double lanes (Note [Table-driven pow]): random bases and exponents (results from
// underflow to overflow), and bases next to 1 with exponents up to 1e9, within 0.502 ulp of double pow
// (rounding to float plus at most 2^-29 relative before it), exact cases exact, special pairs as libm.
TEST(SimdLaneFunctions, PowAgainstLibm) {
  std::vector<float> x, y;
  const std::vector<float> specials = special_values<float>();
  for (float u : specials) {
    for (float v : specials) x.push_back(u), y.push_back(v);
  }
  const float exact[][2] = {{2, 3}, {2, -3}, {10, 2}, {3, 4}, {1, 1e30f}, {7, 0}, {0.5f, 10}, {5, 1}, {4, 0.5f}};
  for (const auto& p : exact) x.push_back(p[0]), y.push_back(p[1]);
  std::mt19937_64 rng(9);
  for (int i = 0; i < 8192; ++i) {
    x.push_back(static_cast<float>(std::exp(std::uniform_real_distribution<double>(-20, 20)(rng))));
    y.push_back(static_cast<float>(std::uniform_real_distribution<double>(-12, 12)(rng)));
  }
  // y log2 x near +-120, where the log's error is amplified most for results in float's range: bases next
  // to 1 (log2 x tiny, y large) and across [0.5, 2] (every interval of the log's table, both ends).
  for (int i = 0; i < 20480; ++i) {
    const float step = static_cast<float>(std::uniform_int_distribution<int>(-3000, 3000)(rng)) * 0x1p-23f;
    const float base = i < 4096 ? 1.0f + step
                                : static_cast<float>(std::exp2(std::uniform_real_distribution<double>(-1, 1)(rng)));
    const double t = std::uniform_real_distribution<double>(60, 120)(rng) * (i % 2 ? 1 : -1);
    x.push_back(base);
    y.push_back(static_cast<float>(t / std::max(std::fabs(std::log2(static_cast<double>(base))), 1e-9)));
  }
  std::vector<float> out(x.size());
  std::vector<double> xd(x.begin(), x.end()), yd(y.begin(), y.end()), outd(x.size());
  for_each_target([&](const std::string& target) {
    ks::binary(ks::BinaryFunction::pow, x.data(), false, y.data(), false, out.data(),
               static_cast<std::int64_t>(x.size()), Store::cached);
    ks::binary(ks::BinaryFunction::pow, xd.data(), false, yd.data(), false, outd.data(),
               static_cast<std::int64_t>(x.size()), Store::cached);
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double want = std::pow(static_cast<double>(x[i]), static_cast<double>(y[i]));
      ASSERT_TRUE(same_special(out[i], static_cast<float>(want)) && same_special(out[i], std::pow(x[i], y[i])))
          << "pow(" << x[i] << ", " << y[i] << ") = " << out[i] << " on " << target;
      if (std::isfinite(want)) {
        ASSERT_LE(out[i] == static_cast<float>(want) ? 0.0 : ulp_error(out[i], want), 0.502)
            << "pow(" << x[i] << ", " << y[i] << ") = " << out[i] << " on " << target;
      }
      const double libm = std::pow(xd[i], yd[i]);
      ASSERT_TRUE(same_special(outd[i], libm)) << xd[i] << " " << yd[i];
    }
  });
}

// |got - exact| in units of the last place of exact rounded to double.
double ulps_from(double got, long double exact) {
  const double rounded = static_cast<double>(std::fabs(exact));
  const long double ulp = std::nextafter(rounded, std::numeric_limits<double>::infinity()) - rounded;
  return static_cast<double>(std::fabs(static_cast<long double>(got) - exact) / ulp);
}

// double pow (Note [Double pow]) against long double: random bases over most of the exponent range with
// exponents that keep results in range, and large |y log2 x| (where the log's error is amplified most) for
// bases next to 1, across every interval of the log's table and far from 1; exact cases exact; special
// pairs, and lanes outside the vector domain (negative or subnormal bases, overflow, underflow), libm's
// bit for bit.
TEST(SimdLaneFunctions, DoublePowAgainstLongDouble) {
  std::vector<double> x, y;
  const std::vector<double> specials = special_values<double>();
  for (double u : specials) {
    for (double v : specials) x.push_back(u), y.push_back(v);
  }
  const double exact[][2] = {{2, 3}, {2, -3}, {10, 2}, {3, 4}, {1, 1e300}, {7, 0}, {0.5, 10}, {5, 1},
                             {4, 0.5}, {9, 1.5}, {2, 1000}, {2, -1000}, {1e10, 2}, {0x1p-500, 2}, {-2, 3}, {-8, 1.0 / 3}};
  for (const auto& p : exact) x.push_back(p[0]), y.push_back(p[1]);
  std::mt19937_64 rng(11);
  for (int i = 0; i < 16384; ++i) {
    const double lx = std::uniform_real_distribution<double>(-700, 700)(rng);
    x.push_back(std::exp(lx));
    y.push_back(std::uniform_real_distribution<double>(-1, 1)(rng) * 700 / std::max(std::fabs(lx), 1.0));
  }
  // Blocks whose every lane is inside the vector domain (a bound on |y log2 x| below 1020), so that whole
  // vectors take it: bases next to 1 and across [0.5, 2] (every interval of the table) with |t| to 690,
  // and bases 2^(40..60) z with |t| to 960.
  for (int i = 0; i < 32768; ++i) {
    const double step = std::uniform_int_distribution<int>(-3000, 3000)(rng) * 0x1p-52;
    double base = 0, t = 0;
    if (i < 8192) {
      base = 1.0 + step, t = std::uniform_real_distribution<double>(500, 690)(rng);
    } else if (i < 24576) {
      base = std::exp2(std::uniform_real_distribution<double>(-1, 1)(rng));
      t = std::uniform_real_distribution<double>(500, 690)(rng);
    } else {
      const double k = std::uniform_int_distribution<int>(40, 60)(rng) * (i % 3 ? 1 : -1);
      base = std::exp2(k + std::uniform_real_distribution<double>(-0.5, 0.5)(rng));
      t = std::uniform_real_distribution<double>(900, 960)(rng);
    }
    x.push_back(base);
    y.push_back(t / std::log2(base) * (i % 2 ? 1 : -1));
  }
  // Results beyond the vector domain: overflow, underflow to subnormals and zero.
  for (const double p : {1023.5, 1030.0, -1022.5, -1060.0, -1080.0}) x.push_back(2.0), y.push_back(p);
  std::vector<double> out(x.size());
  for_each_target([&](const std::string& target) {
    ks::binary(ks::BinaryFunction::pow, x.data(), false, y.data(), false, out.data(),
               static_cast<std::int64_t>(x.size()), Store::cached);
    double worst = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double libm = std::pow(x[i], y[i]);
      ASSERT_TRUE(same_special(out[i], libm)) << "pow(" << x[i] << ", " << y[i] << ") = " << out[i] << " on " << target;
      if (!std::isfinite(libm) || libm == 0) continue;
      const long double want = std::pow(static_cast<long double>(x[i]), static_cast<long double>(y[i]));
      const double error = out[i] == libm ? 0.0 : ulps_from(out[i], want);
      worst = std::max(worst, error);
      ASSERT_LE(error, 0.6) << "pow(" << std::hexfloat << x[i] << ", " << y[i] << ") = " << out[i] << " on " << target;
    }
    std::printf("double pow on %s: worst %.3f ulp\n", target.c_str(), worst);
  });
}

// double sin, cos and tan (Note [Double sin, cos and tan]) against long double: uniform over [-2^20, 2^20]
// and over [-4, 4], small magnitudes down to subnormals, the doubles nearest the multiples of pi/2 up to
// 2^20 and their neighbours (where the reduction cancels most: the results there are tiny for sin and cos
// and huge for tan), and arguments past 2^20, which go to libm. Bound: 1 ulp (0.67-0.78 measured).
TEST(SimdLaneFunctions, DoubleTrigonometryAgainstLongDouble) {
  std::mt19937_64 rng(13);
  std::vector<double> x;
  for (int i = 0; i < 32768; ++i) x.push_back(std::uniform_real_distribution<double>(-0x1p20, 0x1p20)(rng));
  for (int i = 0; i < 32768; ++i) x.push_back(std::uniform_real_distribution<double>(-4, 4)(rng));
  for (int e = -1074; e < 0; e += 3) x.push_back(std::ldexp(1.37, e) * (e % 2 ? 1 : -1));
  for (std::int64_t k = 1; k < 667000; k += 13) {
    const double p = static_cast<double>(static_cast<long double>(k) * 1.570796326794896619231321691639751442L);
    x.insert(x.end(), {p, std::nextafter(p, 0.0), std::nextafter(p, 4e6), -p});
  }
  for (const double big : {0x1p20 + 1, 3e6, 1e22, -7e15}) x.push_back(big);
  x.insert(x.end(), {0.0, -0.0});
  std::vector<double> y(x.size());
  struct Case {
    F fn;
    long double (*ref)(long double);
    double bound;
  };
  const Case cases[] = {{F::sin, [](long double v) { return std::sin(v); }, 1.0},
                        {F::cos, [](long double v) { return std::cos(v); }, 1.0},
                        {F::tan, [](long double v) { return std::tan(v); }, 1.0}};
  for (const Case& c : cases) {
    for_each_target([&](const std::string& target) {
      ks::unary(c.fn, x.data(), y.data(), static_cast<std::int64_t>(x.size()), Store::cached);
      double worst = 0, at = 0;
      for (std::size_t i = 0; i < x.size(); ++i) {
        const long double want = c.ref(x[i]);
        if (want == 0) {  // sin(+-0), tan(+-0): the zero and its sign
          ASSERT_TRUE(y[i] == 0 && std::signbit(y[i]) == std::signbit(x[i])) << x[i] << " on " << target;
          continue;
        }
        const double e = ulps_from(y[i], want);
        if (e > worst) worst = e, at = x[i];
      }
      EXPECT_LE(worst, c.bound) << "on " << target << " at x = " << std::hexfloat << at;
      std::printf("  double %-4s %-8s worst %.3f ulp at x = %a\n", c.fn == F::sin ? "sin" : c.fn == F::cos ? "cos" : "tan",
                  target.c_str(), worst, at);
    });
  }
}

TEST(SimdLaneFunctions, Atan2AgainstLibm) {
  check_atan2<float>();
  check_atan2<double>();
}

}  // namespace
}  // namespace acc_test::simd
