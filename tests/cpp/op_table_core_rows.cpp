// Rows of the op test table for copy, fill, the element-wise functions, the reductions and matmul (Note
// [Op test table] in op_table.hpp).
#include <cmath>
#include <map>

#include "accelera/ops.hpp"
#include "op_table.hpp"
#include "ops/elementwise.hpp"
#include "ops/fill.hpp"
#include "ops/reduce.hpp"

namespace acc_test::op_table {

namespace {

// x converted to dt as NumPy's astype does (in range): the float64 reference of the copy and fill kernels.
double converted(double x, DType dt) {
  switch (dt) {
    case DType::f32: return static_cast<double>(static_cast<float>(x));
    case DType::f64: return x;
    case DType::f16: return round_to_format(x, kHalf);
    case DType::bf16: return round_to_format(x, kBF16);
    case DType::boolean: return x != 0.0 ? 1.0 : 0.0;
    default: return std::trunc(x);  // integers: the comparison wraps it into the dtype (wrap_to)
  }
}

std::string label(const Shape& s, View v, const std::string& extra = "") {
  return s.str() + " " + view_name(v) + (extra.empty() ? "" : " " + extra);
}

Row copy_row() {
  return {"copy", [](DType dst, std::mt19937_64& rng) {
            std::vector<Case> cases;
            for (DType src : accelera::real_dtypes) {
              // 37 x 67 and 3 x 41 x 53, transposed, take the CPU's tiled loops (Note [Tiled strided loops]) with
              // partial tiles on both axes and a batch axis.
              for (const Shape& shape : {Shape{}, Shape{0, 3}, Shape{7}, Shape{13, 31}, Shape{3, 1, 127}, Shape{37, 67},
                                         Shape{3, 41, 53}}) {
                for (View v : {View::contiguous, View::transposed, View::step2, View::negstep, View::offset}) {
                  Input in = make_input(shape, src, v, rng, -100.9, 100.9);
                  Ref ref = ref_unary(in.host(), [dst](double x) { return converted(x, dst); });
                  Case c{label(shape, v, std::string("from ") + std::string(accelera::dtype_name(src))), {in},
                         [dst](const std::vector<Tensor>& t, const Device&) {
                           // astype (contiguous out), and copy_into a transposed view on the same device.
                           std::vector<std::int64_t> rev(t[0].shape().dims().rbegin(), t[0].shape().dims().rend());
                           const Tensor strided = Tensor::empty(Shape(rev), dst, t[0].device()).T();
                           accelera::copy_into(t[0], strided);
                           return std::vector<Tensor>{t[0].astype(dst), strided};
                         },
                         {ref, ref}, Tol{0, 0}};
                  cases.push_back(std::move(c));
                }
              }
            }
            return cases;
          }};
}

Row fill_row() {
  return {"fill", [](DType dt, std::mt19937_64&) {
            std::vector<Case> cases;
            for (const Shape& shape : element_shapes()) {
              for (double value : {0.0, 1.0, -3.0, 5.5}) {
                Ref ref{shape, std::vector<double>(static_cast<std::size_t>(shape.numel()), converted(value, dt)), {}};
                cases.push_back({label(shape, View::contiguous, "value " + std::to_string(value)),
                                 {},
                                 [dt, shape, value](const std::vector<Tensor>&, const Device& device) {
                                   // The public op, and the kernel on a transposed view.
                                   std::vector<std::int64_t> rev(shape.dims().rbegin(), shape.dims().rend());
                                   const Tensor strided = Tensor::empty(Shape(rev), dt, device).T();
                                   if (strided.numel() > 0) accelera::kernel_for(accelera::op::fill, device, dt)(strided, value);
                                   return std::vector<Tensor>{accelera::full(shape, value, dt, device), strided};
                                 },
                                 {ref, ref},
                                 Tol{0, 0}});
              }
            }
            return cases;
          }};
}

// ---- element-wise -----------------------------------------------------------------------------------

struct UnaryReference {
  double lo, hi;  // the input range tested (floats; integers use [-100, 100])
  double (*f)(double);
  double (*boolean_f)(double) = nullptr;  // the bool reference where it differs from f
};

// Integer bit operations of the references, exact for the operands the rows draw.
std::int64_t as_int(double x) { return static_cast<std::int64_t>(x); }

// One entry per function of ACC_UNARY_FUNCTIONS: its float64 reference.
const std::map<std::string, UnaryReference>& unary_references() {
  static const std::map<std::string, UnaryReference> refs = {
      {"negative", {-5, 5, [](double x) { return -x; }}},
      {"exp", {-20, 20, [](double x) { return std::exp(x); }}},
      {"log", {0.01, 10, [](double x) { return std::log(x); }}},
      {"tanh", {-5, 5, [](double x) { return std::tanh(x); }}},
      {"relu", {-5, 5, [](double x) { return x > 0 ? x : 0.0; }}},
      {"sigmoid", {-20, 20, [](double x) { return 1.0 / (1.0 + std::exp(-x)); }}},
      {"abs", {-5, 5, [](double x) { return std::fabs(x); }}},
      {"square", {-5, 5, [](double x) { return x * x; }}},
      {"sqrt", {0, 100, [](double x) { return std::sqrt(x); }}},
      {"sin", {-5, 5, [](double x) { return std::sin(x); }}},
      {"cos", {-5, 5, [](double x) { return std::cos(x); }}},
      {"tan", {-1.5, 1.5, [](double x) { return std::tan(x); }}},
      {"asin", {-1, 1, [](double x) { return std::asin(x); }}},
      {"acos", {-1, 1, [](double x) { return std::acos(x); }}},
      {"atan", {-5, 5, [](double x) { return std::atan(x); }}},
      {"sinh", {-5, 5, [](double x) { return std::sinh(x); }}},
      {"cosh", {-5, 5, [](double x) { return std::cosh(x); }}},
      {"asinh", {-5, 5, [](double x) { return std::asinh(x); }}},
      {"acosh", {1, 10, [](double x) { return std::acosh(x); }}},
      {"atanh", {-0.99, 0.99, [](double x) { return std::atanh(x); }}},
      {"expm1", {-5, 5, [](double x) { return std::expm1(x); }}},
      {"log1p", {-0.9, 10, [](double x) { return std::log1p(x); }}},
      {"log2", {0.01, 10, [](double x) { return std::log2(x); }}},
      {"log10", {0.01, 10, [](double x) { return std::log10(x); }}},
      {"reciprocal", {0.1, 5, [](double x) { return 1.0 / x; }}},
      {"floor", {-5, 5, [](double x) { return std::floor(x); }}},
      {"ceil", {-5, 5, [](double x) { return std::ceil(x); }}},
      {"trunc", {-5, 5, [](double x) { return std::trunc(x); }}},
      {"round", {-5, 5, [](double x) { return std::nearbyint(x); }}},
      {"sign", {-5, 5, [](double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : x == 0 ? 0.0 : x); }}},
      {"positive", {-5, 5, [](double x) { return x; }}},
      {"isnan", {-5, 5, [](double x) { return std::isnan(x) ? 1.0 : 0.0; }}},
      {"isinf", {-5, 5, [](double x) { return std::isinf(x) ? 1.0 : 0.0; }}},
      {"isfinite", {-5, 5, [](double x) { return std::isfinite(x) ? 1.0 : 0.0; }}},
      {"signbit", {-5, 5, [](double x) { return std::signbit(x) ? 1.0 : 0.0; }}},
      {"logical_not", {0, 1, [](double x) { return x == 0 ? 1.0 : 0.0; }}},
      {"bitwise_invert", {0, 1, [](double x) { return static_cast<double>(~as_int(x)); },
                          [](double x) { return x == 0 ? 1.0 : 0.0; }}},
  };
  return refs;
}

// NumPy's floor division and remainder of floats (the quotient snapped to an integer, the remainder with
// the divisor's sign), computed in float64.
double floor_divide_ref(double a, double b) {
  const double mod = std::fmod(a, b);
  if (b == 0) return a / b;
  double div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;
  if (div == 0) return std::copysign(0.0, a / b);
  double floor_div = std::floor(div);
  if (div - floor_div > 0.5) floor_div += 1;
  return floor_div;
}
double remainder_ref(double a, double b) {
  if (b == 0) return std::fmod(a, b);
  double mod = std::fmod(a, b);
  if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;
  return mod == 0 ? std::copysign(0.0, b) : mod;
}
// Integer x // 0 and x % 0 are 0, as in NumPy.
double int_floor_divide_ref(double a, double b) { return b == 0 ? 0.0 : std::floor(a / b); }
double int_remainder_ref(double a, double b) { return b == 0 ? 0.0 : a - b * std::floor(a / b); }

struct BinaryReference {
  double lo, hi;  // range of the second operand (the first uses [-5, 5]; integers [-50, 50])
  double (*f)(double, double);
  double ilo = 1, ihi = 50;                 // the second operand's range for integers
  double (*integer_f)(double, double) = nullptr;  // the integer reference where it differs from f
};

const std::map<std::string, BinaryReference>& binary_references() {
  static const std::map<std::string, BinaryReference> refs = {
      {"add", {-5, 5, [](double x, double y) { return x + y; }}},
      {"subtract", {-5, 5, [](double x, double y) { return x - y; }}},
      {"multiply", {-5, 5, [](double x, double y) { return x * y; }}},
      {"divide", {0.5, 2, [](double x, double y) { return x / y; }}},
      {"maximum", {-5, 5, [](double x, double y) { return std::max(x, y); }}},
      {"minimum", {-5, 5, [](double x, double y) { return std::min(x, y); }}},
      {"pow", {-3, 3, [](double x, double y) { return std::pow(x, y); }, 0, 3}},
      {"atan2", {-5, 5, [](double x, double y) { return std::atan2(x, y); }}},
      {"hypot", {-5, 5, [](double x, double y) { return std::hypot(x, y); }}},
      {"logaddexp", {-5, 5, [](double x, double y) { return std::log(std::exp(x) + std::exp(y)); }}},
      {"copysign", {-5, 5, [](double x, double y) { return std::copysign(x, y); }}},
      // float32's neighbour is its own: the row swaps in nextafterf for float32.
      {"nextafter", {-5, 5, [](double x, double y) { return std::nextafter(x, y); }}},
      {"remainder", {-5, 5, &remainder_ref, -50, 50, &int_remainder_ref}},
      {"floor_divide", {-5, 5, &floor_divide_ref, -50, 50, &int_floor_divide_ref}},
      {"equal", {-5, 5, [](double x, double y) { return x == y ? 1.0 : 0.0; }, -50, 50}},
      {"not_equal", {-5, 5, [](double x, double y) { return x != y ? 1.0 : 0.0; }, -50, 50}},
      {"less", {-5, 5, [](double x, double y) { return x < y ? 1.0 : 0.0; }, -50, 50}},
      {"less_equal", {-5, 5, [](double x, double y) { return x <= y ? 1.0 : 0.0; }, -50, 50}},
      {"greater", {-5, 5, [](double x, double y) { return x > y ? 1.0 : 0.0; }, -50, 50}},
      {"greater_equal", {-5, 5, [](double x, double y) { return x >= y ? 1.0 : 0.0; }, -50, 50}},
      {"logical_and", {0, 1, [](double x, double y) { return x != 0 && y != 0 ? 1.0 : 0.0; }}},
      {"logical_or", {0, 1, [](double x, double y) { return x != 0 || y != 0 ? 1.0 : 0.0; }}},
      {"logical_xor", {0, 1, [](double x, double y) { return (x != 0) != (y != 0) ? 1.0 : 0.0; }}},
      {"bitwise_and", {0, 1, [](double x, double y) { return static_cast<double>(as_int(x) & as_int(y)); }, -50, 50}},
      {"bitwise_or", {0, 1, [](double x, double y) { return static_cast<double>(as_int(x) | as_int(y)); }, -50, 50}},
      {"bitwise_xor", {0, 1, [](double x, double y) { return static_cast<double>(as_int(x) ^ as_int(y)); }, -50, 50}},
      {"bitwise_left_shift", {0, 1, [](double x, double y) { return static_cast<double>(as_int(x) << as_int(y)); }, 0, 20}},
      {"bitwise_right_shift", {0, 1, [](double x, double y) { return static_cast<double>(as_int(x) >> as_int(y)); }, 0, 20}},
  };
  return refs;
}

bool integral(DType dt) { return accelera::is_integral(dt); }

Row unary_row(const std::string& name, accelera::Tensor (*op)(const Tensor&)) {
  return {name, [name, op](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            const auto it = unary_references().find(name);
            if (it == unary_references().end()) {
              ADD_FAILURE() << "the op table has no reference for the element-wise function " << name;
              return cases;
            }
            UnaryReference ref = it->second;
            if (dt == DType::boolean && ref.boolean_f != nullptr) ref.f = ref.boolean_f;
            const double lo = integral(dt) ? -100 : ref.lo, hi = integral(dt) ? 100 : ref.hi;
            for (const Shape& shape : element_shapes()) {
              for (View v : kAllViews) {
                Input in = make_input(shape, dt, v, rng, lo, hi);
                cases.push_back({label(shape, v), {in}, [op](const std::vector<Tensor>& t, const Device&) {
                                   return std::vector<Tensor>{op(t[0])};
                                 },
                                 {ref_unary(in.host(), ref.f)}, rounded_tol(dt)});
              }
            }
            return cases;
          }};
}

Row binary_row(const std::string& name, accelera::Tensor (*op)(const Tensor&, const Tensor&)) {
  return {name, [name, op](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            const auto it = binary_references().find(name);
            if (it == binary_references().end()) {
              ADD_FAILURE() << "the op table has no reference for the element-wise function " << name;
              return cases;
            }
            BinaryReference ref = it->second;
            if (integral(dt) && ref.integer_f != nullptr) ref.f = ref.integer_f;
            if (name == "nextafter" && dt == DType::f32) {
              ref.f = [](double x, double y) {
                return static_cast<double>(std::nextafter(static_cast<float>(x), static_cast<float>(y)));
              };
            }
            const double lo = integral(dt) ? -50 : -5, hi = integral(dt) ? 50 : 5;
            for (const Shape& shape : element_shapes()) {
              for (View v : kAllViews) {
                // b: the same shape in another view, or its last axis alone (broadcast by the op).
                const Shape b_shape = (v == View::broadcast && shape.ndim() > 0) ? Shape{shape[shape.ndim() - 1]} : shape;
                Input a = make_input(shape, dt, v, rng, lo, hi);
                Input b = make_input(b_shape, dt, v == View::transposed ? View::negstep : View::contiguous, rng,
                                     integral(dt) ? ref.ilo : ref.lo, integral(dt) ? ref.ihi : ref.hi);
                Ref expected = ref_binary(a.host(), b.host(), ref.f);
                // Products and quotients round once; the reference's magnitude is the result's.
                cases.push_back({label(shape, v), {a, b}, [op](const std::vector<Tensor>& t, const Device&) {
                                   return std::vector<Tensor>{op(t[0], t[1])};
                                 },
                                 {expected}, rounded_tol(dt)});
              }
            }
            return cases;
          }};
}

std::vector<Row> elementwise_rows() {
  std::vector<Row> out;
  // Every function of the one-line definitions gets a row: a new function without a reference fails.
#define ACC_TABLE_UNARY(name, kind, expression) out.push_back(unary_row(#name, &accelera::name));
#define ACC_TABLE_BINARY(name, kind, expression) out.push_back(binary_row(#name, &accelera::name));
  ACC_UNARY_FUNCTIONS(ACC_TABLE_UNARY)
  ACC_BINARY_FUNCTIONS(ACC_TABLE_BINARY)
#undef ACC_TABLE_UNARY
#undef ACC_TABLE_BINARY
  return out;
}

// where(condition, x1, x2): every view of the condition and x1, x2 broadcast along the last axis.
Row where_row() {
  return {"where", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            for (const Shape& shape : element_shapes()) {
              for (View v : kAllViews) {
                const Shape x2_shape = (v == View::broadcast && shape.ndim() > 0) ? Shape{shape[shape.ndim() - 1]} : shape;
                Input cond = make_input(shape, DType::boolean, v, rng);
                Input x1 = make_input(shape, dt, v, rng, -100, 100);
                Input x2 = make_input(x2_shape, dt, v == View::transposed ? View::negstep : View::contiguous, rng,
                                      -100, 100);
                const Tensor c = cond.host(), a = x1.host(), b = x2.host();
                Ref expected{shape, {}, {}};
                for_each_index(shape, [&](const Index& i, std::int64_t) {
                  expected.v.push_back(get(c, i) != 0 ? get(a, i) : get(b, broadcast_index(i, b.shape())));
                });
                cases.push_back({label(shape, v), {cond, x1, x2}, [](const std::vector<Tensor>& t, const Device&) {
                                   return std::vector<Tensor>{accelera::where(t[0], t[1], t[2])};
                                 },
                                 {expected}, Tol{0, 0}});
              }
              // One operand a scalar (0-d, broadcast): the kernels' dense-or-one-element path.
              for (const bool scalar_first : {false, true}) {
                Input cond = make_input(shape, DType::boolean, View::contiguous, rng);
                Input x = make_input(shape, dt, View::contiguous, rng, -100, 100);
                Input s = make_input(Shape{}, dt, View::contiguous, rng, -100, 100);
                const Tensor c = cond.host(), a = x.host(), b = s.host();
                Ref expected{shape, {}, {}};
                for_each_index(shape, [&](const Index& i, std::int64_t) {
                  const double vx = get(a, i), vs = get(b, Index{});
                  expected.v.push_back(get(c, i) != 0 ? (scalar_first ? vs : vx) : (scalar_first ? vx : vs));
                });
                const auto run = [scalar_first](const std::vector<Tensor>& t, const Device&) {
                  return std::vector<Tensor>{scalar_first ? accelera::where(t[0], t[2], t[1])
                                                          : accelera::where(t[0], t[1], t[2])};
                };
                cases.push_back({label(shape, View::contiguous) + (scalar_first ? " scalar x1" : " scalar x2"),
                                 {cond, x, s}, run, {expected}, Tol{0, 0}});
              }
            }
            return cases;
          }};
}

