// Element-wise ops against float64 references: every layout, broadcasting, promotion, special values,
// and dense accuracy sweeps of exp, log and tanh.
#include <functional>
#include <iomanip>

#include "helpers.hpp"

using namespace accelera;
using namespace acc_test;

namespace {

using BinaryFn = Tensor (*)(const Tensor&, const Tensor&);
using UnaryFn = Tensor (*)(const Tensor&);

struct BinaryCase {
  const char* name;
  BinaryFn op;
  double (*ref)(double, double);
};
const BinaryCase kBinary[] = {
    {"add", &accelera::add, [](double a, double b) { return a + b; }},
    {"subtract", &accelera::subtract, [](double a, double b) { return a - b; }},
    {"multiply", &accelera::multiply, [](double a, double b) { return a * b; }},
    {"divide", &accelera::divide, [](double a, double b) { return a / b; }},
};

struct UnaryCase {
  const char* name;
  UnaryFn op;
  double (*ref)(double);
  double lo, hi;  // input range for random tests
  bool keeps_int;  // neg and relu keep integer dtypes; the rest compute integers in float64
};
double ref_relu(double x) { return std::isnan(x) ? x : (x > 0 ? x : 0.0); }
double ref_sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
const UnaryCase kUnary[] = {
    {"neg", &accelera::neg, [](double x) { return -x; }, -1000, 1000, true},
    {"exp", &accelera::exp, [](double x) { return std::exp(x); }, -5, 5, false},
    {"log", &accelera::log, [](double x) { return std::log(x); }, 0.01, 1000, false},
    {"tanh", &accelera::tanh, [](double x) { return std::tanh(x); }, -20, 20, false},
    {"relu", &accelera::relu, &ref_relu, -1000, 1000, true},
    {"sigmoid", &accelera::sigmoid, &ref_sigmoid, -20, 20, false},
};

constexpr DType kComputed[] = {DType::f32, DType::f64, DType::i32, DType::i64};

std::string trace(const char* op, DType a, DType b, Layout la, Layout lb, const Shape& sa, const Shape& sb) {
  return fmt::format("{}({} {} {}, {} {} {})", op, dtype_name(a), layout_name(la), sa.str(), dtype_name(b),
                     layout_name(lb), sb.str());
}

// Runs one binary op on fresh inputs and checks it against the reference; inputs must be unchanged.
void check_binary(const BinaryCase& c, DType da, DType db, Layout la, Layout lb, const Shape& sa, const Shape& sb,
                  std::mt19937_64& rng) {
  SCOPED_TRACE(trace(c.name, da, db, la, lb, sa, sb));
  const double lo = is_float(da) ? -1.0 : -1000.0, hi = -lo;
  const Tensor a = make_input(sa, da, la, rng, lo, hi);
  const Tensor b = make_input(sb, db, lb, rng, is_float(db) ? -1.0 : -1000.0, is_float(db) ? 1.0 : 1000.0);
  const auto a_bytes = storage_bytes(a), b_bytes = storage_bytes(b);
  DType expected = promote_types(da, db);
  if (c.op == &accelera::divide && !is_float(expected)) expected = DType::f64;
  const Ref ref = ref_binary(a, b, c.ref);
  poison_cache(static_cast<std::size_t>(ref.shape.numel()) * dtype_size(expected));
  const Tensor out = c.op(a, b);
  EXPECT_EQ(out.dtype(), expected);
  EXPECT_TRUE(out.is_contiguous());
  EXPECT_FALSE(out.shares_storage_with(a) || out.shares_storage_with(b));
  EXPECT_TRUE(matches(out, ref, tol_for(expected)));
  EXPECT_EQ(storage_bytes(a), a_bytes);
  EXPECT_EQ(storage_bytes(b), b_bytes);
}

void check_unary(const UnaryCase& c, DType dt, Layout layout, const Shape& shape, std::mt19937_64& rng) {
  SCOPED_TRACE(fmt::format("{}({} {} {})", c.name, dtype_name(dt), layout_name(layout), shape.str()));
  const Tensor x = make_input(shape, dt, layout, rng, c.lo, c.hi);
  const auto x_bytes = storage_bytes(x);
  const DType expected = (c.keeps_int || is_float(dt)) ? dt : DType::f64;
  const Ref ref = ref_unary(x, c.ref);
  poison_cache(static_cast<std::size_t>(shape.numel()) * dtype_size(expected));
  const Tensor out = c.op(x);
  EXPECT_EQ(out.dtype(), expected);
  EXPECT_FALSE(out.shares_storage_with(x));
  EXPECT_TRUE(matches(out, ref, tol_for(expected)));
  EXPECT_EQ(storage_bytes(x), x_bytes);
}

const std::vector<std::pair<Shape, Shape>> kBinaryShapes = {
    {Shape{}, Shape{}},          {Shape{0}, Shape{0}},          {Shape{1}, Shape{1}},
    {Shape{7}, Shape{7}},        {Shape{13}, Shape{1}},         {Shape{}, Shape{31}},
    {Shape{127}, Shape{127}},    {Shape{7, 1}, Shape{1, 13}},   {Shape{13}, Shape{7, 13}},
    {Shape{2, 1, 5}, Shape{3, 1}}, {Shape{0, 3}, Shape{1, 3}},  {Shape{1}, Shape{0}},
    {Shape{3, 31}, Shape{3, 31}}, {Shape{5, 1, 7}, Shape{5, 13, 7}}, {Shape{31, 0, 2}, Shape{2}},
};

const std::vector<Shape> kUnaryShapes = {Shape{},     Shape{0},      Shape{1},       Shape{7},
                                         Shape{13},   Shape{31},     Shape{127},     Shape{7, 13},
                                         Shape{3, 0}, Shape{1, 31},  Shape{13, 1, 7}, Shape{2, 3, 5}};

}  // namespace

