// Rows of the op test table for the sliding-window ops im2col, col2im, max_pool, max_pool_backward, conv and
// conv_backward
// (Note [Op test table] in op_table.hpp). The float64 references index the image directly; col2im's and
// max_pool_backward's references are checked as the vector-Jacobian products of the forward references.
#include <algorithm>
#include <cmath>
#include <limits>

#include "accelera/nn_ops.hpp"
#include "op_table.hpp"

namespace acc_test::op_table {

namespace {

using accelera::ConvWindow;
using Floats = std::vector<double>;

// An image shape and a window over its spatial axes.
struct WindowCase {
  Shape image;
  ConvWindow window;
  std::string what;
};

// 1-D, 2-D and 3-D windows: sizes 1, primes, strides, padding beyond the kernel's half, dilation, a window
// as large as the padded image, and one N or C of 0.
std::vector<WindowCase> window_cases() {
  return {
      {Shape{1, 1, 1}, {{1}, {}, {}, {}}, "1-D 1x1"},
      {Shape{2, 3, 13}, {{3}, {2}, {1}, {}}, "1-D stride 2 pad 1"},
      {Shape{1, 1, 1, 1}, {{1, 1}, {}, {}, {}}, "2-D 1x1"},
      {Shape{2, 3, 7, 5}, {{3, 3}, {1}, {1}, {}}, "2-D 3x3 same"},
      {Shape{3, 2, 11, 13}, {{5, 3}, {2, 3}, {2, 0}, {1, 2}}, "2-D 5x3 strided dilated"},
      {Shape{1, 5, 6, 6}, {{2, 2}, {2}, {}, {}}, "2-D 2x2 pool"},
      {Shape{2, 1, 4, 3}, {{3, 3}, {1}, {3}, {}}, "2-D padding beyond the kernel"},
      {Shape{1, 2, 5, 5}, {{7, 7}, {1}, {1}, {}}, "2-D window as large as the padded image"},
      {Shape{0, 3, 5, 5}, {{3, 3}, {}, {}, {}}, "2-D empty batch"},
      {Shape{2, 0, 5, 5}, {{3, 3}, {}, {}, {}}, "2-D no channels"},
      {Shape{2, 2, 5, 4, 3}, {{3, 2, 2}, {1, 2, 1}, {1, 0, 1}, {}}, "3-D"},
      {Shape{1, 3, 7, 3, 5}, {{2, 3, 3}, {2}, {1}, {2, 1, 1}}, "3-D strided dilated"},
  };
}

// Window parameters per axis, defaults filled in.
struct Axes {
  std::vector<std::int64_t> in, out, kernel, stride, pad, dilation;
};

std::vector<std::int64_t> filled(const std::vector<std::int64_t>& v, std::size_t n, std::int64_t fallback) {
  if (v.empty()) return std::vector<std::int64_t>(n, fallback);
  if (v.size() == 1) return std::vector<std::int64_t>(n, v[0]);
  return v;
}

Axes axes_of(const WindowCase& c) {
  const std::size_t n = c.window.kernel.size();
  Axes a{{}, {}, c.window.kernel, filled(c.window.stride, n, 1), filled(c.window.padding, n, 0),
         filled(c.window.dilation, n, 1)};
  for (std::size_t i = 0; i < n; ++i) {
    a.in.push_back(c.image[static_cast<std::int64_t>(i) + 2]);
    a.out.push_back((a.in[i] + 2 * a.pad[i] - a.dilation[i] * (a.kernel[i] - 1) - 1) / a.stride[i] + 1);
  }
  return a;
}

std::int64_t product(const std::vector<std::int64_t>& v) {
  std::int64_t p = 1;
  for (auto x : v) p *= x;
  return p;
}

// Row-major multi-index of `flat` in `extents`.
std::vector<std::int64_t> unflatten(std::int64_t flat, const std::vector<std::int64_t>& extents) {
  std::vector<std::int64_t> idx(extents.size());
  for (std::size_t i = extents.size(); i-- > 0;) {
    idx[i] = flat % extents[i];
    flat /= extents[i];
  }
  return idx;
}

// For every patch entry, the flat image index it reads (-1: the padding). The patches are (rows, cols).
std::vector<std::int64_t> patch_sources(const WindowCase& c) {
  const Axes a = axes_of(c);
  const std::int64_t batch = c.image[0], channels = c.image[1];
  const std::int64_t rows = batch * product(a.out), cols = channels * product(a.kernel);
  std::vector<std::int64_t> src;
  src.reserve(static_cast<std::size_t>(rows * cols));
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t n = r / product(a.out);
    const auto o = unflatten(r % product(a.out), a.out);
    for (std::int64_t k = 0; k < cols; ++k) {
      const std::int64_t ch = k / product(a.kernel);
      const auto kk = unflatten(k % product(a.kernel), a.kernel);
      std::int64_t flat = n * channels + ch;
      bool inside = true;
      for (std::size_t i = 0; i < a.in.size(); ++i) {
        const std::int64_t at = o[i] * a.stride[i] - a.pad[i] + kk[i] * a.dilation[i];
        inside = inside && at >= 0 && at < a.in[i];
        flat = flat * a.in[i] + at;
      }
      src.push_back(inside ? flat : -1);
    }
  }
  return src;
}

Shape patch_shape(const WindowCase& c) {
  const Axes a = axes_of(c);
  return Shape{c.image[0] * product(a.out), c.image[1] * product(a.kernel)};
}

Floats im2col_ref(const Floats& x, const std::vector<std::int64_t>& sources, double pad_value) {
  Floats p;
  p.reserve(sources.size());
  for (auto s : sources) p.push_back(s < 0 ? pad_value : x[static_cast<std::size_t>(s)]);
  return p;
}

Floats col2im_ref(const Floats& patches, const std::vector<std::int64_t>& sources, std::size_t image_size) {
  Floats image(image_size, 0.0);
  for (std::size_t e = 0; e < sources.size(); ++e) {
    if (sources[e] >= 0) image[static_cast<std::size_t>(sources[e])] += patches[e];
  }
  return image;
}

constexpr View kWindowViews[] = {View::contiguous, View::transposed, View::step2, View::offset};

Row im2col_row() {
  return {"im2col", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            std::size_t which = 0;
            for (const WindowCase& wc : window_cases()) {
              for (const double pad_value : {0.0, -std::numeric_limits<double>::infinity()}) {
                const View v = kWindowViews[which++ % std::size(kWindowViews)];
                Input x = make_input(wc.image, dt, v, rng);
                const Floats ref = im2col_ref(values_of(x.host()), patch_sources(wc), pad_value);
                cases.push_back({wc.image.str() + " " + wc.what + " " + view_name(v) + " pad " + std::to_string(pad_value),
                                 {x},
                                 [w = wc.window, pad_value](const std::vector<Tensor>& t, const Device&) {
                                   return std::vector<Tensor>{accelera::im2col(t[0], w, pad_value)};
                                 },
                                 {Ref{patch_shape(wc), ref, {}}},
                                 tol_for(dt)});
              }
            }
            return cases;
          }};
}