// ---- reductions -------------------------------------------------------------------------------------

enum class Reduction { sum, mean, max, min, prod };

bool is_extremum(Reduction r) { return r == Reduction::max || r == Reduction::min; }

// The float64 reference of a reduction over `axes` (sorted) with keepdims.
Ref reduce_ref(const Tensor& x, const std::vector<std::int64_t>& axes, Reduction r) {
  std::vector<std::int64_t> kept = x.shape().dims();
  for (auto a : axes) kept[static_cast<std::size_t>(a)] = 1;
  const Shape out_shape(kept);
  const auto n = static_cast<std::size_t>(out_shape.numel());
  const double init = r == Reduction::max ? -kInf : r == Reduction::min ? kInf : r == Reduction::prod ? 1.0 : 0.0;
  std::vector<double> acc(n, init), mag(n, 0.0), count(n, 0.0);
  // Integer products wrap modulo 2^64, as the kernels' (and NumPy's) do.
  std::vector<std::uint64_t> wrapped(n, 1);
  const bool integer_product = r == Reduction::prod && integral(x.dtype());
  for_each_index(x.shape(), [&](const Index& i, std::int64_t) {
    Index o = i;
    for (auto a : axes) o[static_cast<std::size_t>(a)] = 0;
    std::int64_t lin = 0;
    for (std::size_t d = 0; d < o.size(); ++d) lin = lin * kept[d] + o[d];
    const double v = get(x, i);
    auto& slot = acc[static_cast<std::size_t>(lin)];
    switch (r) {
      case Reduction::max: slot = std::isnan(v) || v > slot ? v : slot; break;
      case Reduction::min: slot = std::isnan(v) || v < slot ? v : slot; break;
      case Reduction::prod: slot *= v; break;
      default: slot += v;
    }
    if (integer_product) {
      wrapped[static_cast<std::size_t>(lin)] *= static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
    }
    mag[static_cast<std::size_t>(lin)] += std::fabs(v);
    count[static_cast<std::size_t>(lin)] += 1;
  });
  Ref ref{out_shape, acc, mag};
  for (std::size_t k = 0; k < n; ++k) {
    if (r == Reduction::mean) {
      ref.v[k] /= count[k];
      ref.mag[k] /= count[k];
    } else if (is_extremum(r)) {
      ref.mag[k] = std::fabs(ref.v[k]);
    } else if (r == Reduction::prod) {
      if (integer_product) ref.v[k] = static_cast<double>(static_cast<std::int64_t>(wrapped[k]));
      ref.mag[k] = std::fabs(ref.v[k]);
    }
  }
  return ref;
}

