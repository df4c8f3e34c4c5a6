// The vectorised CPU kernels (backends/cpu/simd/) on every Highway target this CPU supports, against long
// double references: random inputs, every kind of vector tail and misaligned start, cached and streaming
// stores, outputs poisoned with nan and fenced by guards.
#include <algorithm>
#include <cmath>

#include "simd_support.hpp"

namespace acc_test::simd {
namespace {

using ks::Store;
using LD = long double;

constexpr Store kStores[] = {Store::cached, Store::streaming};

// Relative tolerance of one rounding-dominated result: about 8 ulp of T.
template <typename T>
constexpr double rel_tol() {
  return sizeof(T) == 4 ? 1e-6 : 2e-15;
}

LD gelu_ref(LD x, bool tanh_form) {
  if (tanh_form) return x / (1 + std::exp(-2 * 0.79788456080286535588L * (x + 0.044715L * x * x * x)));
  return 0.5L * x * std::erfc(-x / std::sqrt(2.0L));
}

LD gelu_grad_ref(LD x, bool tanh_form) {
  if (tanh_form) {
    const LD k = 0.79788456080286535588L, t = std::tanh(k * (x + 0.044715L * x * x * x));
    return 0.5L * (1 + t) + 0.5L * x * (1 - t * t) * k * (1 + 3 * 0.044715L * x * x);
  }
  return 0.5L * std::erfc(-x / std::sqrt(2.0L)) + x * std::exp(-0.5L * x * x) / std::sqrt(2 * 3.14159265358979323846L);
}

// exp(-2u) amplifies the rounding of u by |2u|: the tanh form's condition number.
double tanh_form_condition(double x) { return 1 + 2 * std::fabs(0.7978845608 * (x + 0.044715 * x * x * x)); }

// The error that rounding the input to T causes, in units of the result's: exp(-2u) amplifies the
// rounding of u by |2u| in the tanh form; erfc(|x| / sqrt 2) that of x / sqrt 2 by x^2 (the double exact
// form; the float one carries x^2 as an unevaluated sum, Note [Float exact GELU]).
double condition(double x, bool tanh_form, std::size_t bytes) {
  if (tanh_form) return tanh_form_condition(x);
  return bytes == 8 ? 1 + x * x : 1.0;
}

// Results that underflow: the exact form keeps subnormal results to a few steps; the tanh form divides by
// exp(-2u), which overflows first (float results below 1e-37 become 0).
template <typename T>
double underflow_tol(bool tanh_form) {
  return tanh_form ? 8 * std::numeric_limits<T>::min() : 4 * std::numeric_limits<T>::denorm_min();
}

template <typename T>
void check_gelu() {
  std::mt19937_64 rng(11);
  for_each_target([&](const std::string&) {
    for (bool tanh_form : {false, true}) {
      for (bool with_bias : {false, true}) {
        for (std::size_t n : kLengths) {
          for (Store store : kStores) {
            const std::size_t offset = n % 3;
            auto x = random_input<T>(n, offset, rng, -12, 12), b = random_input<T>(n, offset, rng, -1, 1);
            auto g = random_input<T>(n, offset, rng, -2, 2);
            Poisoned<T> y(n, offset), dx(n, offset);
            ks::gelu(x.data(), with_bias ? b.data() : nullptr, y.data(), n, tanh_form, store);
            ks::gelu_backward(g.data(), x.data(), dx.data(), n, tanh_form, store);
            ASSERT_TRUE(y.guards_intact() && dx.guards_intact()) << n;
            for (std::size_t i = 0; i < n; ++i) {
              const T in = with_bias ? static_cast<T>(x[i] + b[i]) : x[i];
              const double want = static_cast<double>(gelu_ref(in, tanh_form));
              ASSERT_LE(std::fabs(y[i] - want), rel_tol<T>() * std::fabs(want) * condition(in, tanh_form, sizeof(T)) +
                                                    underflow_tol<T>(tanh_form))
                  << "gelu(" << in << ") n=" << n << (tanh_form ? " tanh" : " exact");
              const double want_dx = static_cast<double>(g[i] * gelu_grad_ref(x[i], tanh_form));
              ASSERT_LE(std::fabs(dx[i] - want_dx), 2 * rel_tol<T>() * std::fabs(g[i]) * tanh_form_condition(x[i]))
                  << "gelu'(" << x[i] << ") n=" << n << (tanh_form ? " tanh" : " exact");
            }
          }
        }
      }
    }
  });
}

TEST(SimdKernels, GeluMatchesLongDouble) {
  check_gelu<float>();
  check_gelu<double>();
}

template <typename T>
void check_gelu_limits() {
  constexpr T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  const T x[8] = {-inf, inf, nan, T(0), T(-30), T(30), T(-1e30), T(1e30)};
  const T ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  for_each_target([&](const std::string&) {
    for (bool tanh_form : {false, true}) {
      T y[8], dx[8];
      ks::gelu(x, nullptr, y, 8, tanh_form, Store::cached);
      ks::gelu_backward(ones, x, dx, 8, tanh_form, Store::cached);
      EXPECT_EQ(y[0], T(0)) << "gelu(-inf)";
      EXPECT_EQ(y[1], inf);
      EXPECT_TRUE(std::isnan(y[2]));
      EXPECT_EQ(y[3], T(0));
      EXPECT_LE(std::fabs(y[4]), T(1e-30));
      EXPECT_EQ(y[5], T(30));
      EXPECT_EQ(y[6], T(0));
      EXPECT_EQ(y[7], T(1e30));
      EXPECT_EQ(dx[0], T(0)) << "gelu'(-inf)";
      EXPECT_EQ(dx[1], T(1)) << "gelu'(inf)";
      EXPECT_TRUE(std::isnan(dx[2]));
      EXPECT_EQ(dx[3], T(0.5));
      EXPECT_LE(std::fabs(dx[4]), T(1e-30));
      EXPECT_EQ(dx[5], T(1));
    }
  });
}

TEST(SimdKernels, GeluLimitsAndNan) {
  check_gelu_limits<float>();
  check_gelu_limits<double>();
}

template <typename T>
void check_layer_norm(double scale) {
  std::mt19937_64 rng(12);
  for_each_target([&](const std::string&) {
    for (std::size_t n : kLengths) {
      for (Store store : kStores) {
        for (int params = 0; params < 4; ++params) {
          const std::size_t offset = (n + 1) % 4;
          auto x = random_input<T>(n, offset, rng, -3 * scale, 5 * scale);
          auto w = random_input<T>(n, offset, rng, 0.5, 2), b = random_input<T>(n, offset, rng, -1, 1);
          auto g = random_input<T>(n, offset, rng, -1, 1);
          const T* wp = (params & 1) ? w.data() : nullptr;
          const T* bp = (params & 2) ? b.data() : nullptr;
          Poisoned<T> y(n, offset), dx(n, offset);
          T mean = 0, rstd = 0;
          ks::layer_norm_rows(x.data(), wp, bp, 1, n, 1e-5, y.data(), &mean, &rstd, store);
          LD mu = 0, var = 0;
          for (std::size_t i = 0; i < n; ++i) mu += x[i];
          mu /= n;
          for (std::size_t i = 0; i < n; ++i) var += (x[i] - mu) * (x[i] - mu);
          const LD rs = 1 / std::sqrt(var / n + LD(1e-5));
          ASSERT_TRUE(y.guards_intact());
          ASSERT_NEAR(mean, mu, 4 * rel_tol<T>() * (std::fabs(mu) + std::sqrt(var / n)));
          ASSERT_NEAR(rstd / rs, 1.0, 4 * rel_tol<T>()) << n << " " << rstd << " " << double(rs);
          for (std::size_t i = 0; i < n; ++i) {
            const LD xhat = (x[i] - mu) * rs, wi = wp ? w[i] : 1, bi = bp ? b[i] : 0;
            const LD want = xhat * wi + bi;
            ASSERT_NEAR(y[i], want, 16 * rel_tol<T>() * (std::fabs(xhat * wi) + std::fabs(bi) + 1)) << n;
          }
          // Backward: dx, and the parameter sums added onto what was there.
          std::vector<T> dw(n, T(0.25)), db(n, T(-0.5));
          ks::layer_norm_backward_rows(g.data(), x.data(), wp, &mean, &rstd, 1, n, dx.data(), dw.data(), db.data(),
                                       store);
          ASSERT_TRUE(dx.guards_intact());
          LD sum_g = 0, sum_gx = 0, mag = 0;
          for (std::size_t i = 0; i < n; ++i) {
            const LD gw = g[i] * (wp ? w[i] : 1);
            sum_g += gw;
            sum_gx += gw * (x[i] - LD(mean)) * rstd;
            mag += std::fabs(gw);
          }
          for (std::size_t i = 0; i < n; ++i) {
            const LD xhat = (x[i] - LD(mean)) * rstd, gw = g[i] * (wp ? w[i] : 1);
            const LD want = rstd * (gw - sum_g / n - xhat * sum_gx / n);
            ASSERT_NEAR(dx[i], want, 16 * rel_tol<T>() * rstd * (std::fabs(gw) + 4 * mag / n + 1e-30)) << n;
            ASSERT_NEAR(dw[i], 0.25 + g[i] * xhat, 8 * rel_tol<T>() * (1 + std::fabs(g[i] * xhat)));
            ASSERT_NEAR(db[i], -0.5 + g[i], 8 * rel_tol<T>());
          }
        }
      }
    }
  });
}

TEST(SimdKernels, LayerNormMatchesLongDouble) {
  check_layer_norm<float>(1.0);
  check_layer_norm<double>(1.0);
}

// Squares of float rows near 1e20 exceed FLT_MAX: the statistics must stay finite and right (as PyTorch's).
TEST(SimdKernels, LayerNormOfHugeFloatRowsDoesNotOverflow) {
  check_layer_norm<float>(1e20);
  check_layer_norm<double>(1e160);
}

template <typename T>
void check_softmax() {
  std::mt19937_64 rng(13);
  for_each_target([&](const std::string&) {
    for (bool log : {false, true}) {
      for (std::size_t n : kLengths) {
        for (Store store : kStores) {
          const std::size_t offset = n % 2;
          auto x = random_input<T>(n, offset, rng, -20, 20), g = random_input<T>(n, offset, rng, -1, 1);
          Poisoned<T> y(n, offset), dx(n, offset);
          ks::softmax_rows(x.data(), y.data(), 1, n, log, store);
          ASSERT_TRUE(y.guards_intact());
          LD m = -INFINITY, sum = 0;
          for (std::size_t i = 0; i < n; ++i) m = std::max<LD>(m, x[i]);
          for (std::size_t i = 0; i < n; ++i) sum += std::exp(x[i] - m);
          for (std::size_t i = 0; i < n; ++i) {
            const LD p = std::exp(x[i] - m) / sum;
            if (log) {
              const LD want = x[i] - m - std::log(sum);
              ASSERT_NEAR(y[i], want, 4 * rel_tol<T>() * (std::fabs(x[i]) + std::fabs(m) + std::log(sum) + 1)) << n;
            } else {
              ASSERT_NEAR(y[i], p, 4 * rel_tol<T>() * p * (1 + std::fabs(x[i] - m))) << n;
            }
          }
          ks::softmax_backward_rows(g.data(), y.data(), dx.data(), 1, n, log, store);
          ASSERT_TRUE(dx.guards_intact());
          LD acc = 0, mag = 0;
          for (std::size_t i = 0; i < n; ++i) {
            acc += log ? LD(g[i]) : LD(g[i]) * y[i];
            mag += std::fabs(log ? LD(g[i]) : LD(g[i]) * y[i]);
          }
          for (std::size_t i = 0; i < n; ++i) {
            const LD p = log ? std::exp(LD(y[i])) : LD(y[i]);
            const LD want = log ? g[i] - p * acc : p * (g[i] - acc);
            ASSERT_NEAR(dx[i], want, 8 * rel_tol<T>() * (std::fabs(g[i]) + p * (mag + 1e-30))) << n;
          }
        }
      }
    }
  });
}

TEST(SimdKernels, SoftmaxMatchesLongDouble) {
  check_softmax<float>();
  check_softmax<double>();
}

// Several rows in one call (the next row is prefetched while one computes) over a range wide enough that
// most exponentials fall below the smallest normal, where the finite-row exponential stops: those come
// out within a few smallest normals of the reference. A row whose finite values sum past the largest
// float takes the careful path and still gives 1/n each.
template <typename T>
void check_softmax_wide_rows() {
  std::mt19937_64 rng(15);
  const T range = sizeof(T) == 4 ? T(150) : T(1000);
  for_each_target([&](const std::string&) {
    for (bool log : {false, true}) {
      for (std::size_t n : {std::size_t{1}, std::size_t{31}, std::size_t{1024}, std::size_t{1031}}) {
        const std::size_t rows = 5;
        auto x = random_input<T>(rows * n, 0, rng, -range, range);
        Poisoned<T> y(rows * n, 0);
        ks::softmax_rows(x.data(), y.data(), rows, n, log, Store::cached);
        ASSERT_TRUE(y.guards_intact());
        for (std::size_t r = 0; r < rows; ++r) {
          const T* xr = x.data() + r * n;
          LD m = -INFINITY, sum = 0;
          for (std::size_t i = 0; i < n; ++i) m = std::max<LD>(m, xr[i]);
          for (std::size_t i = 0; i < n; ++i) sum += std::exp(xr[i] - m);
          for (std::size_t i = 0; i < n; ++i) {
            const T got = y[r * n + i];
            if (log) {
              const LD want = xr[i] - m - std::log(sum);
              ASSERT_NEAR(got, want, 4 * rel_tol<T>() * (std::fabs(xr[i]) + std::fabs(m) + std::log(sum) + 1)) << n;
            } else {
              const LD p = std::exp(xr[i] - m) / sum;
              ASSERT_NEAR(got, p, 4 * rel_tol<T>() * p * (1 + std::fabs(xr[i] - m)) + 4 * std::numeric_limits<T>::min())
                  << "row " << r << " n " << n;
            }
          }
        }
      }
      const T huge = std::numeric_limits<T>::max() / 2;
      const T big_row[4] = {huge, huge, huge, huge};
      T y[4];
      ks::softmax_rows(big_row, y, 1, 4, log, Store::cached);
      for (T v : y) EXPECT_NEAR(v, log ? -std::log(4.0) : 0.25, 1e-6);
    }
  });
}

TEST(SimdKernels, SoftmaxOfWideRangeRowsInOneCall) {
  check_softmax_wide_rows<float>();
  check_softmax_wide_rows<double>();
}

template <typename T>
void check_softmax_special_rows() {
  constexpr T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  for_each_target([&](const std::string&) {
    for (bool log : {false, true}) {
      const T with_neg_inf[5] = {-inf, T(0), T(1), -inf, T(-1)};
      T y[5];
      ks::softmax_rows(with_neg_inf, y, 1, 5, log, Store::cached);
      const double total = std::exp(0.0) + std::exp(1.0) + std::exp(-1.0);
      EXPECT_EQ(y[0], log ? -inf : T(0));
      EXPECT_EQ(y[3], log ? -inf : T(0));
      EXPECT_NEAR(y[2], log ? 1 - std::log(total) : std::exp(1.0) / total, 1e-6);
      // All -inf, or a nan: nan everywhere (as PyTorch).
      const T all_neg_inf[3] = {-inf, -inf, -inf}, with_nan[3] = {T(1), nan, T(2)};
      ks::softmax_rows(all_neg_inf, y, 1, 3, log, Store::cached);
      for (int i = 0; i < 3; ++i) EXPECT_TRUE(std::isnan(y[i]));
      ks::softmax_rows(with_nan, y, 1, 3, log, Store::cached);
      for (int i = 0; i < 3; ++i) EXPECT_TRUE(std::isnan(y[i]));
    }
  });
}

TEST(SimdKernels, SoftmaxRowsWithInfinitiesAndNan) {
  check_softmax_special_rows<float>();
  check_softmax_special_rows<double>();
}

template <typename T>
void check_reductions() {
  std::mt19937_64 rng(14);
  for_each_target([&](const std::string&) {
    for (std::size_t n : kLengths) {
      auto x = random_input<T>(n, n % 5, rng, -100, 100);
      LD sum = 0, mag = 0;
      T mx = -std::numeric_limits<T>::infinity(), mn = std::numeric_limits<T>::infinity();
      for (std::size_t i = 0; i < n; ++i) {
        sum += x[i], mag += std::fabs(x[i]), mx = std::max(mx, x[i]), mn = std::min(mn, x[i]);
      }
      ASSERT_NEAR(ks::sum(x.data(), n), sum, 1e-14 * mag) << n;
      ASSERT_EQ(ks::max(x.data(), n), mx) << n;
      ASSERT_EQ(ks::min(x.data(), n), mn) << n;
      if (n > 0) {
        const auto at = static_cast<std::size_t>(std::find(x.data(), x.data() + n, mx) - x.data());
        ASSERT_EQ(ks::first_index(x.data(), static_cast<std::int64_t>(n), mx), static_cast<std::int64_t>(at)) << n;
        x.data()[n - 1] = mx;  // a later equal value does not move the first index
        ASSERT_EQ(ks::first_index(x.data(), static_cast<std::int64_t>(n), mx), static_cast<std::int64_t>(at)) << n;
      }
      ASSERT_EQ(ks::first_index(x.data(), static_cast<std::int64_t>(n), T(1e30)), static_cast<std::int64_t>(n));
      x.data()[n / 2] = std::numeric_limits<T>::quiet_NaN();
      ASSERT_TRUE(std::isnan(ks::max(x.data(), n))) << n;
      ASSERT_TRUE(std::isnan(ks::min(x.data(), n))) << n;
      ASSERT_EQ(ks::first_index(x.data(), static_cast<std::int64_t>(n), std::numeric_limits<T>::quiet_NaN()),
                static_cast<std::int64_t>(n / 2))
          << n;
    }
    EXPECT_EQ(ks::max(static_cast<const T*>(nullptr), 0), -std::numeric_limits<T>::infinity());
    EXPECT_EQ(ks::sum(static_cast<const T*>(nullptr), 0), 0.0);
  });
}

TEST(SimdKernels, SumAndMaxMatchLongDouble) {
  check_reductions<float>();
  check_reductions<double>();
}

template <typename T>
void check_binary() {
  std::mt19937_64 rng(16);
  using F = ks::BinaryFunction;
  for_each_target([&](const std::string&) {
    for (F fn : {F::add, F::subtract, F::multiply, F::divide}) {
      for (std::size_t n : kLengths) {
        for (Store store : kStores) {
          for (int scalar = 0; scalar < 3; ++scalar) {  // none, a, b broadcast
            auto a = random_input<T>(n, n % 4, rng, 0.5, 4), b = random_input<T>(n, n % 4, rng, 0.5, 4);
            Poisoned<T> out(n, n % 4);
            ks::binary(fn, a.data(), scalar == 1, b.data(), scalar == 2, out.data(), n, store);
            ASSERT_TRUE(out.guards_intact());
            for (std::size_t i = 0; i < n; ++i) {
              const T x = a[scalar == 1 ? 0 : i], y = b[scalar == 2 ? 0 : i];
              const T want = fn == F::add ? x + y : fn == F::subtract ? x - y : fn == F::multiply ? x * y : x / y;
              ASSERT_EQ(out[i], want) << static_cast<int>(fn) << " n=" << n << " scalar=" << scalar;
            }
          }
        }
      }
    }
  });
}

// IEEE operations: exactly the scalar results.
TEST(SimdKernels, BinaryOpsAreExact) {
  check_binary<float>();
  check_binary<double>();
}

template <typename T>
void check_complex_abs() {
  std::mt19937_64 rng(17);
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  const T big = std::numeric_limits<T>::max() / 2, tiny = std::numeric_limits<T>::denorm_min() * 3;
  for_each_target([&](const std::string&) {
    for (std::size_t n : kLengths) {
      auto pairs = random_input<T>(2 * n, n % 4, rng, -4, 4);
      // Parts whose squares overflow or underflow, zeros, and the special values, where there is room.
      const T specials[][2] = {{big, big}, {tiny, tiny}, {0, -0.0}, {inf, nan}, {nan, -inf}, {nan, 1}, {3, -4}};
      for (std::size_t k = 0; k < std::min<std::size_t>(n, std::size(specials)); ++k) {
        pairs.data()[2 * k] = specials[k][0];
        pairs.data()[2 * k + 1] = specials[k][1];
      }
      Poisoned<T> out(n, n % 4);
      ks::complex_abs(pairs.data(), out.data(), static_cast<std::int64_t>(n));
      ASSERT_TRUE(out.guards_intact());
      for (std::size_t k = 0; k < n; ++k) {
        const long double want = std::hypot(static_cast<long double>(pairs[2 * k]), static_cast<long double>(pairs[2 * k + 1]));
        if (std::isinf(pairs[2 * k]) || std::isinf(pairs[2 * k + 1])) {
          ASSERT_EQ(out[k], inf) << k;
        } else if (std::isnan(pairs[2 * k]) || std::isnan(pairs[2 * k + 1])) {
          ASSERT_TRUE(std::isnan(out[k])) << k;
        } else {
          ASSERT_LE(ulp_error<T>(out[k], static_cast<double>(want)), 2.0) << "n=" << n << " k=" << k;
        }
      }
    }
  });
}

// |z| within 2 ulp of hypot, with cabs's special values, on every target.
TEST(SimdKernels, ComplexAbsMatchesHypot) {
  check_complex_abs<float>();
  check_complex_abs<double>();
}

TEST(SimdKernels, UnknownTargetIsAValueErrorNamingTheChoices) {
  try {
    ks::select_target("avx9000");
    FAIL() << "no error";
  } catch (const accelera::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("avx9000"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("best"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find(ks::compiled_target_names().back()), std::string::npos);
  }
  ks::select_target("best");
  EXPECT_EQ(ks::active_target_name(), ks::supported_target_names().front());
}

}  // namespace
}  // namespace acc_test::simd