Row col2im_row() {
  return {"col2im", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            std::size_t which = 0;
            for (const WindowCase& wc : window_cases()) {
              const View v = kWindowViews[which++ % std::size(kWindowViews)];
              const Shape ps = patch_shape(wc);
              Input p = make_input(ps, dt, v, rng);
              const auto sources = patch_sources(wc);
              const Floats pv = values_of(p.host());
              const auto image_size = static_cast<std::size_t>(wc.image.numel());
              const Floats ref = col2im_ref(pv, sources, image_size);
              Floats mag(image_size, 0.0);
              for (std::size_t e = 0; e < sources.size(); ++e) {
                if (sources[e] >= 0) mag[static_cast<std::size_t>(sources[e])] += std::fabs(pv[e]);
              }
              // The reference is the adjoint of im2col's: check it against finite differences.
              Floats x0(image_size);
              for (auto& e : x0) e = std::uniform_real_distribution<double>(-1.0, 1.0)(rng);
              if (!x0.empty()) {
                const std::string error = check_vjp([&](const Floats& x) { return im2col_ref(x, sources, 0.0); }, x0,
                                                    pv, ref, rng);
                EXPECT_TRUE(error.empty()) << "col2im reference " << wc.what << ": " << error;
              }
              cases.push_back({ps.str() + " " + wc.what + " " + view_name(v),
                               {p},
                               [w = wc.window, image = wc.image](const std::vector<Tensor>& t, const Device&) {
                                 return std::vector<Tensor>{accelera::col2im(t[0], image, w)};
                               },
                               {Ref{wc.image, ref, mag}},
                               accumulated_tol(dt)});
            }
            return cases;
          }};
}


