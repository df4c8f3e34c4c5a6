#pragma once
// Float64 references for the matrix engine's tests (test_engine.cpp, test_multi_device.cpp).
#include <cmath>
#include <string>
#include <vector>

#include "helpers.hpp"

namespace acc_test {

// C = A @ B in float64 from the host views, whatever their strides.
inline std::vector<double> reference(const Tensor& a, const Tensor& b) {
  const std::int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  std::vector<double> av(static_cast<std::size_t>(m * k)), bv(static_cast<std::size_t>(k * n));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t p = 0; p < k; ++p) av[static_cast<std::size_t>(i * k + p)] = get(a, {i, p});
  for (std::int64_t p = 0; p < k; ++p)
    for (std::int64_t j = 0; j < n; ++j) bv[static_cast<std::size_t>(p * n + j)] = get(b, {p, j});
  std::vector<double> c(static_cast<std::size_t>(m * n), 0.0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t p = 0; p < k; ++p) {
      const double x = av[static_cast<std::size_t>(i * k + p)];
      for (std::int64_t j = 0; j < n; ++j) c[static_cast<std::size_t>(i * n + j)] += x * bv[static_cast<std::size_t>(p * n + j)];
    }
  return c;
}

// |got - ref| <= tol * sqrt(K) * (|A| |B|)_ij, the forward error bound of a dot product of length K.
inline void expect_product(const Tensor& c, const Tensor& a, const Tensor& b, const std::string& what) {
  ASSERT_TRUE(c.device().is_cpu());
  const std::int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  ASSERT_EQ(c.shape(), Shape({m, n}));
  const auto ref = reference(a, b);
  const double eps = c.dtype() == DType::f32 ? 6e-8 : 1.2e-16;
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      const double got = get(c, {i, j}), want = ref[static_cast<std::size_t>(i * n + j)];
      // Inputs are in [-1, 1]: |A||B| <= K.
      if (!(std::abs(got - want) <= 8 * eps * static_cast<double>(k) + 1e-300)) {
        if (bad++ < 3) ADD_FAILURE() << what << ": C[" << i << "," << j << "] = " << got << ", expected " << want;
      }
    }
  }
  EXPECT_EQ(bad, 0) << what;
}

}  // namespace acc_test