// {3, 20011} splits whole-array reductions into parts, {300, 257} reduces columns one per work-item and
// {20, 1000} 64 columns per work-item (with 16-wide and single columns at the row's end) on OpenCL
// (reduce.cl); {3, 20011} and {13, 31} have tails after whole 16-lane vectors.
const std::vector<Shape>& reduction_shapes() {
  static const std::vector<Shape> shapes = {Shape{},           Shape{7},          Shape{0, 5},      Shape{13, 31},
                                            Shape{3, 1, 127},  Shape{257, 3},     Shape{2, 3, 4, 5}, Shape{3, 20011},
                                            Shape{300, 257},   Shape{20, 1000}};
  return shapes;
}

// The axes a reduction row reduces over a shape: everything, the last axis, the first, and the first and
// last. Each entry: the op's argument ({} for every axis) and the axes it stands for.
std::vector<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>> reduction_axis_sets(const Shape& shape) {
  std::vector<std::vector<std::int64_t>> axis_sets = {{}};
  if (shape.ndim() >= 1) axis_sets.push_back({shape.ndim() - 1});
  if (shape.ndim() >= 2) axis_sets.push_back({0});
  if (shape.ndim() >= 3) axis_sets.push_back({0, shape.ndim() - 1});
  std::vector<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>> out;
  for (const auto& axes_list : axis_sets) {
    std::vector<std::int64_t> axes = axes_list;
    if (axes.empty()) {
      for (std::int64_t i = 0; i < shape.ndim(); ++i) axes.push_back(i);
    }
    out.emplace_back(axes_list, axes);
  }
  return out;
}

