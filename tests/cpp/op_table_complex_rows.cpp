// Rows of the op test table for the complex element-wise kernels (complex_unary, complex_binary; Note
// [Complex element-wise functions]) and the Fourier transforms (fft; Note [Fourier transforms]). Inputs are float32/float64 tensors with a trailing axis of two, seen
// as complex through view_as_complex and laid out as complex views (transposed, stepped, reversed,
// broadcast); references are std::complex<long double> of the same parts, and each part's error is
// measured against the magnitude of its complex value.
#include <complex>
#include <functional>

#include "accelera/fft.hpp"
#include "accelera/ops.hpp"
#include "op_table.hpp"

namespace acc_test::op_table {

namespace {

using Z = std::complex<long double>;

std::string label(const Shape& s, View v, const std::string& fn) {
  return fmt::format("{} {} {}", fn, s.str(), view_name(v));
}

enum class Out { complex, real, boolean };

struct UnaryFunction {
  const char* name;
  std::function<Tensor(const Tensor&)> op;
  std::function<Z(Z)> ref;  // complex results; `real` ones take ref(z).real()
  Out out;
  double scale;  // inputs drawn from the square [-scale, scale]^2
};

// log1p and expm1 from their definitions in long double: no cancellation at the 80-bit precision for the
// |z| >= 1e-4 sampled here beyond what a float64 reference needs.
std::vector<UnaryFunction> unary_functions() {
  return {
      {"exp", accelera::exp, [](Z z) { return std::exp(z); }, Out::complex, 2},
      {"log", accelera::log, [](Z z) { return std::log(z); }, Out::complex, 2},
      {"sqrt", accelera::sqrt, [](Z z) { return std::sqrt(z); }, Out::complex, 2},
      {"sin", accelera::sin, [](Z z) { return std::sin(z); }, Out::complex, 2},
      {"cos", accelera::cos, [](Z z) { return std::cos(z); }, Out::complex, 2},
      {"tan", accelera::tan, [](Z z) { return std::tan(z); }, Out::complex, 1},
      {"sinh", accelera::sinh, [](Z z) { return std::sinh(z); }, Out::complex, 2},
      {"cosh", accelera::cosh, [](Z z) { return std::cosh(z); }, Out::complex, 2},
      {"tanh", accelera::tanh, [](Z z) { return std::tanh(z); }, Out::complex, 1},
      {"asin", accelera::asin, [](Z z) { return std::asin(z); }, Out::complex, 2},
      {"acos", accelera::acos, [](Z z) { return std::acos(z); }, Out::complex, 2},
      {"atan", accelera::atan, [](Z z) { return std::atan(z); }, Out::complex, 0.9},
      {"asinh", accelera::asinh, [](Z z) { return std::asinh(z); }, Out::complex, 2},
      {"acosh", accelera::acosh, [](Z z) { return std::acosh(z); }, Out::complex, 2},
      {"atanh", accelera::atanh, [](Z z) { return std::atanh(z); }, Out::complex, 0.9},
      {"expm1", accelera::expm1, [](Z z) { return std::exp(z) - 1.0L; }, Out::complex, 2},
      {"log1p", accelera::log1p, [](Z z) { return std::log(1.0L + z); }, Out::complex, 2},
      {"log2", accelera::log2, [](Z z) { return std::log(z) / std::log(2.0L); }, Out::complex, 2},
      {"log10", accelera::log10, [](Z z) { return std::log10(z); }, Out::complex, 2},
      {"reciprocal", accelera::reciprocal, [](Z z) { return 1.0L / z; }, Out::complex, 2},
      {"square", accelera::square, [](Z z) { return z * z; }, Out::complex, 2},
      {"sign", accelera::sign, [](Z z) { return z / std::abs(z); }, Out::complex, 2},
      {"abs", accelera::abs, [](Z z) { return Z(std::abs(z)); }, Out::real, 2},
      {"isfinite", accelera::isfinite, [](Z) { return Z(1); }, Out::boolean, 2},
      {"isnan", accelera::isnan, [](Z) { return Z(0); }, Out::boolean, 2},
      {"isinf", accelera::isinf, [](Z) { return Z(0); }, Out::boolean, 2},
  };
}

struct BinaryFunction {
  const char* name;
  std::function<Tensor(const Tensor&, const Tensor&)> op;
  std::function<Z(Z, Z)> ref;
  Out out;
};

std::vector<BinaryFunction> binary_functions() {
  return {
      {"multiply", accelera::multiply, [](Z a, Z b) { return a * b; }, Out::complex},
      {"divide", accelera::divide, [](Z a, Z b) { return a / b; }, Out::complex},
      {"pow", accelera::pow, [](Z a, Z b) { return std::pow(a, b); }, Out::complex},
      {"equal", accelera::equal, [](Z a, Z b) { return Z(a == b); }, Out::boolean},
      {"not_equal", accelera::not_equal, [](Z a, Z b) { return Z(a != b); }, Out::boolean},
  };
}

// A complex view of a random contiguous base of real pairs: the base is the input, the view applies on
// the device.
Input complex_input(const Shape& shape, DType complex, View view, std::mt19937_64& rng, double scale) {
  std::vector<std::int64_t> dims = shape.dims();
  dims.push_back(2);
  Input in{contiguous_input(Shape(dims), accelera::real_dtype(complex), rng, -scale, scale).base};
  in.view = [view](const Tensor& base) {
    const Tensor z = base.view_as_complex();
    Tensor v = z;
    switch (view) {
      case View::transposed: v = z.T(); break;
      case View::step2: v = z.ndim() > 0 ? z.slice(0, 0, z.dim(0), 2) : z; break;
      case View::negstep: v = z.ndim() > 0 ? z.slice(0, z.dim(0) - 1, -z.dim(0) - 1, -1) : z; break;
      case View::offset: v = z.ndim() > 0 && z.dim(0) > 1 ? z.slice(0, 1, z.dim(0)) : z; break;
      case View::broadcast: v = z.ndim() > 0 && z.dim(0) > 0 ? z.slice(0, 0, 1).broadcast_to(z.shape()) : z; break;
      case View::contiguous: break;
    }
    return v.view_as_real();
  };
  return in;
}

// The values of a real-pairs tensor as complex numbers, in row-major order of the complex shape.
std::vector<Z> complex_values(const Tensor& pairs) {
  std::vector<double> flat;
  for_each_index(pairs.shape(), [&](const Index& i, std::int64_t) { flat.push_back(get(pairs, i)); });
  std::vector<Z> out;
  for (std::size_t k = 0; k + 1 < flat.size(); k += 2) out.emplace_back(flat[k], flat[k + 1]);
  return out;
}

Shape complex_shape(const Tensor& pairs) {
  std::vector<std::int64_t> dims = pairs.shape().dims();
  dims.pop_back();
  return Shape(dims);
}

// The reference of results of kind `out` from complex values: the real pairs (each part against |z|), the
// real values, or the truth values.
Ref reference(const std::vector<Z>& values, const Shape& shape, Out out) {
  Ref r;
  std::vector<std::int64_t> dims = shape.dims();
  if (out == Out::complex) dims.push_back(2);
  r.shape = Shape(dims);
  for (const Z& z : values) {
    const double magnitude = static_cast<double>(std::abs(z));
    if (out == Out::complex) {
      r.v.push_back(static_cast<double>(z.real()));
      r.v.push_back(static_cast<double>(z.imag()));
      r.mag.insert(r.mag.end(), {magnitude, magnitude});
    } else {
      r.v.push_back(static_cast<double>(z.real()));
      r.mag.push_back(magnitude);
    }
  }
  return r;
}

Tensor as_result(const Tensor& t, Out out) { return out == Out::complex ? t.view_as_real() : t; }

Tol complex_tol(DType complex) {
  // A few ulps of the part type relative to |f(z)|, times the conditioning of the functions on the sampled
  // squares (tan and tanh near their poles, pow through exp(b log a)).
  return accelera::real_dtype(complex) == DType::f32 ? Tol{4e-5, 1e-6} : Tol{1e-12, 1e-14};
}

const std::vector<Shape>& complex_shapes() {
  static const std::vector<Shape> shapes = {Shape{}, Shape{1}, Shape{0, 5}, Shape{7}, Shape{13, 31}, Shape{3, 1, 17}};
  return shapes;
}

Row complex_unary_row() {
  return {"complex_unary", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            for (const UnaryFunction& f : unary_functions()) {
              for (const Shape& shape : complex_shapes()) {
                for (View v : kAllViews) {
                  Input in = complex_input(shape, dt, v, rng, f.scale);
                  const Tensor host = in.host();
                  std::vector<Z> values;
                  for (const Z& z : complex_values(host)) values.push_back(f.ref(z));
                  cases.push_back(Case{label(shape, v, f.name), {in},
                                       [f](const std::vector<Tensor>& t, const Device&) {
                                         return std::vector<Tensor>{as_result(f.op(t[0].view_as_complex()), f.out)};
                                       },
                                       {reference(values, complex_shape(host), f.out)},
                                       complex_tol(dt)});
                }
              }
            }
            return cases;
          }};
}

Row complex_binary_row() {
  return {"complex_binary", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            for (const BinaryFunction& f : binary_functions()) {
              for (const Shape& shape : complex_shapes()) {
                for (View v : kAllViews) {
                  Input a = complex_input(shape, dt, v, rng, 1.5);
                  const Tensor ha = a.host();
                  const Shape out_shape = complex_shape(ha);  // the view's shape (transposed ones differ)
                  // b: a's shape with its last extent broadcast from one element.
                  std::vector<std::int64_t> b_dims = out_shape.dims();
                  if (!b_dims.empty()) b_dims.back() = 1;
                  Input b = complex_input(Shape(b_dims), dt, View::contiguous, rng, 1.5);
                  const Tensor hb = b.host();
                  const std::vector<Z> za = complex_values(ha), zb = complex_values(hb);
                  const std::int64_t inner = out_shape.ndim() == 0 ? 1 : out_shape[out_shape.ndim() - 1];
                  std::vector<Z> values;
                  for (std::size_t k = 0; k < za.size(); ++k) {
                    values.push_back(f.ref(za[k], zb[k / static_cast<std::size_t>(std::max<std::int64_t>(inner, 1))]));
                  }
                  cases.push_back(Case{label(shape, v, f.name), {a, b},
                                       [f](const std::vector<Tensor>& t, const Device&) {
                                         const Tensor r = f.op(t[0].view_as_complex(), t[1].view_as_complex());
                                         return std::vector<Tensor>{as_result(r, f.out)};
                                       },
                                       {reference(values, out_shape, f.out)},
                                       complex_tol(dt)});
                }
              }
            }
            return cases;
          }};
}

