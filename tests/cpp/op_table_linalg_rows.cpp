// Rows of the op test table for the factorisations and vecdot (Note [Op test table] in op_table.hpp; Note
// [Factorisation kernels] in src/ops/linalg_kernels.hpp). Each row runs the public linalg functions built
// on its kernel. Inputs are built from known factors (Householder reflections, chosen eigenvalues and
// singular values, a lower-triangular factor) so that the float64 references are exact: eigenvalues,
// singular values, Cholesky factors, determinants by float64 elimination; vectors, whose signs are free,
// are checked through reconstructions and orthogonality computed on the device.
#include <algorithm>
#include <cmath>

#include "accelera/linalg.hpp"
#include "accelera/ops.hpp"
#include "op_table.hpp"
#include "ops/linalg_kernels.hpp"

namespace acc_test::op_table {

namespace {

using Matrix = std::vector<double>;  // row-major

const std::vector<std::int64_t> kSizes = {1, 2, 5, 13};

Shape with(const std::vector<std::int64_t>& batch, std::int64_t r, std::int64_t c) {
  std::vector<std::int64_t> s = batch;
  s.insert(s.end(), {r, c});
  return Shape(s);
}

// A Householder reflection I - 2 v v^T / |v|^2 of random v: orthogonal and symmetric.
Matrix reflection(std::int64_t n, std::mt19937_64& rng) {
  std::vector<double> v(static_cast<std::size_t>(n));
  double norm = 0;
  for (auto& x : v) x = std::uniform_real_distribution<double>(-1, 1)(rng), norm += x * x;
  Matrix h(static_cast<std::size_t>(n * n));
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < n; ++j) h[i * n + j] = (i == j) - 2 * v[i] * v[j] / norm;
  }
  return h;
}

// The batch of matrices `mats` (each rows x cols) as an input in dt, contiguous or as a transposed view.
Input matrices_input(const std::vector<Matrix>& mats, const std::vector<std::int64_t>& batch, std::int64_t rows,
                     std::int64_t cols, DType dt, bool transposed) {
  const Shape stored = transposed ? with(batch, cols, rows) : with(batch, rows, cols);
  Tensor base = Tensor::empty(stored, dt);
  std::int64_t b = 0;
  for_each_index(Shape(batch), [&](const Index& bi, std::int64_t) {
    for (std::int64_t i = 0; i < rows; ++i) {
      for (std::int64_t j = 0; j < cols; ++j) {
        Index idx = bi;
        idx.insert(idx.end(), transposed ? std::initializer_list<std::int64_t>{j, i}
                                         : std::initializer_list<std::int64_t>{i, j});
        set(base, idx, mats[b][i * cols + j]);
      }
    }
    ++b;
  });
  Input in{base};
  if (transposed) in.view = [](const Tensor& t) { return t.transpose(-2, -1); };
  return in;
}

// The input's values as read back in float64 (rounded to its dtype), one matrix per batch entry.
std::vector<Matrix> read_back(const Input& in) {
  const Tensor h = in.host();
  const std::int64_t rows = h.dim(-2), cols = h.dim(-1);
  std::vector<Matrix> out;
  for_each_index(Shape(std::vector<std::int64_t>(h.shape().dims().begin(), h.shape().dims().end() - 2)),
                 [&](const Index& bi, std::int64_t) {
                   Matrix m(static_cast<std::size_t>(rows * cols));
                   for (std::int64_t i = 0; i < rows; ++i) {
                     for (std::int64_t j = 0; j < cols; ++j) {
                       Index idx = bi;
                       idx.insert(idx.end(), {i, j});
                       m[i * cols + j] = get(h, idx);
                     }
                   }
                   out.push_back(m);
                 });
  return out;
}

// A reference of the given values with one magnitude for all (errors scale with the matrix, not the entry).
Ref scaled_ref(const Shape& shape, std::vector<double> v, double scale) {
  Ref r{shape, std::move(v), {}};
  r.mag.assign(r.v.size(), scale);
  return r;
}

Ref identities(const std::vector<std::int64_t>& batch, std::int64_t n) {
  std::vector<double> v;
  for (std::int64_t b = 0; b < Shape(batch).numel(); ++b) {
    for (std::int64_t i = 0; i < n * n; ++i) v.push_back(i % (n + 1) == 0 ? 1.0 : 0.0);
  }
  return scaled_ref(with(batch, n, n), v, 1.0);
}

