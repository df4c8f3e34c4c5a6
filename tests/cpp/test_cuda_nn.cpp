// The fused neural-network ops in float16 and bfloat16 on cuda:0 (label `gpu`; skipped, saying why, where
// no CUDA device answers). References are float64 computations on the rounded half inputs; tolerances
// are a few units of the format's rounding (2^-11 for float16, 2^-8 for bfloat16) of each result's
// magnitude. The float32 and float64 cases run on every device in test_nn_ops.cpp.
#include <cmath>
#include <cstring>

#include "nn_helpers.hpp"

namespace acc_test {
namespace {

using namespace acc_test::nn;
using accelera::GeluApproximation;

const Device kCuda{accelera::DeviceKind::cuda, 0};

class CudaHalfNn : public ::testing::TestWithParam<DType> {
 protected:
  void SetUp() override {
    if (!cuda_compiled()) GTEST_SKIP() << "built without CUDA support";
    if (const std::string why = device_absence(kCuda); !why.empty()) GTEST_SKIP() << why;
  }
  DType dt() const { return GetParam(); }
  // Unit roundoff of the format, times a small factor for the few float roundings before the last one.
  double unit() const { return dt() == DType::f16 ? 4 * 0x1p-11 : 4 * 0x1p-8; }
  Tol tol() const { return {unit(), 1e-30}; }
  // A random tensor already rounded to the half format (the reference sees exactly these values).
  Tensor rounded(const Shape& shape, double lo = -1.0, double hi = 1.0) {
    return random_tensor(shape, DType::f32, rng, lo, hi).astype(dt());
  }
  std::mt19937_64 rng{29};
};

TEST_P(CudaHalfNn, GeluForwardAndBackward) {
  for (bool tanh_form : {false, true}) {
    const auto approx = tanh_form ? GeluApproximation::tanh : GeluApproximation::none;
    for (const Shape& shape : {Shape{1}, Shape{7, 13}, Shape{3, 1, 1023}, Shape{5, 4096}}) {
      const Tensor x = rounded(shape, -6.0, 6.0), g = rounded(shape);
      const Tensor b = rounded(Shape{shape[shape.ndim() - 1]});
      poison_outputs(kCuda, {static_cast<std::int64_t>(x.nbytes())});
      const Tensor y = host(accelera::gelu(x.to(kCuda), approx));
      ASSERT_EQ(y.dtype(), dt());
      Ref ref = ref_unary(x, [&](double v) { return gelu_ref(v, tanh_form); });
      ref.mag = ref_unary(x, [&](double v) { return std::fabs(gelu_ref(v, tanh_form)) + 1e-3 * std::fabs(v); }).v;
      EXPECT_TRUE(matches(y, ref, tol())) << shape.str() << (tanh_form ? " tanh" : " exact");

      const Tensor yb = host(accelera::bias_gelu(x.to(kCuda), b.to(kCuda), approx));
      const Tensor x64 = accelera::add(x.astype(DType::f64), b.astype(DType::f64));
      Ref refb = ref_unary(x64, [&](double v) { return gelu_ref(v, tanh_form); });
      // x + b is rounded to float before GELU: the error is measured against |x| + |b|.
      refb.mag = ref_unary(x64, [&](double v) { return std::fabs(v) + 1.0; }).v;
      EXPECT_TRUE(matches(yb, refb, tol())) << "bias " << shape.str();

      poison_outputs(kCuda, {static_cast<std::int64_t>(x.nbytes())});
      const Tensor dx = host(accelera::gelu_backward(g.to(kCuda), x.to(kCuda), approx));
      Ref refd = ref_binary(g, x, [&](double gv, double xv) { return gv * gelu_grad_ref(xv, tanh_form); });
      refd.mag = ref_unary(g, [](double v) { return std::fabs(v) * 1.2; }).v;
      EXPECT_TRUE(matches(dx, refd, tol())) << "backward " << shape.str();
    }
  }
}

TEST_P(CudaHalfNn, LayerNormForwardAndBackward) {
  for (const Shape& shape : {Shape{1, 1}, Shape{7, 13}, Shape{3, 1023}, Shape{2, 4097}, Shape{1, 12289}}) {
    const std::int64_t n = shape[1], rows = shape[0];
    const Tensor x = rounded(shape, -3.0, 5.0), w = rounded(Shape{n}, 0.5, 2.0), b = rounded(Shape{n});
    const Tensor g = rounded(shape);
    poison_outputs(kCuda, {static_cast<std::int64_t>(x.nbytes()), rows * 4});
    const auto got = accelera::layer_norm(x.to(kCuda), w.to(kCuda), b.to(kCuda), 1e-5);
    ASSERT_EQ(got.mean.dtype(), DType::f32);
    const auto xv = values_of(x), wv = values_of(w), bv = values_of(b), gv = values_of(g);
    Ref out{shape, {}, {}}, dx{shape, {}, {}};
    Ref dw{Shape{n}, std::vector<double>(n, 0.0), std::vector<double>(n, 1.0)};
    Ref db{Shape{n}, std::vector<double>(n, 0.0), std::vector<double>(n, 1.0)};
    std::vector<double> means, rstds;
    for (std::int64_t r = 0; r < rows; ++r) {
      double mu = 0, var = 0;
      for (std::int64_t k = 0; k < n; ++k) mu += xv[r * n + k] / static_cast<double>(n);
      for (std::int64_t k = 0; k < n; ++k) var += (xv[r * n + k] - mu) * (xv[r * n + k] - mu) / static_cast<double>(n);
      const double rs = 1.0 / std::sqrt(var + 1e-5);
      means.push_back(mu);
      rstds.push_back(rs);
      double a = 0, c = 0, scale = 0;
      for (std::int64_t k = 0; k < n; ++k) {
        const double xh = (xv[r * n + k] - mu) * rs, gw = gv[r * n + k] * wv[k];
        out.v.push_back(xh * wv[k] + bv[k]);
        out.mag.push_back(std::fabs(wv[k]) * 4 + std::fabs(bv[k]));
        a += gw / static_cast<double>(n);
        c += gw * xh / static_cast<double>(n);
        scale += std::fabs(gw) / static_cast<double>(n);
        dw.v[k] += gv[r * n + k] * xh;
        dw.mag[k] += std::fabs(gv[r * n + k] * xh);
        db.v[k] += gv[r * n + k];
        db.mag[k] += std::fabs(gv[r * n + k]);
      }
      for (std::int64_t k = 0; k < n; ++k) {
        const double xh = (xv[r * n + k] - mu) * rs, gw = gv[r * n + k] * wv[k];
        dx.v.push_back(rs * (gw - a - xh * c));
        dx.mag.push_back(rs * (std::fabs(gw) + 5 * scale));
      }
    }
    EXPECT_TRUE(matches(host(got.out), out, tol())) << shape.str();
    const auto mv = values_of(host(got.mean)), rv = values_of(host(got.rstd));
    for (std::size_t r = 0; r < means.size(); ++r) {
      EXPECT_NEAR(mv[r], means[r], 1e-5 * (std::fabs(means[r]) + 4)) << r;  // float statistics
      EXPECT_NEAR(rv[r], rstds[r], 1e-5 * rstds[r]) << r;
    }
    poison_outputs(kCuda, {static_cast<std::int64_t>(x.nbytes()), n * 4});
    const auto grads = accelera::layer_norm_backward(g.to(kCuda), x.to(kCuda), w.to(kCuda), b.to(kCuda), got.mean,
                                                     got.rstd);
    EXPECT_TRUE(matches(host(grads.dx), dx, tol())) << "dx " << shape.str();
    EXPECT_TRUE(matches(host(grads.dweight), dw, tol())) << "dweight " << shape.str();
    EXPECT_TRUE(matches(host(grads.dbias), db, tol())) << "dbias " << shape.str();
  }
}

TEST_P(CudaHalfNn, SoftmaxAndLogSoftmaxForwardAndBackward) {
  for (const Shape& shape : {Shape{1, 1}, Shape{7, 13}, Shape{3, 1023}, Shape{2, 9001}}) {
    const std::int64_t n = shape[1], rows = shape[0];
    const Tensor x = rounded(shape, -8.0, 8.0), g = rounded(shape);
    const auto xv = values_of(x), gv = values_of(g);
    for (bool log : {false, true}) {
      poison_outputs(kCuda, {static_cast<std::int64_t>(x.nbytes())});
      const Tensor y = log ? accelera::log_softmax(x.to(kCuda), -1) : accelera::softmax(x.to(kCuda), -1);
      Ref ref{shape, {}, {}}, dref{shape, {}, {}};
      for (std::int64_t r = 0; r < rows; ++r) {
        double m = -INFINITY, s = 0, gsum = 0, gdot = 0;
        for (std::int64_t k = 0; k < n; ++k) m = std::max(m, xv[r * n + k]);
        for (std::int64_t k = 0; k < n; ++k) s += std::exp(xv[r * n + k] - m);
        // The backward pass starts from the device's rounded y: the reference does too.
        for (std::int64_t k = 0; k < n; ++k) {
          const double p = std::exp(xv[r * n + k] - m) / s;
          ref.v.push_back(log ? xv[r * n + k] - m - std::log(s) : p);
          ref.mag.push_back(log ? std::fabs(xv[r * n + k] - m) + std::log(s) : p);
          gsum += gv[r * n + k];
          gdot += gv[r * n + k] * p;
        }
        for (std::int64_t k = 0; k < n; ++k) {
          const double p = std::exp(xv[r * n + k] - m) / s;
          dref.v.push_back(log ? gv[r * n + k] - p * gsum : p * (gv[r * n + k] - gdot));
          // log-softmax: exp(y) of a rounded y is off by |y| rounding units.
          dref.mag.push_back(log ? std::fabs(gv[r * n + k]) + p * (std::fabs(gsum) + 1) * (1 - std::log(p)) : p * 3);
        }
      }
      EXPECT_TRUE(matches(host(y), ref, tol())) << shape.str() << (log ? " log" : "");
      poison_outputs(kCuda, {static_cast<std::int64_t>(x.nbytes())});
      const Tensor dx = log ? accelera::log_softmax_backward(g.to(kCuda), y, -1)
                            : accelera::softmax_backward(g.to(kCuda), y, -1);
      EXPECT_TRUE(matches(host(dx), dref, tol())) << "backward " << shape.str() << (log ? " log" : "");
    }
  }
}

// GELU(x @ w^T + b) in float64 on the rounded half inputs; the error is measured against sum |x w| + |b|.
Ref linear_gelu_ref(const Tensor& x, const Tensor& w, const Tensor& b, bool tanh_form) {
  const std::int64_t in = w.dim(1), out = w.dim(0), rows = x.numel() / in;
  const auto xv = values_of(x), wv = values_of(w), bv = values_of(b);
  std::vector<std::int64_t> od = x.shape().dims();
  od.back() = out;
  Ref ref{Shape(od), {}, {}};
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t o = 0; o < out; ++o) {
      double acc = bv[o], mag = std::fabs(bv[o]);
      for (std::int64_t i = 0; i < in; ++i) {
        acc += xv[r * in + i] * wv[o * in + i];
        mag += std::fabs(xv[r * in + i] * wv[o * in + i]);
      }
      ref.v.push_back(gelu_ref(acc, tanh_form));
      ref.mag.push_back(mag + 1e-2);
    }
  }
  return ref;
}