Row reduction_row(const std::string& name, Reduction r,
                  accelera::Tensor (*op)(const Tensor&, const accelera::Axes&, bool)) {
  return {name, [r, op](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            // Products of up to 257 factors: integers small (they wrap anyway), floats near 1 (no underflow).
            const bool product = r == Reduction::prod;
            for (const Shape& shape : reduction_shapes()) {
              // Float products of many factors stay nearer 1, so that they neither overflow nor underflow.
              const bool many = shape.numel() > 10000;
              const double lo = integral(dt) ? (product ? -3 : -1000) : (product ? (many ? 0.99 : 0.8) : -1);
              const double hi = integral(dt) ? (product ? 3 : 1000) : (product ? (many ? 1.01 : 1.25) : 1);
              for (const auto& [axes_list, axes] : reduction_axis_sets(shape)) {
                bool empty_reduction = false;
                for (auto a : axes) empty_reduction = empty_reduction || shape[a] == 0;
                if (is_extremum(r) && empty_reduction) continue;  // no identity: the op raises
                for (View v : {View::contiguous, View::transposed, View::step2, View::negstep, View::broadcast}) {
                  Input in = make_input(shape, dt, v, rng, lo, hi);
                  const accelera::Axes op_axes = axes_list.empty() ? accelera::Axes{} : accelera::Axes{axes_list};
                  cases.push_back({label(shape, v, "axes " + shape_str(axes_list)), {in},
                                   [op, op_axes](const std::vector<Tensor>& t, const Device&) {
                                     return std::vector<Tensor>{op(t[0], op_axes, true)};
                                   },
                                   {reduce_ref(in.host(), axes, r)},
                                   is_extremum(r)  ? Tol{0, 0}
                                   : product      ? rounded_tol(dt)
                                                  : accumulated_tol(dt)});
                }
              }
            }
            return cases;
          }};
}

