// accelera demo: a matmul of matrices several times larger than the device budget, streamed through the best
// device present, verified against float64 and timed against the same product in core.
// Verification: Freivalds' check of the whole product (C x == A (B x), computed in float64, with an
// error bound from |A| (|B| |x|)) plus 64 sampled entries against float64 dot products.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <vector>

#include "accelera/accelera.hpp"
#include "commands.hpp"
#include "accelera/core/size.hpp"
#include "npy.hpp"

namespace accelera::cli {

namespace {

template <typename T>
Tensor random_matrix(std::int64_t n, std::mt19937_64& rng, DType dtype) {
  Tensor t = Tensor::empty(Shape{n, n}, dtype);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  T* p = t.data<T>();
  for (std::int64_t i = 0; i < n * n; ++i) p[i] = static_cast<T>(dist(rng));
  return t;
}

struct Verification {
  double freivalds_error = 0;  // max over rows of |Cx - A(Bx)| / (|A|(|B||x|))
  double sample_error = 0;     // max over samples of |C_ij - ref| / sum_k |A_ik B_kj|
};

template <typename T>
Verification verify(const Tensor& a, const Tensor& b, const Tensor& c, std::mt19937_64& rng) {
  const std::int64_t n = a.shape()[0];
  const T* A = a.data<T>();
  const T* B = b.data<T>();
  const T* C = c.data<T>();
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> x(n), bx(n, 0), bxa(n, 0);
  for (auto& v : x) v = dist(rng);
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      bx[i] += static_cast<double>(B[i * n + j]) * x[j];
      bxa[i] += std::abs(static_cast<double>(B[i * n + j]) * x[j]);
    }
  }
  Verification v;
  for (std::int64_t i = 0; i < n; ++i) {
    double cx = 0, abx = 0, bound = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      cx += static_cast<double>(C[i * n + j]) * x[j];
      abx += static_cast<double>(A[i * n + j]) * bx[j];
      bound += std::abs(static_cast<double>(A[i * n + j])) * bxa[j];
    }
    v.freivalds_error = std::max(v.freivalds_error, std::abs(cx - abx) / std::max(bound, 1e-300));
  }
  std::uniform_int_distribution<std::int64_t> index(0, n - 1);
  for (int s = 0; s < 64; ++s) {
    const std::int64_t i = index(rng), j = index(rng);
    double ref = 0, scale = 0;
    for (std::int64_t k = 0; k < n; ++k) {
      const double p = static_cast<double>(A[i * n + k]) * static_cast<double>(B[k * n + j]);
      ref += p;
      scale += std::abs(p);
    }
    v.sample_error = std::max(v.sample_error, std::abs(static_cast<double>(C[i * n + j]) - ref) / std::max(scale, 1e-300));
  }
  return v;
}

}  // namespace

int run_demo(const DemoOptions& options) {
  const DType dtype = dtype_from_name(options.dtype);
  ACC_CHECK(dtype == DType::f32 || dtype == DType::f64, DTypeError, "demo runs float32 or float64, not {}",
            options.dtype);
  const Device device = options.device.empty() ? default_device() : Device::parse(options.device);
  const DeviceInfo info = device_interface(device).device_info(device.index);
  const std::int64_t n = options.size;
  const auto e = static_cast<std::int64_t>(dtype_size(dtype));
  const std::int64_t operand_bytes = 2 * n * n * e;
  const std::int64_t budget = options.budget.empty() ? std::max<std::int64_t>(operand_bytes / 8, 64 * 1024)
                                                     : parse_size(options.budget);
  fmt::print("accelera demo: C = A @ B, {0} x {0} {1}, on {2} ({3}, {4} compute units)\n", n, dtype_name(dtype),
             device.str(), info.name, info.compute_units);
  fmt::print("  A and B hold {:.1f} MB in host memory; the device may use {:.1f} MB ({:.1f}x less), so they "
             "stream through it in tiles\n",
             static_cast<double>(operand_bytes) / 1e6, static_cast<double>(budget) / 1e6,
             static_cast<double>(operand_bytes) / static_cast<double>(budget));

  std::mt19937_64 rng(20261121);
  const bool f32 = dtype == DType::f32;
  const Tensor a = f32 ? random_matrix<float>(n, rng, dtype) : random_matrix<double>(n, rng, dtype);
  const Tensor b = f32 ? random_matrix<float>(n, rng, dtype) : random_matrix<double>(n, rng, dtype);
  const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);

  // In core, for reference: operands resident on the device, when they fit its own budget.
  double in_core = 0;
  if (3 * n * n * e <= allocator_for(device).stats().budget_bytes) {
    const Tensor ad = a.to(device), bd = b.to(device);
    for (int r = 0; r < 2; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      const Tensor c = matmul(ad, bd);
      device_interface(device).synchronize(device.index);
      in_core = std::max(in_core, flops / std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 1e9);
    }
    fmt::print("  in core (operands resident on {}): {:.1f} GFLOP/s\n", device.str(), in_core);
  }

  EngineOptions o;
  o.device = device;
  o.memory_budget = budget;
  o.enable_progress = !options.quiet;
  MatrixEngine engine(o);
  Tensor c;
  double best = 0;
  for (int r = 0; r < options.repeat; ++r) {
    c = engine.matmul(a, b);
    const RunStats& run = engine.last_run();
    best = std::max(best, flops / run.seconds / 1e9);
    fmt::print("  streamed run {}: {:.3f} s  {:.1f} GFLOP/s\n", r + 1, run.seconds, flops / run.seconds / 1e9);
  }
  print_run(engine.last_run());
  if (in_core > 0) fmt::print("  efficiency against in core: {:.2f}\n", best / in_core);
  const Verification v = f32 ? verify<float>(a, b, c, rng) : verify<double>(a, b, c, rng);
  // Rounding of one output is bounded by ~k * eps relative to sum |a b|; allow a wide safety margin.
  const double tol = (f32 ? 1.2e-7 : 2.3e-16) * std::sqrt(static_cast<double>(n)) * 16;
  fmt::print("  verified against float64: whole product (Freivalds) max error {:.2e}, 64 sampled entries max "
             "error {:.2e} (tolerance {:.1e}, relative to sum |a*b|)\n",
             v.freivalds_error, v.sample_error, tol);
  const bool ok = v.freivalds_error <= tol && v.sample_error <= tol && engine.last_run().streamed;
  fmt::print("{}\n", ok ? "OK" : "FAILED: the product does not match the float64 reference");
  return ok ? 0 : 2;
}

}  // namespace accelera::cli
