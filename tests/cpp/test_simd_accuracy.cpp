// Accuracy of the vectorised float math (backends/cpu/simd/) on every Highway target this CPU supports, in
// ulp against double (or long double) references: exact GELU and its derivative over every float in [-15,
// 15], exp over every float in its finite range; log, log1p, expm1, tanh and sigmoid over a sampled sweep of
// every exponent; the double forms on random inputs. The references of each chunk are computed once for all
// targets. The scalar fallback is swept with a stride (it is the slowest target and shares every polynomial
// with the others), as is everything in sanitizer builds.
#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>

#include "simd_support.hpp"

namespace acc_test::simd {
namespace {

using ks::Store;

#if defined(__SANITIZE_ADDRESS__)
constexpr std::uint32_t kFullStride = 61;
#else
constexpr std::uint32_t kFullStride = 1;
#endif
constexpr std::uint32_t kScalarStride = 61;
constexpr std::size_t kChunk = 1 << 22;

struct Worst {
  double ulp = 0;
  float at = 0;
  void update(double e, float x) {
    if (e > ulp) ulp = e, at = x;
  }
};

// Calls check(x, n) on chunks of the floats of magnitude <= limit, both signs, every `stride`-th bit pattern.
template <typename Check>
void sweep_floats(float limit, std::uint32_t stride, Check&& check) {
  std::vector<float> xs;
  xs.reserve(kChunk);
  const std::uint32_t stop = std::bit_cast<std::uint32_t>(limit);
  for (std::uint64_t bits = 0; bits <= stop; bits += stride) {
    xs.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
    xs.push_back(-xs.back());
    if (xs.size() >= kChunk || bits + stride > stop) {
      check(xs.data(), xs.size());
      xs.clear();
    }
  }
}

// Worst ulp per target of some float functions over a sweep: the references of each chunk are computed
// once (in parallel), then every target evaluates the chunk (the scalar fallback every kScalarStride-th
// element). eval(x, out, n, f) writes function f; error(f, x, got, want) is its ulp error.
struct Sweep {
  std::vector<std::string> functions;
  std::vector<std::string> targets = ks::supported_target_names();
  std::vector<std::vector<Worst>> worst;  // [target][function]

  template <typename Reference, typename Eval, typename Error>
  void run(float limit, Reference&& reference, Eval&& eval, Error&& error) {
    const std::size_t nf = functions.size();
    worst.assign(targets.size(), std::vector<Worst>(nf));
    std::vector<double> want;
    std::vector<float> got, sub_x, sub_got;
    sweep_floats(limit, kFullStride, [&](const float* x, std::size_t n) {
      want.resize(n * nf);
#pragma omp parallel for schedule(static)
      for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) reference(x[i], &want[i * nf]);
      for (std::size_t t = 0; t < targets.size(); ++t) {
        ks::select_target(targets[t]);
        const std::size_t stride = targets[t] == "scalar" ? kScalarStride : 1;
        const float* xt = x;
        if (stride != 1) {
          sub_x.clear();
          for (std::size_t i = 0; i < n; i += stride) sub_x.push_back(x[i]);
          xt = sub_x.data();
        }
        const std::size_t count = (n + stride - 1) / stride;
        got.resize(count);
        for (std::size_t f = 0; f < nf; ++f) {
          constexpr std::int64_t kPiece = 1 << 16;  // both cores evaluate: the target is set process-wide
#pragma omp parallel for schedule(static)
          for (std::int64_t b = 0; b < static_cast<std::int64_t>(count); b += kPiece) {
            eval(xt + b, got.data() + b, std::min<std::size_t>(kPiece, count - b), f);
          }
          std::vector<Worst> partial(omp_get_max_threads());
#pragma omp parallel for schedule(static)
          for (std::int64_t j = 0; j < static_cast<std::int64_t>(count); ++j) {
            const std::size_t i = static_cast<std::size_t>(j) * stride;
            partial[omp_get_thread_num()].update(error(f, x[i], got[j], want[i * nf + f]), x[i]);
          }
          for (const auto& p : partial) worst[t][f].update(p.ulp, p.at);
        }
      }
    });
    ks::select_target("best");
  }