// ---- max pooling --------------------------------------------------------------------------------------

Shape pooled_shape(const WindowCase& c) {
  const Axes a = axes_of(c);
  std::vector<std::int64_t> dims{c.image[0], c.image[1]};
  dims.insert(dims.end(), a.out.begin(), a.out.end());
  return Shape(dims);
}

// The window of each pooled element as flat image indices (-1: the padding), from the patch sources of the
// same window with one channel per image plane.
std::vector<std::vector<std::int64_t>> pool_windows(const WindowCase& c) {
  WindowCase planes = c;
  std::vector<std::int64_t> dims = c.image.dims();
  dims[0] *= dims[1];
  dims[1] = 1;
  planes.image = Shape(dims);
  const auto sources = patch_sources(planes);
  const auto taps = static_cast<std::size_t>(product(planes.window.kernel));
  std::vector<std::vector<std::int64_t>> windows(taps == 0 ? 0 : sources.size() / taps);
  for (std::size_t w = 0; w < windows.size(); ++w) windows[w].assign(sources.begin() + w * taps, sources.begin() + (w + 1) * taps);
  return windows;
}

// values and in-plane indices of the first maximum of each window (a NaN wins; -inf and -1 for a window
// entirely in the padding).
std::pair<Floats, Floats> max_pool_ref(const Floats& x, const std::vector<std::vector<std::int64_t>>& windows,
                                       std::int64_t plane) {
  Floats values, indices;
  for (const auto& w : windows) {
    double best = -std::numeric_limits<double>::infinity();
    std::int64_t at = -1;
    for (auto s : w) {
      if (s < 0) continue;
      const double v = x[static_cast<std::size_t>(s)];
      if (at < 0 || v > best || (std::isnan(v) && !std::isnan(best))) best = v, at = s;
    }
    values.push_back(best);
    indices.push_back(at < 0 ? -1.0 : static_cast<double>(at % plane));
  }
  return {values, indices};
}

std::int64_t plane_of(const Shape& image) {
  std::int64_t plane = 1;
  for (std::int64_t a = 2; a < image.ndim(); ++a) plane *= image[a];
  return plane;
}

Row max_pool_row() {
  return {"max_pool", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            std::size_t which = 0;
            for (const WindowCase& wc : window_cases()) {
              const View v = kWindowViews[which++ % std::size(kWindowViews)];
              // Whole numbers from a narrow range, so that ties (the first one wins) are common in every dtype.
              Input x = make_input(wc.image, dt, v, rng, -4.0, 4.0);
              const Tensor host = x.host();  // a view of the base: rounding through it rounds the input
              Floats xv = values_of(host);
              for_each_index(host.shape(), [&](const Index& i, std::int64_t lin) {
                auto& e = xv[static_cast<std::size_t>(lin)];
                e = std::round(e);
                set(host, i, e);
              });
              const auto [values, indices] = max_pool_ref(xv, pool_windows(wc), plane_of(wc.image));
              const Shape out = pooled_shape(wc);
              cases.push_back({wc.image.str() + " " + wc.what + " " + view_name(v),
                               {x},
                               [w = wc.window](const std::vector<Tensor>& t, const Device&) {
                                 auto r = accelera::max_pool(t[0], w);
                                 return std::vector<Tensor>{r.values, r.indices};
                               },
                               {Ref{out, values, {}}, Ref{out, indices, {}}},
                               Tol{0, 0}});
            }
            return cases;
          }};
}