Ref flat_ref(const Shape& shape, const std::vector<Matrix>& mats, double scale) {
  std::vector<double> v;
  for (const auto& m : mats) v.insert(v.end(), m.begin(), m.end());
  return scaled_ref(shape, v, scale);
}

Tol linalg_tol(DType dt, std::int64_t n) {
  const double e = eps_of(dt) * 64 * static_cast<double>(std::max<std::int64_t>(n, 1));
  return {e, e};
}

std::string case_label(const Shape& s, View v, const std::string& extra = "") {
  return s.str() + " " + view_name(v) + (extra.empty() ? "" : " " + extra);
}

struct BatchCase {
  std::vector<std::int64_t> batch;
  std::int64_t rows, cols;
};

std::vector<BatchCase> square_cases() {
  std::vector<BatchCase> c;
  for (auto n : kSizes) c.push_back({{}, n, n});
  c.push_back({{3}, 4, 4});
  c.push_back({{2, 2}, 3, 3});
  return c;
}

// ---- lu_solve: solve and inv, checked as a @ x = b and a @ inv(a) = I ----------------------------------

Row lu_solve_row() {
  return {"lu_solve", [](DType dt, std::mt19937_64& rng) {
            if (accelera::is_complex(dt)) return complex_linalg_cases("lu_solve", dt, rng);
            std::vector<Case> cases;
            for (const BatchCase& bc : square_cases()) {
              const std::int64_t n = bc.rows, count = Shape(bc.batch).numel();
              std::vector<Matrix> a(static_cast<std::size_t>(count)), b(a.size());
              for (std::size_t k = 0; k < a.size(); ++k) {
                a[k].resize(static_cast<std::size_t>(n * n));
                b[k].resize(static_cast<std::size_t>(n * 2));
                for (std::int64_t i = 0; i < n * n; ++i) a[k][i] = random_value(dt, rng, -1, 1) + (i % (n + 1) == 0 ? n : 0);
                for (auto& x : b[k]) x = random_value(dt, rng, -1, 1);
              }
              for (bool t : {false, true}) {
                Input ia = matrices_input(a, bc.batch, n, n, dt, t);
                Input ib = matrices_input(b, bc.batch, n, 2, dt, false);
                cases.push_back({case_label(with(bc.batch, n, n), t ? View::transposed : View::contiguous), {ia, ib},
                                 [](const std::vector<Tensor>& in, const Device&) {
                                   const Tensor x = accelera::linalg::solve(in[0], in[1]);
                                   return std::vector<Tensor>{accelera::matmul(in[0], x),
                                                              accelera::matmul(in[0], accelera::linalg::inv(in[0]))};
                                 },
                                 {flat_ref(with(bc.batch, n, 2), read_back(ib), 2.0), identities(bc.batch, n)},
                                 linalg_tol(dt, n)});
              }
            }
            return cases;
          }};
}

// ---- lu_factor: det and slogdet against float64 elimination with partial pivoting --------------------------

double det_ref(Matrix a, std::int64_t n) {
  double det = 1;
  for (std::int64_t c = 0; c < n; ++c) {
    std::int64_t p = c;
    for (std::int64_t r = c + 1; r < n; ++r) {
      if (std::fabs(a[r * n + c]) > std::fabs(a[p * n + c])) p = r;
    }
    if (a[p * n + c] == 0) return 0;
    if (p != c) {
      for (std::int64_t j = 0; j < n; ++j) std::swap(a[p * n + j], a[c * n + j]);
      det = -det;
    }
    det *= a[c * n + c];
    for (std::int64_t r = c + 1; r < n; ++r) {
      const double f = a[r * n + c] / a[c * n + c];
      for (std::int64_t j = c; j < n; ++j) a[r * n + j] -= f * a[c * n + j];
    }
  }
  return det;
}