// `values` on cuda:0 as a contiguous view starting `offset` elements into its allocation (cudaMalloc
// blocks are 256-byte aligned, so the view is aligned to 2 * offset bytes at most).
Tensor at_offset_on_device(const Tensor& values, std::int64_t offset) {
  const std::int64_t n = values.numel();
  const Tensor flat = Tensor::empty(Shape{n + offset}, values.dtype());
  std::memcpy(static_cast<std::byte*>(flat.data_ptr()) + offset * static_cast<std::int64_t>(values.itemsize()),
              values.data_ptr(), values.nbytes());
  return flat.to(kCuda).slice(0, offset, offset + n).reshape(values.shape().dims());
}

// The tanh form in half formats runs as one cuBLASLt GEMM with the GELU epilogue; the exact form as the
// GEMM and a GELU pass (Note [linear_gelu on CUDA]).
TEST_P(CudaHalfNn, LinearGeluBothForms) {
  for (auto approx : {GeluApproximation::none, GeluApproximation::tanh}) {
    const bool tanh_form = approx == GeluApproximation::tanh;
    const std::vector<std::pair<Shape, Shape>> cases = {
        {Shape{1, 8}, Shape{8, 8}}, {Shape{2, 17, 32}, Shape{24, 32}}, {Shape{129, 64}, Shape{257, 64}},
        {Shape{3, 5}, Shape{7, 5}}};  // the last: sizes cuBLASLt may not vectorise
    for (const auto& [xs, ws] : cases) {
      const Tensor x = rounded(xs), w = rounded(ws), b = rounded(Shape{ws[0]});
      const Ref ref = linear_gelu_ref(x, w, b, tanh_form);
      poison_outputs(kCuda, {ref.shape.numel() * static_cast<std::int64_t>(x.itemsize())});
      const Tensor got = host(accelera::linear_gelu(x.to(kCuda), w.to(kCuda), b.to(kCuda), approx));
      EXPECT_TRUE(matches(got, ref, tol())) << xs.str() << " x " << ws.str() << (tanh_form ? " tanh" : " exact");
    }
  }
}