Row max_pool_backward_row() {
  return {"max_pool_backward", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            std::size_t which = 0;
            for (const WindowCase& wc : window_cases()) {
              const View v = kWindowViews[which++ % std::size(kWindowViews)];
              const Shape out = pooled_shape(wc);
              const auto windows = pool_windows(wc);
              const std::int64_t plane = plane_of(wc.image);
              const auto image_size = static_cast<std::size_t>(wc.image.numel());
              // Indices of the maxima of a random float64 image (no ties), then some replaced by -1 or by a
              // random position of the plane, which may lie outside the window: those contribute nothing.
              Floats x0(image_size);
              for (auto& e : x0) e = std::uniform_real_distribution<double>(-1.0, 1.0)(rng);
              const auto [values0, clean] = max_pool_ref(x0, windows, plane);
              Input g = make_input(out, dt, v, rng);
              const Floats gv = values_of(g.host());
              // The reference with clean indices is the VJP of the forward's values at x0.
              const std::int64_t positions = plane_of(out);
              auto scatter = [&](const Floats& idx) {
                Floats image(image_size, 0.0), mag(image_size, 0.0);
                for (std::size_t e = 0; e < windows.size(); ++e) {
                  // Window entries are flat image indices; the index is a position within this plane.
                  const std::int64_t at = static_cast<std::int64_t>(e) / positions * plane + static_cast<std::int64_t>(idx[e]);
                  if (idx[e] < 0 || std::find(windows[e].begin(), windows[e].end(), at) == windows[e].end()) continue;
                  image[static_cast<std::size_t>(at)] += gv[e];
                  mag[static_cast<std::size_t>(at)] += std::fabs(gv[e]);
                }
                return std::make_pair(image, mag);
              };
              if (!x0.empty()) {
                const std::string error = check_vjp(
                    [&](const Floats& x) {
                      Floats vals = max_pool_ref(x, windows, plane).first;
                      for (auto& e : vals) e = std::isinf(e) ? 0.0 : e;  // windows in the padding are constant
                      return vals;
                    },
                    x0, gv, scatter(clean).first, rng);
                EXPECT_TRUE(error.empty()) << "max_pool_backward reference " << wc.what << ": " << error;
              }
              Floats idx = clean;
              for (auto& e : idx) {
                const auto roll = std::uniform_int_distribution<int>(0, 9)(rng);
                if (roll == 0) e = -1.0;
                if (roll == 1) e = static_cast<double>(std::uniform_int_distribution<std::int64_t>(0, plane - 1)(rng));
              }
              const Tensor indices = Tensor::empty(out, DType::i64, Device::cpu());
              for_each_index(out, [&](const Index& i, std::int64_t lin) {
                set_int(indices, i, static_cast<std::int64_t>(idx[static_cast<std::size_t>(lin)]));
              });
              const auto [ref, mag] = scatter(idx);
              cases.push_back({out.str() + " " + wc.what + " " + view_name(v),
                               {g, Input{indices}},
                               [w = wc.window, image = wc.image](const std::vector<Tensor>& t, const Device&) {
                                 return std::vector<Tensor>{accelera::max_pool_backward(t[0], t[1], image, w)};
                               },
                               {Ref{wc.image, ref, mag}},
                               accumulated_tol(dt)});
            }
            return cases;
          }};
}

// ---- convolution ---------------------------------------------------------------------------------------

// A convolution of a window case: C_out output channels, and the patch sources that tie every output to
// the inputs it reads (the reference is the patch matrix times the weight, in float64).
struct ConvCase {
  WindowCase wc;
  std::int64_t out_channels;
  std::vector<std::int64_t> sources;  // (N * P, C * K) flat image indices, -1 in the padding
  std::int64_t positions, cols;