// The DFT of `v` (length n, real-stride 1) by its definition, in long double: sum_j v[j] e^{-+2 pi i jk/n}.
std::vector<Z> dft(const std::vector<Z>& v, bool forward) {
  const std::size_t n = v.size();
  const long double pi = std::acos(-1.0L), sign = forward ? -1.0L : 1.0L;
  std::vector<Z> out(n);
  for (std::size_t k = 0; k < n; ++k) {
    for (std::size_t j = 0; j < n; ++j) {
      const long double angle = sign * 2 * pi * static_cast<long double>((j * k) % n) / static_cast<long double>(n);
      out[k] += v[j] * Z(std::cos(angle), std::sin(angle));
    }
  }
  return out;
}

// The references of fft, ifft (along the last axis), rfft and irfft of rows of complex values (`rows` of
// `n` each; rfft takes the real parts, irfft reads n / 2 + 1 values per row and gives n real ones).
std::vector<Z> dft_rows(const std::vector<Z>& values, std::int64_t rows, std::int64_t in_n, const std::string& what,
                        std::int64_t n) {
  std::vector<Z> out;
  for (std::int64_t r = 0; r < rows; ++r) {
    std::vector<Z> row(values.begin() + r * in_n, values.begin() + (r + 1) * in_n);
    if (what == "rfft") {
      for (auto& z : row) z = Z(z.real());
      const std::vector<Z> full = dft(row, true);
      out.insert(out.end(), full.begin(), full.begin() + n / 2 + 1);
    } else if (what == "irfft") {
      std::vector<Z> hermitian(static_cast<std::size_t>(n));
      for (std::int64_t k = 0; k < n; ++k) {
        const std::int64_t j = k <= n / 2 ? k : n - k;
        hermitian[static_cast<std::size_t>(k)] = k <= n / 2 ? row[static_cast<std::size_t>(j)] : std::conj(row[static_cast<std::size_t>(j)]);
      }
      // The imaginary parts of the zero (and Nyquist) frequencies are ignored, as pocketfft and cuFFT do.
      hermitian[0] = Z(hermitian[0].real());
      if (n % 2 == 0) hermitian[static_cast<std::size_t>(n / 2)] = Z(hermitian[static_cast<std::size_t>(n / 2)].real());
      for (const Z& z : dft(hermitian, false)) out.push_back(Z(z.real() / static_cast<long double>(n)));
    } else {
      const bool forward = what == "fft";
      for (const Z& z : dft(row, forward)) out.push_back(forward ? z : z / static_cast<long double>(n));
    }
  }
  return out;
}