Row lu_factor_row() {
  return {"lu_factor", [](DType dt, std::mt19937_64& rng) {
            if (accelera::is_complex(dt)) return complex_linalg_cases("lu_factor", dt, rng);
            std::vector<Case> cases;
            for (const BatchCase& bc : square_cases()) {
              const std::int64_t n = bc.rows, count = Shape(bc.batch).numel();
              std::vector<Matrix> a(static_cast<std::size_t>(count));
              for (auto& m : a) {
                m.resize(static_cast<std::size_t>(n * n));
                for (auto& x : m) x = random_value(dt, rng, -1, 1) * 2;
              }
              if (n == 2 && bc.batch.empty()) a[0] = {1, 2, 2, 4};  // exactly singular: det 0, sign 0, -inf
              for (bool t : {false, true}) {
                Input ia = matrices_input(a, bc.batch, n, n, dt, t);
                std::vector<double> det, sign, logabs;
                for (const auto& m : read_back(ia)) {
                  det.push_back(det_ref(m, n));
                  sign.push_back(det.back() > 0 ? 1.0 : (det.back() < 0 ? -1.0 : 0.0));
                  logabs.push_back(std::log(std::fabs(det.back())));
                }
                // Determinants are checked relative to their own size (one LU's rounding, conditioned).
                Ref det_r{Shape(bc.batch), det, {}};
                for (double d : det) det_r.mag.push_back(10 * std::fabs(d));
                cases.push_back({case_label(with(bc.batch, n, n), t ? View::transposed : View::contiguous), {ia},
                                 [](const std::vector<Tensor>& in, const Device&) {
                                   const auto s = accelera::linalg::slogdet(in[0]);
                                   return std::vector<Tensor>{accelera::linalg::det(in[0]), s.sign, s.logabsdet};
                                 },
                                 {det_r, scaled_ref(Shape(bc.batch), sign, 0),
                                  scaled_ref(Shape(bc.batch), logabs, static_cast<double>(n) * 10)},
                                 linalg_tol(dt, n * n)});
              }
            }
            return cases;
          }};
}

// ---- cholesky: a = L0 L0^T from a random L0 with a positive diagonal; L0 is the reference --------------------

Row cholesky_row() {
  return {"cholesky", [](DType dt, std::mt19937_64& rng) {
            if (accelera::is_complex(dt)) return complex_linalg_cases("cholesky", dt, rng);
            std::vector<Case> cases;
            for (const BatchCase& bc : square_cases()) {
              const std::int64_t n = bc.rows, count = Shape(bc.batch).numel();
              std::vector<Matrix> l(static_cast<std::size_t>(count)), a(l.size()), u(l.size());
              for (std::size_t k = 0; k < l.size(); ++k) {
                l[k].assign(static_cast<std::size_t>(n * n), 0.0);
                u[k] = l[k];
                for (std::int64_t i = 0; i < n; ++i) {
                  for (std::int64_t j = 0; j <= i; ++j) {
                    l[k][i * n + j] = i == j ? 1 + std::uniform_real_distribution<double>(0, 1)(rng)
                                             : std::uniform_real_distribution<double>(-1, 1)(rng);
                  }
                }
                a[k].assign(static_cast<std::size_t>(n * n), 0.0);
                for (std::int64_t i = 0; i < n; ++i) {
                  for (std::int64_t j = 0; j < n; ++j) {
                    for (std::int64_t p = 0; p < n; ++p) a[k][i * n + j] += l[k][i * n + p] * l[k][j * n + p];
                    u[k][j * n + i] = l[k][i * n + j];
                  }
                }
              }
              for (bool t : {false, true}) {
                Input ia = matrices_input(a, bc.batch, n, n, dt, t);
                cases.push_back({case_label(with(bc.batch, n, n), t ? View::transposed : View::contiguous), {ia},
                                 [](const std::vector<Tensor>& in, const Device&) {
                                   return std::vector<Tensor>{accelera::linalg::cholesky(in[0]),
                                                              accelera::linalg::cholesky(in[0], true)};
                                 },
                                 {flat_ref(with(bc.batch, n, n), l, 1.0 * static_cast<double>(n)),
                                  flat_ref(with(bc.batch, n, n), u, 1.0 * static_cast<double>(n))},
                                 linalg_tol(dt, n * 4)});
              }
            }
            return cases;
          }};
}

// ---- eigh: a = H diag(d) H; eigenvalues sorted d, V diag(w) V^T = a, V^T V = I ------------------------------