// The float64 sum of (x - center)^2 over `axes` (sorted), keepdims shape; center has that shape.
Ref squared_deviations_ref(const Tensor& x, const Tensor& center, const std::vector<std::int64_t>& axes) {
  std::vector<std::int64_t> kept = x.shape().dims();
  for (auto a : axes) kept[static_cast<std::size_t>(a)] = 1;
  const Shape out_shape(kept);
  std::vector<double> acc(static_cast<std::size_t>(out_shape.numel()), 0.0);
  for_each_index(x.shape(), [&](const Index& i, std::int64_t) {
    Index o = i;
    for (auto a : axes) o[static_cast<std::size_t>(a)] = 0;
    std::int64_t lin = 0;
    for (std::size_t d = 0; d < o.size(); ++d) lin = lin * kept[d] + o[d];
    const double d = get(x, i) - get(center, o);
    acc[static_cast<std::size_t>(lin)] += d * d;
  });
  return {out_shape, acc, acc};  // every term is positive: the sum is its own magnitude
}

Row squared_deviations_row() {
  return {"sum_squared_deviations", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            for (const Shape& shape : reduction_shapes()) {
              if (shape.numel() == 0) continue;  // the op refuses an empty operand (var handles it)
              for (const auto& [axes_list, axes] : reduction_axis_sets(shape)) {
                std::vector<std::int64_t> kept = shape.dims();
                for (auto a : axes) kept[static_cast<std::size_t>(a)] = 1;
                for (View v : {View::contiguous, View::transposed, View::step2, View::negstep, View::broadcast}) {
                  // Values away from zero and centers near them: the deviations are small against the
                  // values, as in var's second pass.
                  Input in = make_input(shape, dt, v, rng, 2.0, 4.0);
                  Input center = contiguous_input(Shape(kept), dt, rng, 2.5, 3.5);
                  const accelera::Axes op_axes = axes_list.empty() ? accelera::Axes{} : accelera::Axes{axes_list};
                  cases.push_back({label(shape, v, "axes " + shape_str(axes_list)), {in, center},
                                   [op_axes](const std::vector<Tensor>& t, const Device&) {
                                     return std::vector<Tensor>{accelera::sum_squared_deviations(t[0], t[1], op_axes)};
                                   },
                                   {squared_deviations_ref(in.host(), center.host(), axes)},
                                   accumulated_tol(dt)});
                }
              }
            }
            return cases;
          }};
}

