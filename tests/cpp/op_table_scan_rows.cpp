// Rows of the op test table for the scans and nonzero (Note [Op test table] in op_table.hpp; Note [Scans]
// in src/ops/scan.hpp). References run along each line in float64 (integers wrap modulo 2^64).
#include <cmath>

#include "accelera/ops.hpp"
#include "op_table.hpp"

namespace acc_test::op_table {

namespace {

bool integral(DType dt) { return accelera::is_integral(dt); }

// The running sums (or products) of x along `axis`, with the identity first when `initial`.
Ref scan_ref(const Tensor& x, std::int64_t axis, bool product, bool initial) {
  std::vector<std::int64_t> dims = x.shape().dims();
  if (initial) ++dims[static_cast<std::size_t>(axis)];
  Ref r{Shape(dims), std::vector<double>(static_cast<std::size_t>(Shape(dims).numel())), {}};
  r.mag.resize(r.v.size());
  const bool wrap = integral(x.dtype());
  const std::int64_t shift = initial ? 1 : 0;
  // Visit every line through its first element in the result (which has lines even when x is empty
  // along the axis, with include_initial), then walk along the axis.
  for_each_index(r.shape, [&](const Index& start, std::int64_t) {
    if (start[static_cast<std::size_t>(axis)] != 0) return;
    double acc = product ? 1.0 : 0.0, mag = acc;
    std::uint64_t wrapped = product ? 1 : 0;
    const auto at = [&](std::int64_t i) {
      Index o = start;
      o[static_cast<std::size_t>(axis)] = i;
      std::int64_t lin = 0;
      for (std::size_t d = 0; d < o.size(); ++d) lin = lin * dims[d] + o[d];
      return static_cast<std::size_t>(lin);
    };
    if (initial) r.v[at(0)] = acc, r.mag[at(0)] = mag;
    for (std::int64_t i = 0; i < x.dim(axis); ++i) {
      Index xi = start;
      xi[static_cast<std::size_t>(axis)] = i;
      const double v = get(x, xi);
      acc = product ? acc * v : acc + v;
      mag = product ? std::fabs(acc) : mag + std::fabs(v);
      const auto iv = static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
      wrapped = product ? wrapped * iv : wrapped + iv;
      r.v[at(i + shift)] = wrap ? static_cast<double>(static_cast<std::int64_t>(wrapped)) : acc;
      r.mag[at(i + shift)] = mag;
    }
  });
  return r;
}

Row scan_row(const std::string& name, bool product) {
  return {name, [product](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            // {3, 20011}, {257, 3}, {2, 300, 37} and {300, 200} split their axes into blocks on the CPU and
            // on devices ({3, 20011} along axis 0 is 20 column chunks of OpenCL's CPU form, the last one
            // partial; {2, 300, 37} along axis 1 is two 16-lane vectors and 5 single columns); {100003} is
            // one long line, which the CPU also cuts into pieces that advance together (odd remainders).
            for (const Shape& shape : {Shape{7}, Shape{1}, Shape{0, 5}, Shape{13, 31}, Shape{3, 1, 127},
                                       Shape{257, 3}, Shape{2, 3, 4, 5}, Shape{2, 300, 37}, Shape{300, 200},
                                       Shape{3, 20011}, Shape{100003}}) {
              const bool long_axis = shape.numel() > 10000;
              // Products: small integers (they wrap anyway) and floats near 1 (no overflow over long axes).
              const double lo = integral(dt) ? (product ? -3 : -1000) : (product ? (long_axis ? 0.99 : 0.8) : -1);
              const double hi = integral(dt) ? (product ? 3 : 1000) : (product ? (long_axis ? 1.01 : 1.25) : 1);
              for (std::int64_t axis = 0; axis < shape.ndim(); ++axis) {
                for (View v : {View::contiguous, View::transposed, View::negstep}) {
                  const bool initial = (axis + static_cast<std::int64_t>(v)) % 2 == 1;
                  Input in = make_input(shape, dt, v, rng, lo, hi);
                  cases.push_back(
                      {shape.str() + " " + view_name(v) + " axis " + std::to_string(axis) +
                           (initial ? " include_initial" : ""),
                       {in},
                       [axis, product, initial](const std::vector<Tensor>& t, const Device&) {
                         const auto fn = product ? &accelera::cumulative_prod : &accelera::cumulative_sum;
                         return std::vector<Tensor>{fn(t[0], axis, std::nullopt, initial)};
                       },
                       {scan_ref(in.host(), axis, product, initial)},
                       product ? rounded_tol(dt) : accumulated_tol(dt)});
                }
              }
            }
            return cases;
          }};
}

// The row-major coordinates of the nonzero elements of x, one Ref per axis (the flat positions for 0-d x).
std::vector<Ref> nonzero_ref(const Tensor& x) {
  const auto rank = static_cast<std::size_t>(std::max<std::int64_t>(x.ndim(), 1));
  std::vector<std::vector<double>> coordinates(rank);
  for_each_index(x.shape(), [&](const Index& i, std::int64_t lin) {
    if (get(x, i) == 0) return;
    if (x.ndim() == 0) coordinates[0].push_back(static_cast<double>(lin));
    for (std::size_t d = 0; d < i.size(); ++d) coordinates[d].push_back(static_cast<double>(i[d]));
  });
  std::vector<Ref> refs;
  for (auto& c : coordinates) {
    const auto count = static_cast<std::int64_t>(c.size());
    refs.push_back({Shape{count}, c, std::vector<double>(c.size(), 0.0)});
  }
  return refs;
}

// nonzero through the compaction's positions (mask_counts, then compress without values).
Row nonzero_row() {
  return {"mask_counts", [](DType, std::mt19937_64& rng) {
            std::vector<Case> cases;
            for (const Shape& shape : {Shape{}, Shape{1}, Shape{7}, Shape{0, 5}, Shape{13, 31}, Shape{3, 1, 127},
                                       Shape{2, 3, 4, 5}, Shape{100003}}) {
              for (DType x_dtype : {DType::f32, DType::i64, DType::boolean}) {
                for (View v : {View::contiguous, View::transposed, View::step2}) {
                  // Values in [-1, 1] rounded to integers: about a third are zero.
                  Input in = make_input(shape, x_dtype, v, rng, -1, 1);
                  if (x_dtype == DType::f32) in.view = [inner = in.view](const Tensor& t) { return accelera::round(inner(t)); };
                  cases.push_back({shape.str() + " " + view_name(v) + " " + std::string(accelera::dtype_name(x_dtype)),
                                   {in},
                                   [](const std::vector<Tensor>& t, const Device&) {
                                     if (t[0].ndim() == 0) return std::vector<Tensor>{accelera::flat_nonzero(t[0])};
                                     return accelera::nonzero(t[0]);
                                   },
                                   nonzero_ref(in.host()),
                                   Tol{0, 0}});
                }
              }
            }
            return cases;
          }};
}

// masked_select(x, mask) (compress with values): every dtype, views of x and of the mask, masks about a
// third true, all true and all false. {100003} and {1000, 37} are several chunks on every device (the CPU's
// are a quarter of a thread's share; a GPU's 4096 elements), each ending with kept and dropped elements.
Row compress_row() {
  return {"compress", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            for (const Shape& shape : {Shape{}, Shape{1}, Shape{7}, Shape{0, 5}, Shape{13, 31}, Shape{3, 1, 127},
                                       Shape{2, 3, 4, 5}, Shape{1000, 37}, Shape{100003}}) {
              for (View v : {View::contiguous, View::transposed, View::step2}) {
                for (const char* kind : {"a third", "all", "none"}) {
                  if (std::string(kind) != "a third" && v != View::contiguous) continue;
                  Input x = make_input(shape, dt, v, rng, -100, 100);
                  // Values in [lo, hi] rounded to integers: for [-1, 1] about a third are zero.
                  const double lo = std::string(kind) == "all" ? 1 : (std::string(kind) == "none" ? 0 : -1);
                  const double hi = std::string(kind) == "none" ? 0 : 1;
                  // A float mask (its nonzero elements are true) of the same view.
                  Input mask = make_input(shape, DType::f32, v, rng, lo, hi);
                  mask.view = [inner = mask.view](const Tensor& t) { return accelera::round(inner(t)); };
                  const Tensor xs = x.host(), ms = mask.host();
                  Ref expected{Shape{0}, {}, {}};
                  for_each_index(shape, [&](const Index& i, std::int64_t) {
                    if (get(ms, i) != 0) expected.v.push_back(get(xs, i));
                  });
                  expected.shape = Shape{static_cast<std::int64_t>(expected.v.size())};
                  expected.mag.assign(expected.v.size(), 0.0);
                  cases.push_back({shape.str() + " " + view_name(v) + " " + kind + " true", {x, mask},
                                   [](const std::vector<Tensor>& t, const Device&) {
                                     return std::vector<Tensor>{accelera::masked_select(t[0], t[1])};
                                   },
                                   {expected}, Tol{0, 0}});
                }
              }
            }
            return cases;
          }};
}

}  // namespace

std::vector<Row> scan_rows() {
  return {scan_row("cumulative_sum", false), scan_row("cumulative_prod", true), nonzero_row(), compress_row()};
}

}  // namespace acc_test::op_table