Tensor reconstruct_eigh(const Tensor& a) {
  const auto r = accelera::linalg::eigh(a);
  return accelera::matmul(accelera::multiply(r.eigenvectors, r.eigenvalues.unsqueeze(-2)),
                          r.eigenvectors.transpose(-2, -1));
}

Row eigh_row() {
  return {"eigh", [](DType dt, std::mt19937_64& rng) {
            if (accelera::is_complex(dt)) return complex_linalg_cases("eigh", dt, rng);
            std::vector<Case> cases;
            for (const BatchCase& bc : square_cases()) {
              const std::int64_t n = bc.rows, count = Shape(bc.batch).numel();
              std::vector<Matrix> a(static_cast<std::size_t>(count));
              std::vector<double> eigenvalues;
              for (auto& m : a) {
                const Matrix h = reflection(n, rng);
                std::vector<double> d(static_cast<std::size_t>(n));
                for (auto& x : d) x = std::uniform_real_distribution<double>(-3, 3)(rng);
                m.assign(static_cast<std::size_t>(n * n), 0.0);
                for (std::int64_t i = 0; i < n; ++i) {
                  for (std::int64_t j = 0; j < n; ++j) {
                    for (std::int64_t p = 0; p < n; ++p) m[i * n + j] += h[i * n + p] * d[p] * h[j * n + p];
                  }
                }
                std::sort(d.begin(), d.end());
                eigenvalues.insert(eigenvalues.end(), d.begin(), d.end());
              }
              std::vector<std::int64_t> w_dims = bc.batch;
              w_dims.push_back(n);
              const Shape w_shape(w_dims);
              for (bool t : {false, true}) {
                Input ia = matrices_input(a, bc.batch, n, n, dt, t);
                cases.push_back({case_label(with(bc.batch, n, n), t ? View::transposed : View::contiguous), {ia},
                                 [](const std::vector<Tensor>& in, const Device&) {
                                   const auto r = accelera::linalg::eigh(in[0]);
                                   const Tensor vtv = accelera::matmul(r.eigenvectors.transpose(-2, -1), r.eigenvectors);
                                   return std::vector<Tensor>{r.eigenvalues, accelera::linalg::eigvalsh(in[0]),
                                                              reconstruct_eigh(in[0]), vtv};
                                 },
                                 {scaled_ref(w_shape, eigenvalues, 3.0), scaled_ref(w_shape, eigenvalues, 3.0),
                                  flat_ref(with(bc.batch, n, n), read_back(ia), 3.0), identities(bc.batch, n)},
                                 linalg_tol(dt, n * 4)});
              }
            }
            return cases;
          }};
}

// ---- svd: a = H1[:, :k] diag(s) H2[:k, :]; S sorted s, U diag(S) Vh = a, U^T U = I -------------------------

Row svd_row() {
  return {"svd", [](DType dt, std::mt19937_64& rng) {
            if (accelera::is_complex(dt)) return complex_linalg_cases("svd", dt, rng);
            std::vector<Case> cases;
            const BatchCase shapes[] = {{{}, 1, 1}, {{}, 7, 3}, {{}, 3, 7}, {{}, 13, 13}, {{2}, 5, 2}, {{2, 1}, 2, 9}};
            for (const BatchCase& bc : shapes) {
              const std::int64_t m = bc.rows, n = bc.cols, k = std::min(m, n), count = Shape(bc.batch).numel();
              std::vector<Matrix> a(static_cast<std::size_t>(count));
              std::vector<double> values;
              for (auto& mat : a) {
                const Matrix h1 = reflection(m, rng), h2 = reflection(n, rng);
                std::vector<double> s(static_cast<std::size_t>(k));
                for (auto& x : s) x = std::uniform_real_distribution<double>(0.5, 3)(rng);
                mat.assign(static_cast<std::size_t>(m * n), 0.0);
                for (std::int64_t i = 0; i < m; ++i) {
                  for (std::int64_t j = 0; j < n; ++j) {
                    for (std::int64_t p = 0; p < k; ++p) mat[i * n + j] += h1[i * m + p] * s[p] * h2[p * n + j];
                  }
                }
                std::sort(s.rbegin(), s.rend());
                values.insert(values.end(), s.begin(), s.end());
              }
              auto s_shape = bc.batch;
              s_shape.push_back(k);
              for (bool t : {false, true}) {
                Input ia = matrices_input(a, bc.batch, m, n, dt, t);
                cases.push_back({case_label(with(bc.batch, m, n), t ? View::transposed : View::contiguous), {ia},
                                 [](const std::vector<Tensor>& in, const Device&) {
                                   const auto r = accelera::linalg::svd(in[0], false);
                                   const Tensor usv = accelera::matmul(accelera::multiply(r.U, r.S.unsqueeze(-2)), r.Vh);
                                   const auto full = accelera::linalg::svd(in[0], true);
                                   const Tensor utu = accelera::matmul(full.U.transpose(-2, -1), full.U);
                                   const Tensor vvt = accelera::matmul(full.Vh, full.Vh.transpose(-2, -1));
                                   return std::vector<Tensor>{r.S, accelera::linalg::svdvals(in[0]), usv, utu, vvt};
                                 },
                                 {scaled_ref(Shape(s_shape), values, 3.0), scaled_ref(Shape(s_shape), values, 3.0),
                                  flat_ref(with(bc.batch, m, n), read_back(ia), 3.0), identities(bc.batch, m),
                                  identities(bc.batch, n)},
                                 linalg_tol(dt, std::max(m, n) * 4)});
              }
            }
            return cases;
          }};
}