Row fft_row() {
  return {"fft", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            // Lengths 1, 2, a prime (Bluestein in pocketfft), a power of two and a composite.
            for (std::int64_t n : {1, 2, 13, 16, 97, 30}) {
              for (const std::string what : {"fft", "ifft", "rfft", "irfft"}) {
                for (View v : {View::contiguous, View::negstep, View::step2}) {
                  const std::int64_t rows = 3;
                  const std::int64_t in_n = what == "irfft" ? n / 2 + 1 : n;
                  Input in = complex_input(Shape{rows, in_n}, dt, v, rng, 1.0);
                  const Tensor host = in.host();
                  const Shape shape = complex_shape(host);
                  const std::vector<Z> values =
                      dft_rows(complex_values(host), shape[0], shape[1], what, n);
                  const bool real_out = what == "irfft";
                  std::vector<std::int64_t> out_dims{shape[0], what == "rfft" ? n / 2 + 1 : n};
                  Ref ref = reference(values, Shape(out_dims), real_out ? Out::real : Out::complex);
                  if (what == "rfft" || what == "irfft") {
                    // Their magnitudes: each value's error is measured against the row's largest.
                    for (auto& m : ref.mag) m = std::max(m, 1.0);
                  }
                  Tol tol = complex_tol(dt);
                  tol.rtol *= 4;  // n log n rounding terms
                  tol.atol = tol.rtol;
                  cases.push_back(Case{label(Shape{rows, n}, v, what), {in},
                                       [what, n](const std::vector<Tensor>& t, const Device&) {
                                         const Tensor z = t[0].view_as_complex();
                                         if (what == "fft") return std::vector<Tensor>{accelera::fft::fft(z).view_as_real()};
                                         if (what == "ifft") return std::vector<Tensor>{accelera::fft::ifft(z).view_as_real()};
                                         if (what == "rfft") {
                                           return std::vector<Tensor>{accelera::fft::rfft(accelera::real(z)).view_as_real()};
                                         }
                                         return std::vector<Tensor>{accelera::fft::irfft(z, n)};
                                       },
                                       {ref},
                                       tol});
                }
              }
            }
            return cases;
          }};
}

