#pragma once
// Note [Op test table]
// One table runs every op of the kernel table on every device, in every dtype that device registers for
// it, against float64 references (ggml's test-backend-ops is the model). A row names the op's table entry
// and makes, for a dtype, its cases: inputs built on the host as views of a base tensor (contiguous,
// transposed, stepped, reversed, broadcast, at an offset), the call of the public op (or the kernel),
// and the expected results computed in float64 from the host views. The runner copies each base to the
// device and takes the same view there, poisons the device's cached blocks of the output sizes, runs,
// and compares. Shapes include 0, 1, primes and tile sizes + 1. Rows of backward ops check their
// float64 reference against finite differences of the forward reference too, so the kernel is tied to
// the forward it differentiates. The registry, not the table, says which dtypes run where: a registered
// (op, device kind) without a row fails OpTableCoverage, which also prints the coverage matrix.
#include <functional>
#include <string>
#include <vector>

#include "helpers.hpp"

namespace acc_test::op_table {

// A view of a base tensor: the same view is taken of the base's copy on the device under test.
struct Input {
  Tensor base;
  std::function<Tensor(const Tensor&)> view = [](const Tensor& t) { return t; };
  Tensor host() const { return view(base); }
  Tensor on(const Device& d) const { return view(base.to(d)); }
};

enum class View { contiguous, transposed, step2, negstep, broadcast, offset };
inline constexpr View kAllViews[] = {View::contiguous, View::transposed, View::step2,
                                     View::negstep,    View::broadcast,  View::offset};
const char* view_name(View v);

// A random input of `shape` in dtype `dt` (values in [lo, hi], rounded to dt) laid out as `view`; the
// gaps of strided bases are poisoned. broadcast draws extents of 1 at random.
Input make_input(const Shape& shape, DType dt, View view, std::mt19937_64& rng, double lo = -1.0, double hi = 1.0);
inline Input contiguous_input(const Shape& shape, DType dt, std::mt19937_64& rng, double lo = -1.0, double hi = 1.0) {
  return make_input(shape, dt, View::contiguous, rng, lo, hi);
}

struct Case {
  std::string label;  // shape, view and parameters, for failure messages
  std::vector<Input> inputs;
  // Runs the op on the device inputs (in the order of `inputs`; `device` is where they are) and returns
  // its results.
  std::function<std::vector<Tensor>(const std::vector<Tensor>& inputs, const Device& device)> run;
  std::vector<Ref> expected;  // one per result
  Tol tol;
};

struct Row {
  std::string op;  // its name in the kernel table
  std::function<std::vector<Case>(DType, std::mt19937_64&)> cases;
};

// Every row; the runner and the coverage test read it.
const std::vector<Row>& rows();
// The rows of each part of the table (op_table_*_rows.cpp).
std::vector<Row> core_rows();
std::vector<Row> nn_rows();
std::vector<Row> random_rows();
std::vector<Row> scan_rows();
std::vector<Row> sort_rows();
std::vector<Row> linalg_rows();
std::vector<Row> window_rows();
std::vector<Row> optimizer_rows();
std::vector<Row> complex_rows();
// The cases of a factorisation's row (lu_solve, lu_factor, cholesky, qr_factor, householder_product) in a
// complex dtype (op_table_complex_rows.cpp).
std::vector<Case> complex_linalg_cases(const std::string& op, DType dt, std::mt19937_64& rng);

// Tolerances: of a result rounded once into dt, and of one that sums many terms in dt's precision (half
// formats accumulate in float32 and round the result to the half format).
Tol rounded_tol(DType dt);
Tol accumulated_tol(DType dt);

// Checks `dx`, the float64 vector-Jacobian product claimed for grad at x, against central differences of
// the float64 forward `f` along random directions (gradient checking of the reference itself). Returns an
// empty string or what was wrong.
std::string check_vjp(const std::function<std::vector<double>(const std::vector<double>&)>& f,
                      const std::vector<double>& x, const std::vector<double>& grad, const std::vector<double>& dx,
                      std::mt19937_64& rng);

// The shapes a row iterates: empty, one element, primes, a tile size + 1.
// 19 x 37 transposed takes the CPU's tiled loops (Note [Tiled strided loops]), a partial tile on each axis.
inline const std::vector<Shape>& element_shapes() {
  static const std::vector<Shape> shapes = {Shape{},      Shape{1},     Shape{0, 5},       Shape{7},
                                            Shape{19, 37}, Shape{3, 1, 127}, Shape{2, 3, 4, 5}, Shape{257, 3}};
  return shapes;
}
inline const std::vector<Shape>& row_shapes() {  // (rows..., n) with n >= 1
  static const std::vector<Shape> shapes = {Shape{1},    Shape{1, 1, 1023}, Shape{7, 13},
                                            Shape{0, 5}, Shape{3, 1, 127},  Shape{257, 33}};
  return shapes;
}

}  // namespace acc_test::op_table