// ---- argmax / argmin ---------------------------------------------------------------------------------

// The index of the first extremum over `axes` (sorted; all of them for a flattened search), counted in
// row-major order over the reduced axes; the first nan wins. keepdims shape.
Ref arg_extremum_ref(const Tensor& x, const std::vector<std::int64_t>& axes, bool is_max) {
  std::vector<std::int64_t> kept = x.shape().dims(), reduced_dims;
  for (auto a : axes) {
    reduced_dims.push_back(x.shape()[a]);
    kept[static_cast<std::size_t>(a)] = 1;
  }
  const Shape out_shape(kept);
  const auto n = static_cast<std::size_t>(out_shape.numel());
  std::vector<double> best(n, 0.0), at(n, -1.0);
  for_each_index(x.shape(), [&](const Index& i, std::int64_t) {
    std::int64_t lin = 0, r = 0;
    Index o = i;
    for (std::size_t k = 0; k < axes.size(); ++k) {
      r = r * reduced_dims[k] + i[static_cast<std::size_t>(axes[k])];
      o[static_cast<std::size_t>(axes[k])] = 0;
    }
    for (std::size_t d = 0; d < o.size(); ++d) lin = lin * kept[d] + o[d];
    const auto slot = static_cast<std::size_t>(lin);
    const double v = get(x, i);
    // for_each_index visits in row-major order of x, which is not the reduced order when a reduced axis
    // precedes a kept one: compare indices on ties.
    const bool take = at[slot] < 0 ||
                      (std::isnan(best[slot]) ? std::isnan(v) && r < at[slot]
                                              : std::isnan(v) || (is_max ? v > best[slot] : v < best[slot]) ||
                                                    (v == best[slot] && r < at[slot]));
    if (take) best[slot] = v, at[slot] = static_cast<double>(r);
  });
  return {out_shape, at, std::vector<double>(n, 0.0)};
}