// ---- the factorisations of complex matrices (linalg rows, complex dtypes) ---------------------------------

// A batch of complex matrices (row-major values of dims) as an input laid out contiguously or transposed.
Input complex_matrices(const std::vector<Z>& values, const std::vector<std::int64_t>& dims, DType dt, bool transposed) {
  std::vector<std::int64_t> base_dims = dims;
  if (transposed) std::swap(base_dims[base_dims.size() - 1], base_dims[base_dims.size() - 2]);
  base_dims.push_back(2);
  const std::int64_t rows = dims[dims.size() - 2], cols = dims.back();
  Tensor base = Tensor::empty(Shape(base_dims), accelera::real_dtype(dt));
  for (std::size_t k = 0; k < values.size(); ++k) {
    const auto i = static_cast<std::int64_t>(k);
    const std::int64_t batch = i / (rows * cols), r = i / cols % rows, c = i % cols;
    const std::int64_t at = batch * rows * cols + (transposed ? c * rows + r : r * cols + c);
    base.data_ptr();
    const Tensor flat = base.reshape(std::vector<std::int64_t>{-1});
    set(flat, {2 * at}, static_cast<double>(values[k].real()));
    set(flat, {2 * at + 1}, static_cast<double>(values[k].imag()));
  }
  Input in{base};
  if (transposed) in.view = [](const Tensor& t) { return t.view_as_complex().transpose(-2, -1).view_as_real(); };
  return in;
}