// Contiguous views at odd offsets (x = batch[1:] with an odd width; x, weight and bias 1..7 elements into
// their allocations): cuBLASLt must be told their real alignment, or a vectorised kernel faults with a
// misaligned address and the CUDA context is lost (the host copy of the result would raise DeviceError,
// and so would every later call). A bias less than 16-byte aligned takes the unfused path.
TEST_P(CudaHalfNn, LinearGeluOnViewsAtOddOffsets) {
  const std::int64_t widths[] = {7, 33, 129, 5, 65, 255, 17};
  const std::int64_t features[] = {5, 63, 17, 130, 9, 33, 256};
  for (auto approx : {GeluApproximation::tanh, GeluApproximation::none}) {
    const bool tanh_form = approx == GeluApproximation::tanh;
    for (std::int64_t k = 1; k <= 7; ++k) {
      const std::int64_t in = widths[k - 1], out = features[k - 1], rows = 3 + 11 * k;
      const Tensor x = rounded(Shape{rows, in}), w = rounded(Shape{out, in}), b = rounded(Shape{out});
      const Ref ref = linear_gelu_ref(x, w, b, tanh_form);
      const std::string what = fmt::format("{} offset {} x ({}, {}) w ({}, {})", tanh_form ? "tanh" : "exact", k,
                                           rows, in, out, in);
      // x, weight and bias all at offset k.
      const Tensor dx = at_offset_on_device(x, k), dw = at_offset_on_device(w, k), db = at_offset_on_device(b, k);
      ASSERT_NE(reinterpret_cast<std::uintptr_t>(dx.data_ptr()) % 16, 0u) << what;
      EXPECT_TRUE(matches(host(accelera::linear_gelu(dx, dw, db, approx)), ref, tol())) << what;
      // Only x misaligned, the bias 16-byte aligned: the fused path with a misaligned B operand.
      EXPECT_TRUE(matches(host(accelera::linear_gelu(dx, w.to(kCuda), at_offset_on_device(b, 8), approx)), ref,
                          tol()))
          << what << ", aligned bias";
      // batch[1:] with an odd width: one row in.
      const Tensor batch_host = Tensor::empty(Shape{rows + 1, in}, dt());
      std::memcpy(batch_host.data_ptr(), x.data_ptr(), static_cast<std::size_t>(in) * x.itemsize());
      std::memcpy(static_cast<std::byte*>(batch_host.data_ptr()) + in * static_cast<std::int64_t>(x.itemsize()),
                  x.data_ptr(), x.nbytes());
      const Tensor tail = batch_host.to(kCuda).slice(0, 1, rows + 1);
      ASSERT_TRUE(tail.is_contiguous());
      EXPECT_TRUE(matches(host(accelera::linear_gelu(tail, dw, b.to(kCuda), approx)), ref, tol()))
          << what << " batch[1:]";
      // Without a bias (the GELU epilogue alone).
      const Ref ref_nb = linear_gelu_ref(x, w, accelera::zeros(Shape{out}, dt()), tanh_form);
      EXPECT_TRUE(matches(host(accelera::linear_gelu(dx, dw, Tensor(), approx)), ref_nb, tol())) << what << " no bias";
    }
  }
  EXPECT_NO_THROW(accelera::device_interface(kCuda).synchronize(0));  // the context survived
}

// The `Cuda` prefix puts these under the ctest label `gpu` (tests/cpp/CMakeLists.txt).
INSTANTIATE_TEST_SUITE_P(CudaHalf, CudaHalfNn, ::testing::Values(DType::f16, DType::bf16),
                         [](const ::testing::TestParamInfo<DType>& info) {
                           return std::string(accelera::dtype_name(info.param));
                         });

}  // namespace
}  // namespace acc_test