Row arg_extremum_row(const std::string& name, bool is_max) {
  return {name, [is_max](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            // Integers from a narrow range, so that ties (the first one wins) are common.
            const double lo = integral(dt) ? -20 : -1, hi = integral(dt) ? 20 : 1;
            // {3, 20011}: whole-array and row searches split into parts on OpenCL (arg_extremum.cl).
            for (const Shape& shape : {Shape{}, Shape{1}, Shape{7}, Shape{13, 31}, Shape{3, 1, 127}, Shape{257, 3},
                                       Shape{2, 3, 4, 5}, Shape{0, 4}, Shape{3, 20011}}) {
              std::vector<std::optional<std::int64_t>> axis_choices = {std::nullopt};
              for (std::int64_t a = 0; a < shape.ndim(); ++a) axis_choices.push_back(a);
              for (const auto& axis : axis_choices) {
                std::vector<std::int64_t> axes;
                if (axis) axes.push_back(*axis);
                else for (std::int64_t i = 0; i < shape.ndim(); ++i) axes.push_back(i);
                bool empty_reduction = false;
                for (auto a : axes) empty_reduction = empty_reduction || shape[a] == 0;
                if (empty_reduction) continue;  // no answer: the op raises
                for (View v : {View::contiguous, View::transposed, View::negstep, View::broadcast}) {
                  Input in = make_input(shape, dt, v, rng, lo, hi);
                  const auto fn = is_max ? &accelera::argmax : &accelera::argmin;
                  cases.push_back({label(shape, v, axis ? "axis " + std::to_string(*axis) : "flattened"), {in},
                                   [fn, axis](const std::vector<Tensor>& t, const Device&) {
                                     return std::vector<Tensor>{fn(t[0], axis, true)};
                                   },
                                   {arg_extremum_ref(in.host(), axes, is_max)}, Tol{0, 0}});
                }
              }
            }
            return cases;
          }};
}