std::vector<Z> random_values(std::int64_t count, std::mt19937_64& rng, DType dt) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Z> v;
  for (std::int64_t i = 0; i < count; ++i) {
    // Rounded to the part type, so that the references see the values the op sees.
    v.emplace_back(static_cast<long double>(accelera::real_dtype(dt) == DType::f32 ? static_cast<float>(u(rng)) : u(rng)),
                   static_cast<long double>(accelera::real_dtype(dt) == DType::f32 ? static_cast<float>(u(rng)) : u(rng)));
  }
  return v;
}

std::vector<std::int64_t> dims_of(const std::vector<std::int64_t>& batch, std::int64_t rows, std::int64_t cols) {
  std::vector<std::int64_t> d = batch;
  d.push_back(rows);
  d.push_back(cols);
  return d;
}

// The reference of complex results: pairs, each part against max(|z|, scale).
Ref pairs_ref(const std::vector<Z>& values, std::vector<std::int64_t> dims, double scale) {
  Ref r = reference(values, Shape(dims), Out::complex);
  for (auto& m : r.mag) m = std::max(m, scale);
  return r;
}

std::vector<Z> identity_values(std::int64_t count, std::int64_t n) {
  std::vector<Z> v(static_cast<std::size_t>(count * n * n));
  for (std::int64_t b = 0; b < count; ++b) {
    for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(b * n * n + i * n + i)] = 1;
  }
  return v;
}

// det by Gaussian elimination with partial pivoting in long double.
Z complex_det(std::vector<Z> a, std::int64_t n) {
  Z det = 1;
  for (std::int64_t c = 0; c < n; ++c) {
    std::int64_t p = c;
    for (std::int64_t r = c + 1; r < n; ++r) {
      if (std::abs(a[r * n + c]) > std::abs(a[p * n + c])) p = r;
    }
    if (a[p * n + c] == Z(0)) return 0;
    if (p != c) {
      for (std::int64_t j = 0; j < n; ++j) std::swap(a[p * n + j], a[c * n + j]);
      det = -det;
    }
    det *= a[c * n + c];
    for (std::int64_t r = c + 1; r < n; ++r) {
      const Z f = a[r * n + c] / a[c * n + c];
      for (std::int64_t j = c; j < n; ++j) a[r * n + j] -= f * a[c * n + j];
    }
  }
  return det;
}

Tensor conj_transpose(const Tensor& x) { return accelera::conj(x.transpose(-2, -1)); }

Tol factor_tol(DType dt, std::int64_t n) {
  const double e = (accelera::real_dtype(dt) == DType::f32 ? 1.2e-7 : 2.3e-16) * 64 * static_cast<double>(std::max<std::int64_t>(n, 1));
  return {e, e};
}

}  // namespace