// ---- binary ops -------------------------------------------------------------------------------------

class BinaryOps : public ::testing::TestWithParam<int> {};

TEST_P(BinaryOps, MatchReferenceOnAllLayoutsAndShapes) {
  const BinaryCase& c = kBinary[GetParam()];
  std::mt19937_64 rng(100 + GetParam());
  for (DType dt : kComputed) {
    for (const auto& [sa, sb] : kBinaryShapes) {
      for (Layout la : kAllLayouts) {
        for (Layout lb : kAllLayouts) check_binary(c, dt, dt, la, lb, sa, sb, rng);
      }
    }
  }
}

// Large enough for the multithreaded loops, with strided and broadcast operands.
TEST_P(BinaryOps, LargeInputsSplitAcrossThreads) {
  const BinaryCase& c = kBinary[GetParam()];
  std::mt19937_64 rng(200 + GetParam());
  const std::pair<Layout, Layout> layouts[] = {{Layout::contiguous, Layout::contiguous},
                                               {Layout::transposed, Layout::step2},
                                               {Layout::negstep, Layout::broadcast},
                                               {Layout::broadcast, Layout::contiguous}};
  for (DType dt : {DType::f32, DType::f64, DType::i32}) {
    for (auto [la, lb] : layouts) {
      check_binary(c, dt, dt, la, lb, Shape{257, 131}, Shape{257, 131}, rng);
      check_binary(c, dt, dt, la, lb, Shape{257, 131}, Shape{131}, rng);
    }
    // Note [Balanced element-wise loops]: many chunks in the shared half, the last one partial.
    check_binary(c, dt, dt, Layout::contiguous, Layout::broadcast, Shape{1031, 523}, Shape{523}, rng);
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, BinaryOps, ::testing::Range(0, 4),
                         [](const auto& info) { return std::string(kBinary[info.param].name); });

TEST(Binary, DTypePromotion) {
  std::mt19937_64 rng(17);
  const std::pair<DType, DType> pairs[] = {
      {DType::f32, DType::f64}, {DType::f64, DType::f32}, {DType::i32, DType::f32}, {DType::f32, DType::i64},
      {DType::i32, DType::i64}, {DType::i64, DType::i32}, {DType::boolean, DType::f32}, {DType::i32, DType::boolean},
      {DType::f16, DType::f32}, {DType::bf16, DType::f64}, {DType::i32, DType::f64}};
  for (const auto& c : kBinary) {
    for (auto [da, db] : pairs) {
      check_binary(c, da, db, Layout::contiguous, Layout::broadcast, Shape{7, 13}, Shape{7, 13}, rng);
      check_binary(c, da, db, Layout::step2, Layout::contiguous, Shape{13}, Shape{7, 13}, rng);
    }
  }
  // The promoted dtypes, explicitly.
  EXPECT_EQ(add(zeros(Shape{2}, DType::f32), zeros(Shape{2}, DType::f64)).dtype(), DType::f64);
  EXPECT_EQ(add(zeros(Shape{2}, DType::i32), zeros(Shape{2}, DType::f32)).dtype(), DType::f64);
  EXPECT_EQ(add(zeros(Shape{2}, DType::i32), zeros(Shape{2}, DType::i64)).dtype(), DType::i64);
  EXPECT_EQ(divide(ones(Shape{2}, DType::i32), ones(Shape{2}, DType::i32)).dtype(), DType::f64);
  EXPECT_EQ(divide(ones(Shape{2}, DType::f32), ones(Shape{2}, DType::f32)).dtype(), DType::f32);
}

TEST(Binary, IntegerDivisionIsTrueDivision) {
  const Tensor a = Tensor::empty(Shape{6}, DType::i32);
  const Tensor b = Tensor::empty(Shape{6}, DType::i64);
  const std::int64_t av[] = {7, -7, 1, 0, 5, -3}, bv[] = {2, 2, 3, 0, 0, 0};
  for (std::int64_t i = 0; i < 6; ++i) {
    set_int(a, {i}, av[i]);
    set_int(b, {i}, bv[i]);
  }
  const Tensor q = divide(a, b);
  ASSERT_EQ(q.dtype(), DType::f64);
  const double want[] = {3.5, -3.5, 1.0 / 3.0, kNaN, kInf, -kInf};
  Ref ref{Shape{6}, std::vector<double>(std::begin(want), std::end(want)), {}};
  EXPECT_TRUE(matches(q, ref, tol_for(DType::f64)));
}

// NumPy integer arithmetic wraps around.
TEST(Binary, IntegerOverflowWraps) {
  const auto wrap32 = [](std::int64_t v) {
    return static_cast<std::int64_t>(static_cast<std::int32_t>(static_cast<std::uint32_t>(v)));
  };
  const Tensor a = Tensor::empty(Shape{4}, DType::i32), b = Tensor::empty(Shape{4}, DType::i32);
  const std::int64_t av[] = {INT32_MAX, INT32_MIN, 65536, -65536}, bv[] = {1, -1, 65536, 65537};
  for (std::int64_t i = 0; i < 4; ++i) {
    set_int(a, {i}, av[i]);
    set_int(b, {i}, bv[i]);
  }
  const Tensor s = add(a, b), d = subtract(a, b), m = multiply(a, b), n = neg(a);
  for (std::int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(get_int(s, {i}), wrap32(av[i] + bv[i])) << i;
    EXPECT_EQ(get_int(d, {i}), wrap32(av[i] - bv[i])) << i;
    EXPECT_EQ(get_int(m, {i}), wrap32(av[i] * bv[i])) << i;
    EXPECT_EQ(get_int(n, {i}), wrap32(-av[i])) << i;
  }
  const Tensor big = full(Shape{1}, 0.0, DType::i64);
  set_int(big, {0}, INT64_MIN);
  EXPECT_EQ(get_int(neg(big), {0}), INT64_MIN);
  EXPECT_EQ(get_int(subtract(big, ones(Shape{1}, DType::i64)), {0}), INT64_MAX);
}

TEST(Binary, FloatSpecialValues) {
  const std::vector<double> v = {0.0, -0.0, 1.0, -1.0, kInf, -kInf, kNaN, 1e300, 1e-300};
  for (DType dt : {DType::f32, DType::f64}) {
    const std::int64_t n = static_cast<std::int64_t>(v.size());
    const Tensor col = Tensor::empty(Shape{n, 1}, dt), row = Tensor::empty(Shape{n}, dt);
    for (std::int64_t i = 0; i < n; ++i) {
      set(col, {i, 0}, v[static_cast<std::size_t>(i)]);
      set(row, {i}, v[static_cast<std::size_t>(i)]);
    }
    for (const auto& c : kBinary) {
      SCOPED_TRACE(std::string(c.name) + " " + std::string(dtype_name(dt)));
      EXPECT_TRUE(matches(c.op(col, row), ref_binary(col, row, c.ref), tol_for(dt)));
    }
  }
}

// ---- unary ops --------------------------------------------------------------------------------------

class UnaryOps : public ::testing::TestWithParam<int> {};

TEST_P(UnaryOps, MatchReferenceOnAllLayoutsAndShapes) {
  const UnaryCase& c = kUnary[GetParam()];
  std::mt19937_64 rng(300 + GetParam());
  for (DType dt : kComputed) {
    for (const Shape& shape : kUnaryShapes) {
      for (Layout layout : kAllLayouts) check_unary(c, dt, layout, shape, rng);
    }
    for (Layout layout : kAllLayouts) check_unary(c, dt, layout, Shape{131, 257}, rng);
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, UnaryOps, ::testing::Range(0, 6),
                         [](const auto& info) { return std::string(kUnary[info.param].name); });

TEST(Unary, FloatSpecialValues) {
  const double m32 = std::numeric_limits<float>::max();
  const std::vector<double> v = {0.0,   -0.0, 1.0,  -1.0, kInf, -kInf, kNaN, 1e-30, -1e-30, 100.0, -100.0,
                                 1e-40, m32,  -m32, 0.5,  -0.5, 0.625, -0.625, 0.62, 20.0, -20.0, 50.0, -50.0};
  for (DType dt : {DType::f32, DType::f64}) {
    const Tensor x = Tensor::empty(Shape{static_cast<std::int64_t>(v.size())}, dt);
    for (std::size_t i = 0; i < v.size(); ++i) set(x, {static_cast<std::int64_t>(i)}, v[i]);
    for (const auto& c : kUnary) {
      SCOPED_TRACE(std::string(c.name) + " " + std::string(dtype_name(dt)));
      Tol tol = tol_for(dt);
      // exp(-x) overflowing in sigmoid flushes results below the normal range to zero.
      tol.atol = dt == DType::f32 ? std::numeric_limits<float>::min() : 1e-300;
      Ref ref = ref_unary(x, c.ref);
      if (dt == DType::f32) {  // results that overflow float are inf
        for (auto& r : ref.v) r = static_cast<float>(r);
      }
      EXPECT_TRUE(matches(c.op(x), ref, tol));
    }
  }
}

TEST(Unary, LogOfZeroAndNegatives) {
  for (DType dt : {DType::f32, DType::f64, DType::i32, DType::i64}) {
    SCOPED_TRACE(dtype_name(dt));
    const Tensor x = Tensor::empty(Shape{4}, dt);
    const double v[] = {0.0, -1.0, -7.0, 1.0};
    for (std::int64_t i = 0; i < 4; ++i) set(x, {i}, v[i]);
    const Tensor y = accelera::log(x);
    EXPECT_EQ(get(y, {0}), -kInf);
    EXPECT_TRUE(std::isnan(get(y, {1})));
    EXPECT_TRUE(std::isnan(get(y, {2})));
    EXPECT_EQ(get(y, {3}), 0.0);
  }
}

TEST(Unary, IntegerInputs) {
  const Tensor x = Tensor::empty(Shape{5}, DType::i32);
  const std::int64_t v[] = {-3, 0, 4, INT32_MIN, INT32_MAX};
  for (std::int64_t i = 0; i < 5; ++i) set_int(x, {i}, v[i]);
  const Tensor r = relu(x);
  ASSERT_EQ(r.dtype(), DType::i32);
  for (std::int64_t i = 0; i < 5; ++i) EXPECT_EQ(get_int(r, {i}), std::max<std::int64_t>(v[i], 0));
  const Tensor e = accelera::exp(x.slice(0, 0, 3));
  ASSERT_EQ(e.dtype(), DType::f64);
  EXPECT_DOUBLE_EQ(get(e, {2}), std::exp(4.0));
  const Tensor s = sigmoid(x);
  EXPECT_EQ(s.dtype(), DType::f64);
  EXPECT_EQ(get(s, {4}), 1.0);
}

// ---- dense accuracy sweeps --------------------------------------------------------------------------

namespace {

template <typename T>
constexpr DType dtype_of() {
  return std::is_same_v<T, float> ? DType::f32 : DType::f64;
}

template <typename T>
std::vector<T> linspace(double a, double b, int n) {
  std::vector<T> v;
  for (int i = 0; i < n; ++i) v.push_back(static_cast<T>(a + (b - a) * i / (n - 1)));
  return v;
}

// Positive finite values spaced evenly in bit pattern: every binade, subnormals included.
template <typename T>
std::vector<T> positive_bit_sweep(int n) {
  using U = std::conditional_t<std::is_same_v<T, float>, std::uint32_t, std::uint64_t>;
  const U top = std::bit_cast<U>(std::numeric_limits<T>::max());
  std::vector<T> v;
  const U step = (top - 1) / static_cast<U>(n - 1);
  for (int i = 0; i < n; ++i) v.push_back(std::bit_cast<T>(static_cast<U>(1 + step * static_cast<U>(i))));
  return v;
}

// Compares op(x) with ref(x) computed in double: relative error <= rtol, or absolute error <= two
// subnormal steps (for results that are subnormal); results that round to inf must be inf.
template <typename T>
void sweep(const char* name, UnaryFn op, double (*ref)(double), const std::vector<T>& xs, double rtol,
           const Device& device = Device::cpu()) {
  const auto n = static_cast<std::int64_t>(xs.size());
  const Tensor x = Tensor::empty(Shape{n}, dtype_of<T>());
  std::memcpy(x.data_ptr(), xs.data(), xs.size() * sizeof(T));
  const Tensor y = op(x.to(device)).to(Device::cpu());
  ASSERT_EQ(y.dtype(), dtype_of<T>());
  const T* out = y.data<T>();
  const double floor = 2.0 * std::numeric_limits<T>::denorm_min();
  std::int64_t bad = 0;
  double worst = 0, worst_x = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double xi = xs[static_cast<std::size_t>(i)], r = ref(xi), g = out[i];
    const double rounded = static_cast<T>(r);
    bool ok = false;
    if (std::isnan(r)) {
      ok = std::isnan(g);
    } else if (std::isinf(rounded)) {
      ok = g == rounded;
    } else {
      const double err = std::fabs(g - r);
      ok = err <= rtol * std::fabs(r) || err <= floor;
      if (r != 0 && std::isfinite(g) && err > floor && err / std::fabs(r) > worst) {
        worst = err / std::fabs(r);
        worst_x = xi;
      }
    }
    if (!ok && bad++ < 5) {
      ADD_FAILURE() << std::setprecision(17) << name << "<" << dtype_name(dtype_of<T>()) << ">(" << xi << "): got " << g
                    << ", expected " << r << " (relative error " << std::fabs(g - r) / std::fabs(r) << ")";
    }
  }
  EXPECT_EQ(bad, 0) << name << ": " << bad << " of " << n << " outside tolerance; worst relative error " << worst
                    << " at x = " << std::setprecision(17) << worst_x;
}

double std_exp(double x) { return std::exp(x); }
double std_log(double x) { return std::log(x); }
double std_tanh(double x) { return std::tanh(x); }

constexpr double kRtolF32 = 3e-7, kRtolF64 = 1e-14;

template <typename T>
std::vector<T> with_specials(std::vector<T> v) {
  for (T s : {T(0), -T(0), std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(),
              std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::denorm_min(),
              -std::numeric_limits<T>::denorm_min(), std::numeric_limits<T>::min(), std::numeric_limits<T>::max(),
              -std::numeric_limits<T>::max(), T(1), T(-1)}) {
    v.push_back(s);
  }
  return v;
}

template <typename T>
std::vector<T> concat(std::vector<T> a, const std::vector<T>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

TEST(Accuracy, ExpFloat32) {
  // From below the subnormal range (0), through subnormal results, to overflow (inf).
  sweep<float>("exp", &accelera::exp, std_exp, with_specials(concat(linspace<float>(-110, 95, 100000),
                                                                     linspace<float>(-104, -87, 20000))),
               kRtolF32);
}

TEST(Accuracy, ExpFloat32OnEveryDevice) {
  // Devices run their own exp (OpenCL: a float8 polynomial with a scalar tail; 120012 elements leave one).
  for (const auto& info : accelera::devices()) {
    SCOPED_TRACE(info.device.str());
    sweep<float>("exp", &accelera::exp, std_exp,
                 with_specials(concat(linspace<float>(-110, 95, 100000), linspace<float>(-104, -87, 20000))), kRtolF32,
                 info.device);
  }
}

TEST(Accuracy, ExpFloat64) {
  sweep<double>("exp", &accelera::exp, std_exp, with_specials(concat(linspace<double>(-760, 720, 100000),
                                                                      linspace<double>(-746, -708, 20000))),
                kRtolF64);
}

TEST(Accuracy, LogFloat32) {
  sweep<float>("log", &accelera::log, std_log,
               with_specials(concat(positive_bit_sweep<float>(100000), linspace<float>(0.5, 2, 100000))), kRtolF32);
}

TEST(Accuracy, LogFloat64) {
  sweep<double>("log", &accelera::log, std_log,
                with_specials(concat(positive_bit_sweep<double>(100000), linspace<double>(0.5, 2, 100000))),
                kRtolF64);
}

template <typename T>
std::vector<T> tanh_inputs() {
  std::vector<T> v = concat(linspace<T>(-20, 20, 100000), linspace<T>(-0.6, 0.6, 100000));
  for (int i = 0; i < 2000; ++i) {  // tiny magnitudes down to subnormals, both signs
    const T t = static_cast<T>(std::pow(10.0, -0.2 - i * (std::is_same_v<T, float> ? 0.022 : 0.16)));
    v.push_back(t);
    v.push_back(-t);
  }
  return with_specials(v);
}

TEST(Accuracy, TanhFloat32) { sweep<float>("tanh", &accelera::tanh, std_tanh, tanh_inputs<float>(), kRtolF32); }
TEST(Accuracy, TanhFloat64) { sweep<double>("tanh", &accelera::tanh, std_tanh, tanh_inputs<double>(), kRtolF64); }

TEST(Accuracy, SigmoidAgreesWithReference) {
  sweep<double>("sigmoid", &accelera::sigmoid, ref_sigmoid, linspace<double>(-700, 700, 100000), kRtolF64);
  sweep<float>("sigmoid", &accelera::sigmoid, ref_sigmoid, linspace<float>(-80, 80, 100000), 6e-7);
}
