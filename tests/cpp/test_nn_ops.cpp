// The fused neural-network ops (gelu, bias_gelu, linear_gelu, layer_norm, softmax, log_softmax and their
// backward passes) on every device against float64 references written as plain loops; outputs poisoned
// before each run. Attention has its own suite (test_attention.cpp).
#include <cmath>

#include "nn_helpers.hpp"

namespace acc_test {
namespace {

using namespace acc_test::nn;
using accelera::GeluApproximation;

const std::vector<Shape> kRowShapes = {Shape{1, 1, 1023}, Shape{7, 13}, Shape{1}, Shape{3, 1, 127}, Shape{257, 33},
                                       Shape{2, 4097}};

class NnOps : public ::testing::TestWithParam<Device> {
 protected:
  std::mt19937_64 rng{7};
  Device dev() const { return GetParam(); }
};

TEST_P(NnOps, GeluForwardAndBackwardMatchFloat64) {
  for (DType dt : {DType::f32, DType::f64}) {
    for (bool tanh_form : {false, true}) {
      const auto approx = tanh_form ? GeluApproximation::tanh : GeluApproximation::none;
      for (const Shape& shape : kRowShapes) {
        const Tensor x = random_tensor(shape, dt, rng, -12.0, 12.0);
        const Tensor g = random_tensor(shape, dt, rng, -1.0, 1.0);
        poison_outputs(dev(), {static_cast<std::int64_t>(x.nbytes())});
        const Tensor y = host(accelera::gelu(on(x, dev()), approx));
        // Few-ulp accuracy over the whole range, the far negative tail included (relative error). The exact
        // form in float32, u = 2^-24 (one ulp is at most 2u of a normal result): CUDA documents erfcf within
        // 4 ulp of the correctly rounded value, so 9u of erfc; the linearised correction of the rounded
        // argument z leaves |erfc'(z)/erfc(z) + 2z| z u <= u; the correction factor, its product with erfc,
        // 1 - c/2 (which passes c's error on at most 1:1) and the product with x round once each: 14u =
        // 8.3e-7 in all. The CPU kernel measures 5.6 ulp (src/backends/cpu/simd/gelu-inl.h).
        const double f32_rtol = tanh_form ? 1e-6 : 14 * 0x1p-24;
        const Tol tol = dt == DType::f32 ? Tol{f32_rtol, 1e-37} : Tol{1e-13, 1e-300};
        Ref ref_y = ref_unary(x, [&](double v) { return gelu_ref(v, tanh_form); });
        if (tanh_form) {  // exp(-2u) amplifies the rounding of its argument u by |2u| (the condition number)
          const auto xv = values_of(x);
          for (std::size_t i = 0; i < xv.size(); ++i) {
            const double u = 0.7978845608028654 * (xv[i] + 0.044715 * xv[i] * xv[i] * xv[i]);
            ref_y.mag.push_back(std::fabs(ref_y.v[i]) * (1.0 + 2.0 * std::fabs(u)));
          }
        }
        EXPECT_TRUE(matches(y, ref_y, tol))
            << dtype_name(dt) << " " << shape.str() << (tanh_form ? " tanh" : " exact");
        poison_outputs(dev(), {static_cast<std::int64_t>(x.nbytes())});
        const Tensor dx = host(accelera::gelu_backward(on(g, dev()), on(x, dev()), approx));
        Ref ref = ref_binary(g, x, [&](double gv, double xv) { return gv * gelu_grad_ref(xv, tanh_form); });
        ref.mag = ref_unary(g, [](double v) { return std::fabs(v) * 1.2; }).v;  // |grad| * max |GELU'|
        EXPECT_TRUE(matches(dx, ref, tol_for(dt))) << "backward " << dtype_name(dt) << " " << shape.str();
      }
    }
  }
}

TEST_P(NnOps, GeluHandlesSpecialValues) {
  const Tensor x = Tensor::empty(Shape{5}, DType::f32);
  const double values[] = {0.0, kNaN, kInf, -kInf, -30.0};
  for (std::int64_t i = 0; i < 5; ++i) set(x, {i}, values[i]);
  for (auto approx : {GeluApproximation::none, GeluApproximation::tanh}) {
    const Tensor y = host(accelera::gelu(on(x, dev()), approx));
    EXPECT_EQ(get(y, {0}), 0.0);
    EXPECT_TRUE(std::isnan(get(y, {1})));
    EXPECT_EQ(get(y, {2}), kInf);
    EXPECT_EQ(get(y, {3}), 0.0);  // the limit, though the formulas give -inf * 0 there
    EXPECT_LE(std::fabs(get(y, {4})), 1e-30);
    // The derivative's limits: 0 at 0.5, nan at nan, 1 at +inf, 0 at -inf and far below.
    const Tensor ones = accelera::full(Shape{5}, 1.0, DType::f32);
    const Tensor dx = host(accelera::gelu_backward(on(ones, dev()), on(x, dev()), approx));
    EXPECT_EQ(get(dx, {0}), 0.5);
    EXPECT_TRUE(std::isnan(get(dx, {1})));
    EXPECT_EQ(get(dx, {2}), 1.0);
    EXPECT_EQ(get(dx, {3}), 0.0);
    EXPECT_LE(std::fabs(get(dx, {4})), 1e-30);
  }
}

TEST_P(NnOps, BiasGeluAndLinearGeluMatchFloat64) {
  for (DType dt : {DType::f32, DType::f64}) {
    for (auto approx : {GeluApproximation::none, GeluApproximation::tanh}) {
      const bool tanh_form = approx == GeluApproximation::tanh;
      // (rows..., in) x (out, in): batch 1, primes, a single output feature, a long K.
      const std::vector<std::pair<Shape, Shape>> cases = {{Shape{1, 5}, Shape{3, 5}},   {Shape{2, 17, 31}, Shape{13, 31}},
                                                          {Shape{300, 64}, Shape{1, 64}}, {Shape{3, 1000}, Shape{7, 1000}},
                                                          {Shape{129, 7}, Shape{257, 7}}};
      for (const auto& [xs, ws] : cases) {
        const Tensor x = random_tensor(xs, dt, rng);
        const Tensor w = random_tensor(ws, dt, rng);
        const Tensor b = random_tensor(Shape{ws[0]}, dt, rng);
        const std::int64_t rows = x.numel() / xs[xs.ndim() - 1], in = ws[1], out = ws[0];
        Ref ref, ref_nobias;
        std::vector<std::int64_t> od = xs.dims();
        od.back() = out;
        ref.shape = ref_nobias.shape = Shape(od);
        const Tensor x2 = x.reshape(std::vector<std::int64_t>{rows, in});
        for (std::int64_t r = 0; r < rows; ++r) {
          for (std::int64_t o = 0; o < out; ++o) {
            double acc = 0, mag = 0;
            for (std::int64_t i = 0; i < in; ++i) {
              acc += get(x2, {r, i}) * get(w, {o, i});
              mag += std::fabs(get(x2, {r, i}) * get(w, {o, i}));
            }
            const double bias = get(b, {o});
            ref.v.push_back(gelu_ref(acc + bias, tanh_form));
            ref.mag.push_back(mag + std::fabs(bias));
            ref_nobias.v.push_back(gelu_ref(acc, tanh_form));
            ref_nobias.mag.push_back(mag);
          }
        }
        const std::int64_t nbytes = ref.shape.numel() * static_cast<std::int64_t>(x.itemsize());
        poison_outputs(dev(), {nbytes});
        const Tensor got = host(accelera::linear_gelu(on(x, dev()), on(w, dev()), on(b, dev()), approx));
        EXPECT_TRUE(matches(got, ref, tol_for(dt))) << dtype_name(dt) << " " << xs.str() << " x " << ws.str();
        poison_outputs(dev(), {nbytes});
        const Tensor got_nb = host(accelera::linear_gelu(on(x, dev()), on(w, dev()), Tensor(), approx));
        EXPECT_TRUE(matches(got_nb, ref_nobias, tol_for(dt))) << "no bias " << xs.str();
        // bias_gelu on the pre-activation gives the same as the fused op.
        const Tensor pre = accelera::matmul(on(x, dev()), on(w, dev()).T());
        const Tensor bg = host(accelera::bias_gelu(pre, on(b, dev()), approx));
        EXPECT_TRUE(matches(bg, ref, tol_for(dt))) << "bias_gelu " << xs.str();
      }
    }
  }
}

struct LayerNormRef {
  Ref out;
  std::vector<double> mean, rstd;
};

LayerNormRef layer_norm_ref(const Tensor& x, const Tensor& w, const Tensor& b, double eps) {
  const std::int64_t n = x.shape()[x.ndim() - 1];
  const auto xv = values_of(x);
  LayerNormRef r;
  r.out.shape = x.shape();
  for (std::size_t row = 0; row * n < xv.size(); ++row) {
    double mu = 0, var = 0;
    for (std::int64_t k = 0; k < n; ++k) mu += xv[row * n + k];
    mu /= static_cast<double>(n);
    for (std::int64_t k = 0; k < n; ++k) var += (xv[row * n + k] - mu) * (xv[row * n + k] - mu);
    const double rs = 1.0 / std::sqrt(var / static_cast<double>(n) + eps);
    r.mean.push_back(mu);
    r.rstd.push_back(rs);
    for (std::int64_t k = 0; k < n; ++k) {
      const double wk = w.defined() ? get(w, {k}) : 1.0, bk = b.defined() ? get(b, {k}) : 0.0;
      r.out.v.push_back((xv[row * n + k] - mu) * rs * wk + bk);
      r.out.mag.push_back(std::fabs(wk) * 4.0 + std::fabs(bk));  // |xhat| is at most a few units
    }
  }
  return r;
}

// float32 rows of values near 1e20: their squared deviations overflow float, yet the rows normalise (the
// statistics are rescaled) instead of coming back as zeros; PyTorch gives the same normalised rows.
TEST_P(NnOps, LayerNormOfRowsNear1e20Normalises) {
  for (std::int64_t n : {7, 1023, 12289}) {
    Tensor x = random_tensor(Shape{3, n}, DType::f32, rng, -1.0, 1.0);
    for_each_index(x.shape(), [&](const Index& i, std::int64_t) { set(x, i, get(x, i) * 3e20 + 1e20); });
    const auto got = accelera::layer_norm(on(x, dev()), Tensor(), Tensor(), 1e-5);
    const auto ref = layer_norm_ref(x, Tensor(), Tensor(), 1e-5);
    EXPECT_TRUE(matches(host(got.out), ref.out, Tol{1e-4, 1e-5})) << "n " << n;
    const auto rstd = values_of(host(got.rstd));
    for (std::size_t r = 0; r < rstd.size(); ++r) EXPECT_NEAR(rstd[r] / ref.rstd[r], 1.0, 1e-4) << r;
  }
}

TEST_P(NnOps, LayerNormForwardMatchesFloat64) {
  for (DType dt : {DType::f32, DType::f64}) {
    for (const Shape& shape : kRowShapes) {
      const std::int64_t n = shape[shape.ndim() - 1];
      for (int params = 0; params < 4; ++params) {
        const Tensor x = random_tensor(shape, dt, rng, -3.0, 5.0);  // a non-zero mean
        const Tensor w = params & 1 ? random_tensor(Shape{n}, dt, rng, 0.5, 2.0) : Tensor();
        const Tensor b = params & 2 ? random_tensor(Shape{n}, dt, rng) : Tensor();
        poison_outputs(dev(), {static_cast<std::int64_t>(x.nbytes()), x.numel() / n * 8});
        const auto got = accelera::layer_norm(on(x, dev()), w.defined() ? on(w, dev()) : w,
                                              b.defined() ? on(b, dev()) : b, 1e-5);
        const auto ref = layer_norm_ref(x, w, b, 1e-5);
        EXPECT_TRUE(matches(host(got.out), ref.out, combined_tol(dt))) << dtype_name(dt) << " " << shape.str();
        const Tensor mean = host(got.mean), rstd = host(got.rstd);
        const auto mv = values_of(mean), rv = values_of(rstd);
        ASSERT_EQ(mv.size(), ref.mean.size());
        for (std::size_t i = 0; i < mv.size(); ++i) {
          EXPECT_NEAR(mv[i], ref.mean[i], combined_tol(dt).rtol * 5) << i;
          EXPECT_NEAR(rv[i], ref.rstd[i], combined_tol(dt).rtol * std::fabs(ref.rstd[i]) * 2) << i;
        }
      }
    }
  }
}

TEST_P(NnOps, LayerNormBackwardMatchesFloat64) {
  for (DType dt : {DType::f32, DType::f64}) {
    for (const Shape& shape : {Shape{7, 13}, Shape{1, 1, 1023}, Shape{257, 33}, Shape{1}}) {
      const std::int64_t n = shape[shape.ndim() - 1], rows = shape.numel() / n;
      const Tensor x = random_tensor(shape, dt, rng, -2.0, 3.0);
      const Tensor w = random_tensor(Shape{n}, dt, rng, 0.5, 2.0);
      const Tensor b = random_tensor(Shape{n}, dt, rng);
      const Tensor g = random_tensor(shape, dt, rng);
      const auto fwd = accelera::layer_norm(on(x, dev()), on(w, dev()), on(b, dev()), 1e-5);
      poison_outputs(dev(), {static_cast<std::int64_t>(x.nbytes()), n * 8});
      const auto got = accelera::layer_norm_backward(on(g, dev()), on(x, dev()), on(w, dev()), on(b, dev()), fwd.mean,
                                                     fwd.rstd);
      const auto ref = layer_norm_ref(x, Tensor(), Tensor(), 1e-5);  // xhat
      const auto xh = ref.out.v;
      const auto gv = values_of(g);
      Ref rdx{shape, {}, {}}, rdw{Shape{n}, std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)},
          rdb{Shape{n}, std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
      for (std::int64_t r = 0; r < rows; ++r) {
        double a = 0, c = 0, scale = 0;
        for (std::int64_t k = 0; k < n; ++k) {
          const double gw = gv[r * n + k] * get(w, {k});
          a += gw / static_cast<double>(n);
          c += gw * xh[r * n + k] / static_cast<double>(n);
          scale += std::fabs(gw) / static_cast<double>(n);
        }
        for (std::int64_t k = 0; k < n; ++k) {
          const double gw = gv[r * n + k] * get(w, {k}), rs = ref.rstd[static_cast<std::size_t>(r)];
          rdx.v.push_back(rs * (gw - a - xh[r * n + k] * c));
          rdx.mag.push_back(rs * (std::fabs(gw) + 5 * scale));
          rdw.v[k] += gv[r * n + k] * xh[r * n + k];
          rdw.mag[k] += std::fabs(gv[r * n + k] * xh[r * n + k]) + 1;
          rdb.v[k] += gv[r * n + k];
          rdb.mag[k] += std::fabs(gv[r * n + k]) + 1;
        }
      }
      const Tol tol = combined_tol(dt);
      EXPECT_TRUE(matches(host(got.dx), rdx, tol)) << "dx " << dtype_name(dt) << " " << shape.str();
      EXPECT_TRUE(matches(host(got.dweight), rdw, tol)) << "dweight " << shape.str();
      EXPECT_TRUE(matches(host(got.dbias), rdb, tol)) << "dbias " << shape.str();
    }
  }
}

TEST_P(NnOps, SoftmaxAndLogSoftmaxMatchFloat64) {
  for (DType dt : {DType::f32, DType::f64}) {
    for (const Shape& shape : kRowShapes) {
      for (std::int64_t axis : {std::int64_t{-1}, std::int64_t{0}}) {
        const Tensor x = random_tensor(shape, dt, rng, -30.0, 30.0);
        const Tensor g = random_tensor(shape, dt, rng);
        const std::int64_t ax = axis < 0 ? shape.ndim() - 1 : axis;
        // Reference along `ax` with plain index arithmetic: one pass per line of the axis.
        const auto xv = values_of(x), gv = values_of(g);
        const accelera::Strides st = shape.contiguous_strides();
        const std::int64_t len = shape[ax], step = st[static_cast<std::size_t>(ax)];
        Ref sm{shape, std::vector<double>(xv.size()), {}}, lsm = sm, dsm = sm, dlsm = sm;
        for (Ref* r : {&lsm, &dsm, &dlsm}) r->mag.assign(xv.size(), 0.0);
        std::vector<std::int64_t> line_dims = shape.dims();
        line_dims[static_cast<std::size_t>(ax)] = 1;
        for_each_index(Shape(line_dims), [&](const Index& idx, std::int64_t) {
          std::int64_t base = 0;
          for (std::size_t i = 0; i < idx.size(); ++i) base += idx[i] * st[i];
          const auto at = [&](std::int64_t j) { return static_cast<std::size_t>(base + j * step); };
          double m = -kInf, s = 0, gy = 0, gs = 0;
          for (std::int64_t j = 0; j < len; ++j) m = std::max(m, xv[at(j)]);
          for (std::int64_t j = 0; j < len; ++j) s += std::exp(xv[at(j)] - m);
          for (std::int64_t j = 0; j < len; ++j) {
            gy += gv[at(j)] * std::exp(xv[at(j)] - m) / s;
            gs += gv[at(j)];
          }
          for (std::int64_t j = 0; j < len; ++j) {
            const std::size_t e = at(j);
            const double y = std::exp(xv[e] - m) / s;
            sm.v[e] = y;
            lsm.v[e] = xv[e] - m - std::log(s);
            lsm.mag[e] = std::fabs(lsm.v[e]) + 1.0;
            dsm.v[e] = y * (gv[e] - gy);
            dsm.mag[e] = y * 2.0;
            dlsm.v[e] = gv[e] - y * gs;
            dlsm.mag[e] = 1.0 + y * std::fabs(gs);
          }
        });
        const Tol tol = combined_tol(dt);
        const std::int64_t nb = static_cast<std::int64_t>(x.nbytes());
        poison_outputs(dev(), {nb});
        const Tensor y = accelera::softmax(on(x, dev()), axis);
        EXPECT_TRUE(matches(host(y), sm, tol)) << "softmax " << dtype_name(dt) << " " << shape.str() << " " << axis;
        poison_outputs(dev(), {nb});
        const Tensor ly = accelera::log_softmax(on(x, dev()), axis);
        EXPECT_TRUE(matches(host(ly), lsm, tol)) << "log_softmax " << shape.str() << " " << axis;
        poison_outputs(dev(), {nb});
        EXPECT_TRUE(matches(host(accelera::softmax_backward(on(g, dev()), y, axis)), dsm, tol))
            << "softmax_backward " << shape.str() << " " << axis;
        poison_outputs(dev(), {nb});
        EXPECT_TRUE(matches(host(accelera::log_softmax_backward(on(g, dev()), ly, axis)), dlsm, tol))
            << "log_softmax_backward " << shape.str() << " " << axis;
      }
    }
  }
}

TEST_P(NnOps, EmptyInputsGiveEmptyResults) {
  const Tensor x = on(Tensor::empty(Shape{0, 5}, DType::f32), dev());
  EXPECT_EQ(accelera::gelu(x).shape(), (Shape{0, 5}));
  EXPECT_EQ(accelera::softmax(x).shape(), (Shape{0, 5}));
  EXPECT_EQ(accelera::layer_norm(x, Tensor(), Tensor()).mean.shape(), (Shape{0}));
  const Tensor w = on(random_tensor(Shape{3, 5}, DType::f32, rng), dev());
  EXPECT_EQ(accelera::linear_gelu(x, w, Tensor()).shape(), (Shape{0, 3}));
}

INSTANTIATE_TEST_SUITE_P(AllDevices, NnOps, ::testing::ValuesIn(all_devices()), device_name);

}  // namespace
}  // namespace acc_test