  explicit ConvCase(const WindowCase& c, std::int64_t c_out)
      : wc(c), out_channels(c_out), sources(patch_sources(c)), positions(product(axes_of(c).out)),
        cols(c.image[1] * product(c.window.kernel)) {}
  Shape weight_shape() const {
    std::vector<std::int64_t> dims{out_channels, wc.image[1]};
    dims.insert(dims.end(), wc.window.kernel.begin(), wc.window.kernel.end());
    return Shape(dims);
  }
  Shape out_shape() const {
    std::vector<std::int64_t> dims{wc.image[0], out_channels};
    const Axes a = axes_of(wc);
    dims.insert(dims.end(), a.out.begin(), a.out.end());
    return Shape(dims);
  }
  // The image value read by patch entry (row, k), 0 in the padding.
  double read(const Floats& x, std::int64_t row, std::int64_t k) const {
    const auto s = sources[static_cast<std::size_t>(row * cols + k)];
    return s < 0 ? 0.0 : x[static_cast<std::size_t>(s)];
  }
  // y (N, C_out, P) and its magnitude sum |w| |x| + |b|.
  std::pair<Floats, Floats> forward(const Floats& x, const Floats& w, const Floats& b) const {
    const std::int64_t n_images = wc.image[0];
    Floats y, mag;
    for (std::int64_t n = 0; n < n_images; ++n) {
      for (std::int64_t o = 0; o < out_channels; ++o) {
        for (std::int64_t p = 0; p < positions; ++p) {
          double acc = b[static_cast<std::size_t>(o)], m = std::fabs(acc);
          for (std::int64_t k = 0; k < cols; ++k) {
            const double xv = read(x, n * positions + p, k), wv = w[static_cast<std::size_t>(o * cols + k)];
            acc += wv * xv;
            m += std::fabs(wv * xv);
          }
          y.push_back(acc);
          mag.push_back(m);
        }
      }
    }
    return {y, mag};
  }
  struct Grads {
    Floats dx, dw, db, dx_mag, dw_mag, db_mag;
  };
  Grads backward(const Floats& g, const Floats& x, const Floats& w) const {
    Grads r{Floats(static_cast<std::size_t>(wc.image.numel()), 0.0), Floats(w.size(), 0.0),
            Floats(static_cast<std::size_t>(out_channels), 0.0), {}, {}, {}};
    r.dx_mag = r.dx;
    r.dw_mag = r.dw;
    r.db_mag = r.db;
    for (std::int64_t n = 0; n < wc.image[0]; ++n) {
      for (std::int64_t o = 0; o < out_channels; ++o) {
        for (std::int64_t p = 0; p < positions; ++p) {
          const double gv = g[static_cast<std::size_t>((n * out_channels + o) * positions + p)];
          r.db[static_cast<std::size_t>(o)] += gv;
          r.db_mag[static_cast<std::size_t>(o)] += std::fabs(gv);
          const std::int64_t row = n * positions + p;
          for (std::int64_t k = 0; k < cols; ++k) {
            const auto wk = static_cast<std::size_t>(o * cols + k);
            r.dw[wk] += gv * read(x, row, k);
            r.dw_mag[wk] += std::fabs(gv * read(x, row, k));
            const auto s = sources[static_cast<std::size_t>(row * cols + k)];
            if (s < 0) continue;
            r.dx[static_cast<std::size_t>(s)] += gv * w[wk];
            r.dx_mag[static_cast<std::size_t>(s)] += std::fabs(gv * w[wk]);
          }
        }
      }
    }
    return r;
  }
};

// Every window case, with 1 output channel for the single-pixel cases and 3 or 5 otherwise.
std::vector<ConvCase> conv_cases() {
  std::vector<ConvCase> cases;
  std::int64_t which = 0;
  for (const WindowCase& wc : window_cases()) cases.emplace_back(wc, wc.image.numel() == 1 ? 1 : (which++ % 2 ? 5 : 3));
  return cases;
}