std::vector<Case> complex_linalg_cases(const std::string& op, DType dt, std::mt19937_64& rng) {
  std::vector<Case> cases;
  struct Shape3 {
    std::vector<std::int64_t> batch;
    std::int64_t rows, cols;
  };
  const bool qr = op == "qr_factor" || op == "householder_product" || op == "svd";
  const std::vector<Shape3> shapes = qr ? std::vector<Shape3>{{{}, 1, 1}, {{}, 7, 3}, {{}, 3, 7}, {{}, 13, 13}, {{3}, 5, 2}}
                                         : std::vector<Shape3>{{{}, 1, 1}, {{}, 2, 2}, {{}, 5, 5}, {{}, 13, 13}, {{3}, 4, 4}};
  for (const Shape3& sh : shapes) {
    const std::int64_t m = sh.rows, n = sh.cols, count = Shape(sh.batch).numel();
    const auto dims = dims_of(sh.batch, m, n);
    std::vector<Z> a = random_values(count * m * n, rng, dt);
    for (bool t : {false, true}) {
      const std::string label = fmt::format("{} {}{}", op, Shape(dims).str(), t ? " transposed" : "");
      if (op == "lu_solve") {
        for (std::int64_t b = 0; b < count; ++b) {
          for (std::int64_t i = 0; i < n; ++i) a[static_cast<std::size_t>(b * n * n + i * n + i)] += static_cast<long double>(n);
        }
        const std::vector<Z> rhs = random_values(count * n * 2, rng, dt);
        cases.push_back(Case{label, {complex_matrices(a, dims, dt, t), complex_matrices(rhs, dims_of(sh.batch, n, 2), dt, false)},
                             [](const std::vector<Tensor>& in, const Device&) {
                               const Tensor za = in[0].view_as_complex(), zb = in[1].view_as_complex();
                               const Tensor x = accelera::linalg::solve(za, zb);
                               return std::vector<Tensor>{accelera::matmul(za, x).view_as_real(),
                                                          accelera::matmul(za, accelera::linalg::inv(za)).view_as_real()};
                             },
                             {pairs_ref(rhs, dims_of(sh.batch, n, 2), 2.0), pairs_ref(identity_values(count, n), dims, 1.0)},
                             factor_tol(dt, n)});
      } else if (op == "lu_factor") {
        std::vector<Z> det, sign;
        Ref logabs{Shape(sh.batch), {}, {}};
        for (std::int64_t b = 0; b < count; ++b) {
          const std::vector<Z> one(a.begin() + b * n * n, a.begin() + (b + 1) * n * n);
          det.push_back(complex_det(one, n));
          sign.push_back(det.back() / std::abs(det.back()));
          logabs.v.push_back(static_cast<double>(std::log(std::abs(det.back()))));
          logabs.mag.push_back(10.0 * static_cast<double>(n));
        }
        Ref det_r = pairs_ref(det, dims_of(sh.batch, 1, 1), 0.0);
        det_r.shape = Shape([&] { auto d = sh.batch; d.push_back(2); return d; }());
        for (auto& mg : det_r.mag) mg *= 10;
        Ref sign_r = pairs_ref(sign, dims_of(sh.batch, 1, 1), 1.0);
        sign_r.shape = det_r.shape;
        cases.push_back(Case{label, {complex_matrices(a, dims, dt, t)},
                             [](const std::vector<Tensor>& in, const Device&) {
                               const Tensor za = in[0].view_as_complex();
                               const auto s = accelera::linalg::slogdet(za);
                               return std::vector<Tensor>{accelera::linalg::det(za).view_as_real(), s.sign.view_as_real(),
                                                          s.logabsdet};
                             },
                             {det_r, sign_r, logabs}, factor_tol(dt, n * n)});
      } else if (op == "cholesky") {
        // h = L0 L0^H with L0 lower triangular, its diagonal real and positive: L0 is the reference.
        std::vector<Z> l(a.size()), h(a.size()), u(a.size());
        for (std::int64_t b = 0; b < count; ++b) {
          Z* lb = l.data() + b * n * n;
          for (std::int64_t i = 0; i < n; ++i) {
            for (std::int64_t j = 0; j <= i; ++j) {
              lb[i * n + j] = i == j ? Z(1.5L + std::abs(a[static_cast<std::size_t>(b * n * n + i * n + j)].real()))
                                     : a[static_cast<std::size_t>(b * n * n + i * n + j)];
            }
          }
          for (std::int64_t i = 0; i < n; ++i) {
            for (std::int64_t j = 0; j < n; ++j) {
              Z sum = 0;
              for (std::int64_t p = 0; p < n; ++p) sum += lb[i * n + p] * std::conj(lb[j * n + p]);
              h[static_cast<std::size_t>(b * n * n + i * n + j)] = sum;
              u[static_cast<std::size_t>(b * n * n + j * n + i)] = std::conj(lb[i * n + j]);
            }
          }
        }
        cases.push_back(Case{label, {complex_matrices(h, dims, dt, t)},
                             [](const std::vector<Tensor>& in, const Device&) {
                               const Tensor zh = in[0].view_as_complex();
                               return std::vector<Tensor>{accelera::linalg::cholesky(zh).view_as_real(),
                                                          accelera::linalg::cholesky(zh, true).view_as_real()};
                             },
                             {pairs_ref(l, dims, static_cast<double>(n)), pairs_ref(u, dims, static_cast<double>(n))},
                             factor_tol(dt, n * 4)});
      } else if (op == "eigh") {
        // h = (a + a^H) / 2: V diag(w) V^H = h, V^H V = I, and eigvalsh's values are eigh's.
        std::vector<Z> h(a.size());
        for (std::int64_t b = 0; b < count; ++b) {
          for (std::int64_t i = 0; i < n; ++i) {
            for (std::int64_t j = 0; j < n; ++j) {
              const auto at = [&](std::int64_t r, std::int64_t c) { return static_cast<std::size_t>(b * n * n + r * n + c); };
              h[at(i, j)] = (a[at(i, j)] + std::conj(a[at(j, i)])) / 2.0L;
            }
          }
        }
        cases.push_back(Case{label, {complex_matrices(h, dims, dt, t)},
                             [](const std::vector<Tensor>& in, const Device&) {
                               const Tensor zh = in[0].view_as_complex();
                               const auto r = accelera::linalg::eigh(zh);
                               const Tensor w = r.eigenvalues.astype(zh.dtype()).unsqueeze(-2);
                               const Tensor rebuilt = accelera::matmul(accelera::multiply(r.eigenvectors, w),
                                                                       conj_transpose(r.eigenvectors));
                               const Tensor same = accelera::subtract(accelera::linalg::eigvalsh(zh), r.eigenvalues);
                               return std::vector<Tensor>{rebuilt.view_as_real(),
                                                          accelera::matmul(conj_transpose(r.eigenvectors), r.eigenvectors).view_as_real(),
                                                          same};
                             },
                             {pairs_ref(h, dims, static_cast<double>(n)), pairs_ref(identity_values(count, n), dims, 1.0),
                              Ref{Shape([&] { auto d = sh.batch; d.push_back(n); return d; }()),
                                  std::vector<double>(static_cast<std::size_t>(count * n), 0.0),
                                  std::vector<double>(static_cast<std::size_t>(count * n), static_cast<double>(n))}},
                             factor_tol(dt, n * 4)});
      } else if (op == "svd") {
        // U diag(S) Vh = a and U^H U = I (thin and full), and svdvals' values are svd's.
        for (bool full : {false, true}) {
          const std::int64_t k = std::min(m, n), uc = full ? m : k;
          cases.push_back(Case{label + (full ? " full" : " thin"), {complex_matrices(a, dims, dt, t)},
                               [full, k](const std::vector<Tensor>& in, const Device&) {
                                 const Tensor za = in[0].view_as_complex();
                                 const auto r = accelera::linalg::svd(za, full);
                                 const Tensor u = r.U.slice(-1, 0, k), vh = r.Vh.slice(-2, 0, k);
                                 const Tensor rebuilt =
                                     accelera::matmul(accelera::multiply(u, r.S.astype(za.dtype()).unsqueeze(-2)), vh);
                                 const Tensor same = accelera::subtract(accelera::linalg::svdvals(za), r.S);
                                 return std::vector<Tensor>{rebuilt.view_as_real(),
                                                            accelera::matmul(conj_transpose(r.U), r.U).view_as_real(), same};
                               },
                               {pairs_ref(a, dims, static_cast<double>(std::max(m, n))),
                                pairs_ref(identity_values(count, uc), dims_of(sh.batch, uc, uc), 1.0),
                                Ref{Shape([&] { auto d = sh.batch; d.push_back(k); return d; }()),
                                    std::vector<double>(static_cast<std::size_t>(count * k), 0.0),
                                    std::vector<double>(static_cast<std::size_t>(count * k), static_cast<double>(std::max(m, n)))}},
                               factor_tol(dt, std::max(m, n) * 4)});
        }
      } else {  // qr_factor and householder_product: Q R = a and Q^H Q = I, in both modes
        for (const char* mode : {"reduced", "complete"}) {
          const std::int64_t c = std::string(mode) == "complete" ? m : std::min(m, n);
          cases.push_back(Case{label + " " + mode, {complex_matrices(a, dims, dt, t)},
                               [mode](const std::vector<Tensor>& in, const Device&) {
                                 const auto r = accelera::linalg::qr(in[0].view_as_complex(), mode);
                                 return std::vector<Tensor>{accelera::matmul(r.Q, r.R).view_as_real(),
                                                            accelera::matmul(conj_transpose(r.Q), r.Q).view_as_real()};
                               },
                               {pairs_ref(a, dims, static_cast<double>(m)), pairs_ref(identity_values(count, c), dims_of(sh.batch, c, c), 1.0)},
                               factor_tol(dt, std::max(m, n) * 4)});
        }
      }
    }
  }
  return cases;
}

std::vector<Row> complex_rows() { return {complex_unary_row(), complex_binary_row(), fft_row()}; }

}  // namespace acc_test::op_table