// ---- matmul -----------------------------------------------------------------------------------------

Ref matmul_ref(const Tensor& a, const Tensor& b) {
  // a (..., m, k), b (..., k, n) with equal batch shapes (the cases broadcast them beforehand).
  const std::int64_t m = a.dim(-2), k = a.dim(-1), n = b.dim(-1);
  std::vector<std::int64_t> dims(a.shape().dims().begin(), a.shape().dims().end() - 2);
  const Shape batch(dims);
  dims.insert(dims.end(), {m, n});
  Ref r{Shape(dims), {}, {}};
  for_each_index(batch, [&](const Index& bi, std::int64_t) {
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        double s = 0, mag = 0;
        for (std::int64_t p = 0; p < k; ++p) {
          Index ia = bi, ib = bi;
          ia.insert(ia.end(), {i, p});
          ib.insert(ib.end(), {p, j});
          const double prod = get(a, ia) * get(b, ib);
          s += prod;
          mag += std::fabs(prod);
        }
        r.v.push_back(s);
        r.mag.push_back(mag);
      }
    }
  });
  return r;
}

Row matmul_row() {
  return {"matmul", [](DType dt, std::mt19937_64& rng) {
            std::vector<Case> cases;
            struct Dims {
              std::vector<std::int64_t> batch;
              std::int64_t m, k, n;
            };
            const Dims dims[] = {{{}, 1, 1, 1},   {{}, 7, 13, 5},    {{}, 0, 3, 4}, {{}, 3, 0, 4},
                                 {{}, 33, 65, 17}, {{2, 3}, 5, 7, 4}, {{1}, 1, 129, 2}};
            for (const Dims& d : dims) {
              auto with = [&](std::int64_t r, std::int64_t c) {
                std::vector<std::int64_t> s = d.batch;
                s.insert(s.end(), {r, c});
                return Shape(s);
              };
              for (View va : {View::contiguous, View::transposed, View::step2, View::negstep}) {
                const View vb = va == View::contiguous ? View::transposed : View::contiguous;
                Input a = make_input(with(d.m, d.k), dt, va, rng);
                Input b = make_input(with(d.k, d.n), dt, vb, rng);
                Ref ref = matmul_ref(a.host(), b.host());
                // out += a @ b into a transposed (non-contiguous) view holding ones: the accumulate path.
                Ref accumulated = ref;
                for (auto& v : accumulated.v) v += 1.0;
                for (auto& m : accumulated.mag) m += 1.0;
                cases.push_back({label(with(d.m, d.k), va, "@ " + with(d.k, d.n).str()), {a, b},
                                 [dt](const std::vector<Tensor>& t, const Device& device) {
                                   const Tensor product = accelera::matmul(t[0], t[1]);
                                   std::vector<std::int64_t> rev(product.shape().dims().rbegin(),
                                                                 product.shape().dims().rend());
                                   const Tensor out = accelera::ones(Shape(rev), dt, device).T();
                                   accelera::matmul_into(t[0], t[1], out, /*accumulate=*/true);
                                   return std::vector<Tensor>{product, out};
                                 },
                                 {ref, accumulated}, accumulated_tol(dt)});
              }
            }
            return cases;
          }};
}

}  // namespace

std::vector<Row> core_rows() {
  std::vector<Row> out = {copy_row(), fill_row(), matmul_row(),
                          reduction_row("sum", Reduction::sum, &accelera::sum),
                          reduction_row("mean", Reduction::mean, &accelera::mean),
                          reduction_row("max", Reduction::max, &accelera::max),
                          reduction_row("min", Reduction::min, &accelera::min),
                          reduction_row("prod", Reduction::prod, &accelera::prod),
                          squared_deviations_row(),
                          arg_extremum_row("argmax", true),
                          arg_extremum_row("argmin", false)};
  for (auto& row : elementwise_rows()) out.push_back(std::move(row));
  out.push_back(where_row());
  return out;
}

}  // namespace acc_test::op_table