Row conv_row() {
  return {"conv", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            std::size_t which = 0;
            for (const ConvCase& cc : conv_cases()) {
              const View v = kWindowViews[which++ % std::size(kWindowViews)];
              Input x = make_input(cc.wc.image, dt, v, rng);
              Input w = contiguous_input(cc.weight_shape(), dt, rng);
              Input b = contiguous_input(Shape{cc.out_channels}, dt, rng);
              const auto [ref, mag] = cc.forward(values_of(x.host()), values_of(w.host()), values_of(b.host()));
              cases.push_back({cc.wc.image.str() + " " + cc.wc.what + " " + view_name(v),
                               {x, w, b},
                               [win = cc.wc.window](const std::vector<Tensor>& t, const Device&) {
                                 return std::vector<Tensor>{accelera::conv(t[0], t[1], t[2], win)};
                               },
                               {Ref{cc.out_shape(), ref, mag}},
                               accumulated_tol(dt)});
            }
            return cases;
          }};
}

Row conv_backward_row() {
  return {"conv_backward", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            std::size_t which = 0;
            for (const ConvCase& cc : conv_cases()) {
              const View v = kWindowViews[which++ % std::size(kWindowViews)];
              Input g = make_input(cc.out_shape(), dt, v, rng);
              Input x = contiguous_input(cc.wc.image, dt, rng);
              Input w = contiguous_input(cc.weight_shape(), dt, rng);
              const Floats gv = values_of(g.host()), xv = values_of(x.host()), wv = values_of(w.host());
              const auto r = cc.backward(gv, xv, wv);
              // The reference is the VJP of the forward reference, in x and in the weight.
              const Floats zero_bias(static_cast<std::size_t>(cc.out_channels), 0.0);
              if (!xv.empty() && !gv.empty()) {
                const std::string ex = check_vjp([&](const Floats& xs) { return cc.forward(xs, wv, zero_bias).first; },
                                                 xv, gv, r.dx, rng);
                EXPECT_TRUE(ex.empty()) << "conv_backward input reference " << cc.wc.what << ": " << ex;
              }
              if (!wv.empty() && !gv.empty()) {
                const std::string ew = check_vjp([&](const Floats& ws) { return cc.forward(xv, ws, zero_bias).first; },
                                                 wv, gv, r.dw, rng);
                EXPECT_TRUE(ew.empty()) << "conv_backward weight reference " << cc.wc.what << ": " << ew;
              }
              // Every other case asks for no input gradient (the first layer's data): it must stay undefined.
              const bool input_grad = which % 2 == 0;
              std::vector<Ref> expected;
              if (input_grad) expected.push_back(Ref{cc.wc.image, r.dx, r.dx_mag});
              expected.push_back(Ref{cc.weight_shape(), r.dw, r.dw_mag});
              expected.push_back(Ref{Shape{cc.out_channels}, r.db, r.db_mag});
              cases.push_back({cc.out_shape().str() + " " + cc.wc.what + " " + view_name(v) +
                                   (input_grad ? "" : " (no input gradient)"),
                               {g, x, w},
                               [win = cc.wc.window, input_grad](const std::vector<Tensor>& t, const Device&) {
                                 const auto grads = accelera::conv_backward(t[0], t[1], t[2], win, input_grad, true);
                                 EXPECT_EQ(grads.input.defined(), input_grad);
                                 std::vector<Tensor> out;
                                 if (input_grad) out.push_back(grads.input);
                                 out.push_back(grads.weight);
                                 out.push_back(grads.bias);
                                 return out;
                               },
                               std::move(expected),
                               accumulated_tol(dt)});
            }
            return cases;
          }};
}

}  // namespace

std::vector<Row> window_rows() {
  return {im2col_row(), col2im_row(), max_pool_row(), max_pool_backward_row(), conv_row(), conv_backward_row()};
}

}  // namespace acc_test::op_table