// ---- qr_factor and householder_product: Q R = a, Q^T Q = I, R upper triangular -----------------------------

Row qr_row(const char* op) {
  return {op, [op](DType dt, std::mt19937_64& rng) {
            if (accelera::is_complex(dt)) return complex_linalg_cases(op, dt, rng);
            std::vector<Case> cases;
            const BatchCase shapes[] = {{{}, 1, 1}, {{}, 7, 3}, {{}, 3, 7}, {{}, 13, 13}, {{3}, 5, 2}};
            for (const BatchCase& bc : shapes) {
              const std::int64_t m = bc.rows, n = bc.cols, count = Shape(bc.batch).numel();
              std::vector<Matrix> a(static_cast<std::size_t>(count));
              for (auto& mat : a) {
                mat.resize(static_cast<std::size_t>(m * n));
                for (auto& x : mat) x = random_value(dt, rng, -1, 1);
              }
              for (const char* mode : {"reduced", "complete"}) {
                const std::int64_t c = std::string(mode) == "complete" ? m : std::min(m, n);
                for (bool t : {false, true}) {
                  Input ia = matrices_input(a, bc.batch, m, n, dt, t);
                  std::vector<Matrix> zeros_below(static_cast<std::size_t>(count), Matrix(static_cast<std::size_t>(c * n)));
                  cases.push_back({case_label(with(bc.batch, m, n), t ? View::transposed : View::contiguous, mode), {ia},
                                   [mode](const std::vector<Tensor>& in, const Device& device) {
                                     const auto r = accelera::linalg::qr(in[0], mode);
                                     const Tensor qtq = accelera::matmul(r.Q.transpose(-2, -1), r.Q);
                                     // R's strict lower triangle: R minus its upper triangle, all zeros.
                                     Tensor mask = Tensor::empty(Shape{r.R.dim(-2), r.R.dim(-1)}, DType::boolean);
                                     for (std::int64_t i = 0; i < r.R.dim(-2); ++i) {
                                       for (std::int64_t j = 0; j < r.R.dim(-1); ++j) mask.data<bool>()[i * r.R.dim(-1) + j] = j < i;
                                     }
                                     const Tensor zero = accelera::zeros(Shape{}, r.R.dtype(), device);
                                     const Tensor below = accelera::where(mask.to(device), r.R, zero);
                                     return std::vector<Tensor>{accelera::matmul(r.Q, r.R), qtq, below};
                                   },
                                   {flat_ref(with(bc.batch, m, n), read_back(ia), 1.0 * static_cast<double>(m)),
                                    identities(bc.batch, c), flat_ref(with(bc.batch, c, n), zeros_below, 1.0)},
                                   linalg_tol(dt, std::max(m, n) * 4)});
                }
              }
            }
            return cases;
          }};
}


// ---- vecdot_rows: vecdot's one-pass dot products, every view, broadcast partners, any axis ----------------

