// The op test table's inputs, tolerances and gradient check (Note [Op test table] in op_table.hpp).
#include "op_table.hpp"

#include <cmath>
#include <sstream>

namespace acc_test::op_table {

const char* view_name(View v) {
  switch (v) {
    case View::contiguous: return "contiguous";
    case View::transposed: return "transposed";
    case View::step2: return "step2";
    case View::negstep: return "negstep";
    case View::broadcast: return "broadcast";
    case View::offset: return "offset";
  }
  return "?";
}

namespace {

// A contiguous base of `dims` whose every element is poison, then `region` of it filled at random.
Tensor poisoned_base(const std::vector<std::int64_t>& dims, DType dt) {
  Tensor base = Tensor::empty(Shape(dims), dt);
  poison(base);
  return base;
}

}  // namespace

Input make_input(const Shape& shape, DType dt, View view, std::mt19937_64& rng, double lo, double hi) {
  const std::vector<std::int64_t> d = shape.dims();
  const auto n = static_cast<std::int64_t>(d.size());
  Input in;
  switch (view) {
    case View::contiguous:
      in.base = random_tensor(shape, dt, rng, lo, hi);
      return in;
    case View::transposed: {
      const std::vector<std::int64_t> rev(d.rbegin(), d.rend());
      in.base = random_tensor(Shape(rev), dt, rng, lo, hi);
      in.view = [](const Tensor& t) { return t.T(); };
      return in;
    }
    case View::step2: {
      std::vector<std::int64_t> dims;
      for (auto e : d) dims.push_back(2 * e + 1);
      in.base = poisoned_base(dims, dt);
      in.view = [n, d](const Tensor& t) {
        Tensor v = t;
        for (std::int64_t i = 0; i < n; ++i) v = v.slice(i, 1, 2 * d[static_cast<std::size_t>(i)] + 1, 2);
        return v;
      };
      break;
    }
    case View::negstep:
      in.base = random_tensor(shape, dt, rng, lo, hi);
      in.view = [n](const Tensor& t) {
        Tensor v = t;
        for (std::int64_t i = 0; i < n; ++i) v = v.slice(i, -1, std::numeric_limits<std::int64_t>::min(), -1);
        return v;
      };
      return in;
    case View::broadcast: {
      std::vector<std::int64_t> dims;
      for (auto e : d) dims.push_back(std::bernoulli_distribution(0.5)(rng) ? 1 : e);
      in.base = random_tensor(Shape(dims), dt, rng, lo, hi);
      in.view = [shape](const Tensor& t) { return t.broadcast_to(shape); };
      return in;
    }
    case View::offset: {
      // The view starts one element into a flat poisoned base: a non-zero offset, contiguous strides.
      in.base = poisoned_base({shape.numel() + 1}, dt);
      in.view = [d](const Tensor& t) { return t.slice(0, 1, t.dim(0)).reshape(d); };
      break;
    }
  }
  fill_random(in.host(), rng, lo, hi);  // the view's elements; the gaps keep their poison
  return in;
}

Tol rounded_tol(DType dt) { return tol_for(dt); }

Tol accumulated_tol(DType dt) {
  switch (dt) {
    case DType::f32: return {2e-5, 2e-6};
    case DType::f64: return {1e-11, 1e-12};
    case DType::f16: return {2e-3, 1e-3};   // the result is rounded to 11 bits (4.9e-4) after float32 sums
    case DType::bf16: return {1.6e-2, 8e-3};  // 8 bits (3.9e-3)
    default: return {0, 0};
  }
}

std::string check_vjp(const std::function<std::vector<double>(const std::vector<double>&)>& f,
                      const std::vector<double>& x, const std::vector<double>& grad, const std::vector<double>& dx,
                      std::mt19937_64& rng) {
  // g . (J u) = (J^T g) . u for any direction u; J u by central differences in float64.
  std::normal_distribution<double> normal(0.0, 1.0);
  for (int trial = 0; trial < 3; ++trial) {
    std::vector<double> u(x.size());
    for (auto& v : u) v = normal(rng);
    const double h = 1e-6;
    std::vector<double> plus = x, minus = x;
    for (std::size_t i = 0; i < x.size(); ++i) {
      plus[i] += h * u[i];
      minus[i] -= h * u[i];
    }
    const auto fp = f(plus), fm = f(minus);
    double numeric = 0, roundoff = 0;
    for (std::size_t j = 0; j < fp.size(); ++j) {
      numeric += grad[j] * (fp[j] - fm[j]) / (2 * h);
      roundoff += std::fabs(grad[j]) * (std::fabs(fp[j]) + std::fabs(fm[j])) * 1.2e-16 / (2 * h);
    }
    double analytic = 0, magnitude = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      analytic += dx[i] * u[i];
      magnitude += std::fabs(dx[i] * u[i]);
    }
    // Central differences err by O(h^2 f''') and by the rounding of f, about eps |f| / h.
    const double allowed = 1e-6 * (magnitude + std::fabs(numeric)) + 10 * roundoff + 1e-12;
    if (!(std::fabs(numeric - analytic) <= allowed)) {
      std::ostringstream msg;
      msg.precision(17);
      msg << "the float64 gradient disagrees with finite differences: " << analytic << " vs " << numeric;
      return msg.str();
    }
  }
  return {};
}

const std::vector<Row>& rows() {
  static const std::vector<Row> all = [] {
    std::vector<Row> r = core_rows();
    for (auto& row : nn_rows()) r.push_back(std::move(row));
    for (auto& row : random_rows()) r.push_back(std::move(row));
    for (auto& row : scan_rows()) r.push_back(std::move(row));
    for (auto& row : sort_rows()) r.push_back(std::move(row));
    for (auto& row : linalg_rows()) r.push_back(std::move(row));
    for (auto& row : window_rows()) r.push_back(std::move(row));
    for (auto& row : optimizer_rows()) r.push_back(std::move(row));
    for (auto& row : complex_rows()) r.push_back(std::move(row));
    return r;
  }();
  return all;
}

}  // namespace acc_test::op_table