  void expect_within(std::size_t f, double bound) const {
    for (std::size_t t = 0; t < targets.size(); ++t) {
      const Worst& w = worst[t][f];
      EXPECT_LE(w.ulp, bound) << functions[f] << " on " << targets[t] << " at x = " << w.at;
      std::printf("  %-8s %-8s worst %.2f ulp at x = %.9g\n", functions[f].c_str(), targets[t].c_str(), w.ulp, w.at);
      testing::Test::RecordProperty(functions[f] + "_" + targets[t] + "_max_ulp", std::to_string(w.ulp));
    }
  }
};

// The exact form and its derivative. Bounds: Note [Float exact GELU] measured 5.52 and 3.08 ulp with FMA
// (AVX2, AVX-512); without it (SSE4, the fallback) Horner's steps round twice: 5.96 and 3.43.
// Units in the last place of a float result `want`, from its exponent bits (the sweeps call this
// billions of times): the subnormal step below the normal range.
double float_ulp(double want) {
  const std::uint32_t biased = std::bit_cast<std::uint32_t>(static_cast<float>(std::fabs(want))) >> 23;
  const std::uint64_t exponent = biased == 0 ? 1 : biased;  // subnormals: the step of the smallest normals
  return std::bit_cast<double>((exponent - 150 + 1023) << 52);
}

TEST(SimdAccuracy, ExactGeluAndDerivativeOverEveryFloatInRange) {
  std::vector<float> ones(kChunk, 1.0f);
  Sweep sweep{{"gelu", "gelu'"}};
  sweep.run(
      15.0f,
      [](float x, double* want) {
        const double xd = x, phi0 = 0.39894228040143267794;  // 1 / sqrt(2 pi)
        if (std::fabs(xd) < 0x1p-7) {  // Taylor series: the truncation is below 1e-17 relative here
          const double x2 = xd * xd;
          want[0] = 0.5 * xd + phi0 * x2 * (1 - x2 / 6 + x2 * x2 / 40);
          want[1] = 0.5 + phi0 * xd * (2 - 2 * x2 / 3 + 3 * x2 * x2 / 20);
          return;
        }
        const double cdf = 0.5 * std::erfc(-xd / std::sqrt(2.0));
        want[0] = xd * cdf;
        want[1] = cdf + xd * phi0 * std::exp(-0.5 * xd * xd);
      },
      [&](const float* x, float* y, std::size_t n, std::size_t f) {
        if (f == 0) ks::gelu(x, nullptr, y, n, false, Store::cached);
        if (f == 1) ks::gelu_backward(ones.data(), x, y, n, false, Store::cached);
      },
      [](std::size_t f, float, float got, double want) {
        if (got == static_cast<float>(want)) return 0.0;  // correctly rounded
        // GELU' in ulp of max(|GELU'|, 0.5): the derivative crosses zero near x = -0.75.
        const double unit = f == 0 ? float_ulp(want) : float_ulp(std::max(std::fabs(want), 0.5));
        return std::fabs(got - want) / unit;
      });
  sweep.expect_within(0, 6.0);
  sweep.expect_within(1, 3.5);
}

TEST(SimdAccuracy, ExpOverEveryFloatUpToUnderflow) {
  Sweep sweep{{"exp"}};
  sweep.run(
      104.0f,
      [](float x, double* want) {
        const double xd = x;  // below 2^-20 the series to x^3 is exact to 1e-24
        want[0] = std::fabs(xd) < 0x1p-20 ? 1 + xd * (1 + xd * (0.5 + xd / 6)) : std::exp(xd);
      },
      [](const float* x, float* y, std::size_t n, std::size_t) {
        ks::unary(ks::UnaryFunction::exp, x, y, n, Store::cached);
      },
      [](std::size_t, float, float got, double want) {
        // Correctly rounded (overflow to inf included), else in ulp.
        return got == static_cast<float>(want) ? 0.0 : std::fabs(got - want) / float_ulp(want);
      });
  sweep.expect_within(0, 1.5);
}

// Every exponent, sampled: a prime stride over the bit patterns.
TEST(SimdAccuracy, LogExpm1TanhSigmoidSampled) {
  using F = ks::UnaryFunction;
  struct Case {
    const char* name;
    F fn;
    float limit;
    double (*ref)(double);
    double bound;
  };
  const Case cases[] = {
      {"log", F::log, std::numeric_limits<float>::max(), [](double x) { return std::log(x); }, 2.0},
      {"log1p", F::log1p, std::numeric_limits<float>::max(), [](double x) { return std::log1p(x); }, 3.0},
      {"expm1", F::expm1, 104.0f, [](double x) { return std::expm1(x); }, 2.0},
      {"tanh", F::tanh, 50.0f, [](double x) { return std::tanh(x); }, 3.0},
      {"sigmoid", F::sigmoid, 110.0f, [](double x) { return 1 / (1 + std::exp(-x)); }, 3.0},
  };
  for (const Case& c : cases) {
    for_each_target([&](const std::string& name) {
      Worst w;
      std::vector<float> out(kChunk + 2);
      sweep_floats(c.limit, 4099, [&](const float* x, std::size_t n) {
        ks::unary(c.fn, x, out.data(), n, Store::cached);
        for (std::size_t i = 0; i < n; ++i) {
          if ((c.fn == F::log && x[i] < 0) || (c.fn == F::log1p && x[i] < -1)) {
            EXPECT_TRUE(std::isnan(out[i]));
            continue;
          }
          w.update(ulp_error(out[i], c.ref(x[i])), x[i]);
        }
      });
      EXPECT_LE(w.ulp, c.bound) << c.name << " on " << name << " at x = " << w.at;
      std::printf("  %-8s %-8s worst %.2f ulp at x = %.9g\n", c.name, name.c_str(), w.ulp, w.at);
    });
  }
}

// float sin and cos, reduced by pi/2 in double (unary.cpp): a prime-stride sweep of every exponent up to
// 2^22 (past 2^20 the kernels hand lanes to libm), and the floats on either side of the multiples of pi/2
// up to 10^6, where a float reduction would cancel. Bound: 1 ulp (the double result is rounded once more).
TEST(SimdAccuracy, SinCosSampledAndNextToMultiplesOfHalfPi) {
  using F = ks::UnaryFunction;
  std::vector<float> near;
  for (std::int64_t k = 1; k < 640000; k += 7) {
    const float x = static_cast<float>(static_cast<double>(k) * 1.5707963267948966);
    near.insert(near.end(), {x, std::nextafter(x, 0.0f), std::nextafter(x, 2e6f), -x});
  }
  for (F fn : {F::sin, F::cos}) {
    const char* name = fn == F::sin ? "sin" : "cos";
    const auto reference = [fn](float x) { return fn == F::sin ? std::sin(static_cast<long double>(x)) : std::cos(static_cast<long double>(x)); };
    for_each_target([&](const std::string& target) {
      Worst w;
      std::vector<float> out(std::max(kChunk + 2, near.size()));
      const auto check = [&](const float* x, std::size_t n) {
        ks::unary(fn, x, out.data(), n, Store::cached);
        for (std::size_t i = 0; i < n; ++i) w.update(ulp_error(out[i], static_cast<double>(reference(x[i]))), x[i]);
      };
      sweep_floats(4194304.0f, 4099, check);
      check(near.data(), near.size());
      EXPECT_LE(w.ulp, 1.0) << name << " on " << target << " at x = " << w.at;
      std::printf("  %-8s %-8s worst %.2f ulp at x = %.9g\n", name, target.c_str(), w.ulp, w.at);
    });
  }
  // Special values: signed zeros keep their sign in sin, inf and nan give nan, lanes past the vector range
  // take libm's values beside lanes that do not.
  const float inf = std::numeric_limits<float>::infinity();
  const float x[9] = {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(), 3e38f, 0.5f, 1e7f, -2.5f};
  for_each_target([&](const std::string& target) {
    float y[9], c[9];
    ks::unary(F::sin, x, y, 9, Store::cached);
    ks::unary(F::cos, x, c, 9, Store::cached);
    EXPECT_TRUE(y[0] == 0.0f && !std::signbit(y[0])) << target;
    EXPECT_TRUE(y[1] == 0.0f && std::signbit(y[1])) << target;
    EXPECT_EQ(c[0], 1.0f);
    EXPECT_EQ(c[1], 1.0f);
    for (int i = 2; i < 5; ++i) EXPECT_TRUE(std::isnan(y[i]) && std::isnan(c[i])) << target << " " << x[i];
    for (int i = 5; i < 9; ++i) {
      EXPECT_LE(ulp_error(y[i], static_cast<double>(std::sin(static_cast<long double>(x[i])))), 1.0) << x[i];
      EXPECT_LE(ulp_error(c[i], static_cast<double>(std::cos(static_cast<long double>(x[i])))), 1.0) << x[i];
    }
  });
}

TEST(SimdAccuracy, DoubleFunctionsOnRandomInputs) {
  using F = ks::UnaryFunction;
  std::mt19937_64 rng(15);
  const std::size_t n = 1 << 16;
  std::vector<double> x(n), y(n);
  struct Case {
    F fn;
    double lo, hi;
    long double (*ref)(long double);
    double bound;
  };
  const Case cases[] = {
      {F::exp, -745, 709, [](long double v) { return std::exp(v); }, 2.0},
      {F::log, 0, 1e300, [](long double v) { return std::log(v); }, 2.0},
      {F::expm1, -745, 709, [](long double v) { return std::expm1(v); }, 3.0},
      {F::log1p, -1, 1e300, [](long double v) { return std::log1p(v); }, 3.0},
      {F::tanh, -25, 25, [](long double v) { return std::tanh(v); }, 3.0},
      {F::sigmoid, -745, 745, [](long double v) { return 1 / (1 + std::exp(-v)); }, 3.0},
  };
  for (const Case& c : cases) {
    std::uniform_real_distribution<double> dist(c.lo, c.hi);
    for (auto& v : x) v = dist(rng);
    for (std::size_t i = 0; i < 64; ++i) x[i] = std::ldexp(dist(rng) / c.hi, -static_cast<int>(i) * 16);  // small
    for_each_target([&](const std::string& name) {
      ks::unary(c.fn, x.data(), y.data(), n, Store::cached);
      double worst = 0;
      for (std::size_t i = 0; i < n; ++i) worst = std::max(worst, ulp_error(y[i], static_cast<double>(c.ref(x[i]))));
      EXPECT_LE(worst, c.bound) << static_cast<int>(c.fn) << " on " << name;
    });
  }
}

template <typename T>
void check_exp_limits() {
  constexpr T inf = std::numeric_limits<T>::infinity();
  const T x[7] = {inf,
                  -inf,
                  std::numeric_limits<T>::quiet_NaN(),
                  T(sizeof(T) == 4 ? 89 : 710),
                  T(sizeof(T) == 4 ? -104 : -746),
                  T(0),
                  std::numeric_limits<T>::denorm_min()};
  for_each_target([&](const std::string&) {
    T y[7];
    ks::unary(ks::UnaryFunction::exp, x, y, 7, Store::cached);
    EXPECT_EQ(y[0], inf);
    EXPECT_EQ(y[1], T(0));
    EXPECT_TRUE(std::isnan(y[2]));
    EXPECT_EQ(y[3], inf) << "overflow";
    EXPECT_EQ(y[4], T(0)) << "underflow";
    EXPECT_EQ(y[5], T(1));
    EXPECT_EQ(y[6], T(1));
    ks::unary(ks::UnaryFunction::log, x, y, 7, Store::cached);
    EXPECT_EQ(y[0], inf);
    EXPECT_TRUE(std::isnan(y[1]) && std::isnan(y[2]));
    EXPECT_EQ(y[5], -inf);
    ks::unary(ks::UnaryFunction::expm1, x, y, 7, Store::cached);
    EXPECT_EQ(y[0], inf);
    EXPECT_EQ(y[1], T(-1));
    EXPECT_TRUE(std::isnan(y[2]));
    EXPECT_EQ(y[3], inf) << "overflow";
    EXPECT_EQ(y[4], T(-1));
    EXPECT_EQ(y[5], T(0));
    EXPECT_EQ(y[6], std::numeric_limits<T>::denorm_min());
    const T negative_zero = -T(0), minus_one = -1;
    ks::unary(ks::UnaryFunction::expm1, &negative_zero, y, 1, Store::cached);
    EXPECT_TRUE(y[0] == 0 && std::signbit(y[0]));
    ks::unary(ks::UnaryFunction::log1p, x, y, 7, Store::cached);
    EXPECT_EQ(y[0], inf);
    EXPECT_TRUE(std::isnan(y[1]) && std::isnan(y[2]));
    EXPECT_EQ(y[5], T(0));
    EXPECT_EQ(y[6], std::numeric_limits<T>::denorm_min());
    ks::unary(ks::UnaryFunction::log1p, &minus_one, y, 1, Store::cached);
    EXPECT_EQ(y[0], -inf);
    ks::unary(ks::UnaryFunction::log1p, &negative_zero, y, 1, Store::cached);
    EXPECT_TRUE(y[0] == 0 && std::signbit(y[0]));
    ks::unary(ks::UnaryFunction::tanh, x, y, 3, Store::cached);
    EXPECT_EQ(y[0], T(1));
    EXPECT_EQ(y[1], T(-1));
    EXPECT_TRUE(std::isnan(y[2]));
    ks::unary(ks::UnaryFunction::sigmoid, x, y, 3, Store::cached);
    EXPECT_EQ(y[0], T(1));
    EXPECT_EQ(y[1], T(0));
    EXPECT_TRUE(std::isnan(y[2]));
  });
}

TEST(SimdAccuracy, SpecialValuesOfExpExpm1LogLog1pTanhSigmoid) {
  check_exp_limits<float>();
  check_exp_limits<double>();
}

}  // namespace
}  // namespace acc_test::simd