// The float64 dot products of a and b along `axis` (broadcast first), with sum |a_i b_i| as each result's
// magnitude: the kernel's only rounding error scales with it, not with the (possibly cancelled) result.
Ref vecdot_ref(const Tensor& a, const Tensor& b, std::int64_t axis) {
  Shape full;
  ref_broadcast(a.shape(), b.shape(), full);
  std::vector<std::int64_t> kept;
  for (std::int64_t d = 0; d < full.ndim(); ++d) {
    if (d != axis) kept.push_back(full[d]);
  }
  Ref r{Shape(kept), {}, {}};
  for_each_index(Shape(kept), [&](const Index& out_idx, std::int64_t) {
    double total = 0, mag = 0;
    for (std::int64_t k = 0; k < full[axis]; ++k) {
      Index idx = out_idx;
      idx.insert(idx.begin() + axis, k);
      const double p = get(a, broadcast_index(idx, a.shape())) * get(b, broadcast_index(idx, b.shape()));
      total += p, mag += std::fabs(p);
    }
    r.v.push_back(total), r.mag.push_back(mag);
  });
  return r;
}

// The kernel on the views vecdot hands it (both operands broadcast, the vector axis moved last), then the
// public op, which must agree.
std::vector<Tensor> run_vecdot(const std::vector<Tensor>& t, const Device& device, std::int64_t axis) {
  const Shape full = accelera::broadcast_shapes(t[0].shape(), t[1].shape());
  std::vector<std::int64_t> order, kept;
  for (std::int64_t d = 0; d < full.ndim(); ++d) {
    if (d != axis) order.push_back(d), kept.push_back(full[d]);
  }
  order.push_back(axis);
  const Tensor out = Tensor::empty(Shape(kept), t[0].dtype(), device);
  if (out.numel() > 0) {
    accelera::kernel_for(accelera::op::vecdot_rows, device, t[0].dtype())(t[0].broadcast_to(full).permute(order),
                                                                        t[1].broadcast_to(full).permute(order), out);
  }
  return {out, accelera::vecdot(t[0], t[1], axis)};
}

Row vecdot_row() {
  return {"vecdot_rows", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            // (batch..., n): one element, vectors shorter and longer than the vector loop's minimum (16),
            // primes, many short rows, one vector long enough to be split among threads, and no vectors (last:
            // the first case must reach the kernel, whose refusal the runner expects where none is registered).
            const std::vector<Shape> shapes = {Shape{1},     Shape{7},        Shape{3, 15},   Shape{5, 16},
                                               Shape{2, 17}, Shape{4, 3, 41}, Shape{257, 33}, Shape{1, 70001},
                                               Shape{0, 5}};
            for (const Shape& shape : shapes) {
              const std::int64_t n = shape[shape.ndim() - 1], axis = shape.ndim() - 1;
              for (View v : kAllViews) {
                // b: the same shape contiguous, or its vector alone (broadcast over a's batch).
                const Shape b_shape = v == View::broadcast ? Shape{n} : shape;
                Input a = make_input(shape, dt, v, rng);
                Input b = make_input(b_shape, dt, v == View::transposed ? View::negstep : View::contiguous, rng);
                const Ref ref = vecdot_ref(a.host(), b.host(), axis);
                cases.push_back({case_label(shape, v), {a, b},
                                 [axis](const std::vector<Tensor>& t, const Device& device) {
                                   return run_vecdot(t, device, axis);
                                 },
                                 {ref, ref}, accumulated_tol(dt)});
              }
            }
            // Along a leading axis, with a partner broadcast over another axis.
            for (const std::int64_t axis : {0, 1}) {
              Input a = make_input(Shape{19, 6, 5}, dt, View::contiguous, rng);
              Input b = make_input(Shape{19, 6, 1}, dt, View::step2, rng);
              const Ref ref = vecdot_ref(a.host(), b.host(), axis);
              cases.push_back({"(19, 6, 5) axis " + std::to_string(axis), {a, b},
                               [axis](const std::vector<Tensor>& t, const Device& device) {
                                 return run_vecdot(t, device, axis);
                               },
                               {ref, ref}, accumulated_tol(dt)});
            }
            return cases;
          }};
}

}  // namespace

std::vector<Row> linalg_rows() {
  return {lu_solve_row(), lu_factor_row(), cholesky_row(), eigh_row(), svd_row(), qr_row("qr_factor"),
          qr_row("householder_product"), vecdot_row()};
}

}  // namespace acc_test::op_table
