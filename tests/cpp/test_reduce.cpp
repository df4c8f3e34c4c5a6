// sum, mean and max against float64 references: axes, keepdims, layouts, the column/row/split paths,
// result dtypes, nan and empty axes.
#include <set>

#include "helpers.hpp"

using namespace accelera;
using namespace acc_test;

namespace {

enum class Kind { sum, mean, max };
const char* kind_name(Kind k) { return k == Kind::sum ? "sum" : k == Kind::mean ? "mean" : "max"; }

Tensor run(Kind k, const Tensor& x, const Axes& ax, bool keepdims) {
  switch (k) {
    case Kind::sum: return sum(x, ax, keepdims);
    case Kind::mean: return mean(x, ax, keepdims);
    case Kind::max: return accelera::max(x, ax, keepdims);
  }
  return {};
}

DType result_dtype(Kind k, DType in) {
  if (k == Kind::sum) {
    if (accelera::is_unsigned(in)) return DType::u64;
    return (accelera::is_integral(in) || in == DType::boolean) ? DType::i64 : in;
  }
  if (k == Kind::mean) return is_float(in) ? in : DType::f64;
  return in;
}

// The float64 reference of a reduction. mag holds the whole error allowance (compare with rtol 1, atol 0):
// the dtype's rounding of the result plus count * eps(double) * sum |x| for the double accumulation;
// integer sums and every max must be exact.
Ref ref_reduce(Kind k, const Tensor& x, const Axes& ax, bool keepdims, DType out_dtype) {
  const std::int64_t nd = x.ndim();
  std::vector<bool> reduced(static_cast<std::size_t>(nd), !ax.has_value());
  if (ax) {
    for (auto a : *ax) reduced[static_cast<std::size_t>(a < 0 ? a + nd : a)] = true;
  }
  std::vector<std::int64_t> kept, out_dims;
  std::int64_t count = 1;
  for (std::int64_t i = 0; i < nd; ++i) {
    const auto d = x.shape()[i];
    if (reduced[static_cast<std::size_t>(i)]) {
      count *= d;
      kept.push_back(1);
      if (keepdims) out_dims.push_back(1);
    } else {
      kept.push_back(d);
      out_dims.push_back(d);
    }
  }
  const Shape kept_shape(kept);
  const auto n_out = static_cast<std::size_t>(kept_shape.numel());
  std::vector<double> acc(n_out, k == Kind::max ? -kInf : 0.0), abs_acc(n_out, 0.0);
  for_each_index(x.shape(), [&](const Index& i, std::int64_t) {
    std::int64_t o = 0;
    for (std::size_t d = 0; d < kept.size(); ++d) o = o * kept[d] + (reduced[d] ? 0 : i[d]);
    const double v = get(x, i);
    auto& a = acc[static_cast<std::size_t>(o)];
    if (k == Kind::max) {
      a = (std::isnan(a) || std::isnan(v)) ? kNaN : std::max(a, v);
    } else {
      a += v;
      abs_acc[static_cast<std::size_t>(o)] += std::fabs(v);
    }
  });
  Ref r{Shape(out_dims), {}, {}};
  const double rtol = tol_for(out_dtype).rtol;
  const bool exact = k == Kind::max || (k == Kind::sum && !is_float(out_dtype));
  for (std::size_t o = 0; o < n_out; ++o) {
    double v = acc[o], m = abs_acc[o];
    if (k == Kind::mean) {
      v /= static_cast<double>(count);
      m /= static_cast<double>(count);
    }
    r.v.push_back(v);
    r.mag.push_back(exact ? 0.0 : rtol * std::fabs(v) + static_cast<double>(count + 2) * 2.3e-16 * m);
  }
  return r;
}

void check_reduce(Kind k, const Tensor& x, const Axes& ax, bool keepdims) {
  SCOPED_TRACE(fmt::format("{}({} {}, axes={}, keepdims={})", kind_name(k), dtype_name(x.dtype()), x.shape().str(),
                           ax ? shape_str(*ax) : "all", keepdims));
  const DType out_dtype = result_dtype(k, x.dtype());
  const Ref ref = ref_reduce(k, x, ax, keepdims, out_dtype);
  const auto before = storage_bytes(x);
  poison_cache(static_cast<std::size_t>(ref.shape.numel()) * dtype_size(out_dtype));
  const Tensor out = run(k, x, ax, keepdims);
  EXPECT_EQ(out.dtype(), out_dtype);
  EXPECT_FALSE(out.shares_storage_with(x));
  EXPECT_TRUE(matches(out, ref, Tol{1.0, 0.0}));
  EXPECT_EQ(storage_bytes(x), before);
}

// Every axis selection of a rank-n tensor: all (nullopt), none ({}), each single axis positive and
// negative, each pair, and all axes listed explicitly in reverse.
std::vector<Axes> axis_sets(std::int64_t nd) {
  std::vector<Axes> out = {std::nullopt, std::vector<std::int64_t>{}};
  for (std::int64_t a = 0; a < nd; ++a) {
    out.push_back(std::vector<std::int64_t>{a});
    out.push_back(std::vector<std::int64_t>{a - nd});
    for (std::int64_t b = a + 1; b < nd; ++b) out.push_back(std::vector<std::int64_t>{b, a - nd});
  }
  std::vector<std::int64_t> all;
  for (std::int64_t a = nd; a-- > 0;) all.push_back(a);
  out.push_back(all);
  return out;
}

bool reduces_empty_axis(const Tensor& x, const Axes& ax) {
  std::int64_t count = 1, kept = 1;
  for (std::int64_t i = 0; i < x.ndim(); ++i) {
    const bool r = !ax || std::ranges::any_of(*ax, [&](auto a) { return (a < 0 ? a + x.ndim() : a) == i; });
    (r ? count : kept) *= x.shape()[i];
  }
  return count == 0 && kept > 0;
}

constexpr DType kDTypes[] = {DType::f32, DType::f64, DType::i8, DType::i32, DType::i64, DType::u8, DType::u64};
constexpr Kind kKinds[] = {Kind::sum, Kind::mean, Kind::max};

}  // namespace

TEST(Reduce, SmallShapesAllAxesLayoutsAndDTypes) {
  std::mt19937_64 rng(41);
  const Shape shapes[] = {Shape{},     Shape{0},    Shape{7},       Shape{13, 31}, Shape{2, 3, 5},
                          Shape{0, 3}, Shape{3, 0}, Shape{4, 1, 6}, Shape{127}};
  for (DType dt : kDTypes) {
    for (const Shape& shape : shapes) {
      for (Layout layout : kAllLayouts) {
        const Tensor x = make_input(shape, dt, layout, rng, is_float(dt) ? -1 : -1000, is_float(dt) ? 1 : 1000);
        for (const Axes& ax : axis_sets(shape.ndim())) {
          for (Kind k : kKinds) {
            for (bool keepdims : {false, true}) {
              if (k == Kind::max && reduces_empty_axis(x, ax)) {
                EXPECT_THROW(run(k, x, ax, keepdims), ValueError) << shape.str();
              } else {
                check_reduce(k, x, ax, keepdims);
              }
            }
          }
        }
      }
    }
  }
}

// A 3000 x 257 matrix: axis 0 is the column path, axis 1 the row path.
TEST(Reduce, LargeMatrixColumnsAndRows) {
  std::mt19937_64 rng(43);
  const std::vector<Axes> sets = {axes({0}), axes({1}), axes({-1, 0}), std::nullopt};
  for (DType dt : {DType::f32, DType::f64, DType::i32}) {
    const Tensor x = random_tensor(Shape{3000, 257}, dt, rng, is_float(dt) ? -1 : -1000, is_float(dt) ? 1 : 1000);
    for (const Axes& ax : sets) {
      for (Kind k : kKinds) check_reduce(k, x, ax, false);
    }
    check_reduce(Kind::sum, x, axes({0}), true);
  }
}

TEST(Reduce, LargeNonContiguousMatrices) {
  std::mt19937_64 rng(47);
  for (Layout layout : {Layout::transposed, Layout::negstep, Layout::step2, Layout::broadcast}) {
    const Tensor x = make_input(Shape{1031, 257}, DType::f64, layout, rng);
    for (const Axes& ax : {axes({0}), axes({1}), Axes{}}) {
      for (Kind k : kKinds) check_reduce(k, x, ax, false);
    }
  }
  // A 3-D tensor reduced over the middle axis: kept outer and inner axes.
  const Tensor y = random_tensor(Shape{5, 3001, 7}, DType::f32, rng);
  for (Kind k : kKinds) check_reduce(k, y, axes({1}), true);
  for (Kind k : kKinds) check_reduce(k, y.T(), axes({0, 2}), false);
}

// One long vector (split across threads), and few long rows (the split path per output).
TEST(Reduce, LongVectorsSplitAcrossThreads) {
  std::mt19937_64 rng(53);
  for (DType dt : kDTypes) {
    const Tensor v = random_tensor(Shape{200003}, dt, rng, is_float(dt) ? -1 : -1000, is_float(dt) ? 1 : 1000);
    for (Kind k : kKinds) {
      check_reduce(k, v, std::nullopt, false);
      check_reduce(k, v, axes({0}), true);
      check_reduce(k, v.slice(0, 200002, std::numeric_limits<std::int64_t>::min(), -3), std::nullopt, false);
    }
  }
  for (const Shape& s : {Shape{2, 100003}, Shape{3, 70001}}) {
    const Tensor x = random_tensor(s, DType::f32, rng);
    for (Kind k : kKinds) check_reduce(k, x, axes({1}), false);
  }
}

TEST(Reduce, ResultDTypes) {
  const Tensor i32 = ones(Shape{4, 5}, DType::i32), i64 = ones(Shape{4, 5}, DType::i64);
  const Tensor b = ones(Shape{4, 5}, DType::boolean);
  EXPECT_EQ(sum(i32).dtype(), DType::i64);
  EXPECT_EQ(sum(i64).dtype(), DType::i64);
  EXPECT_EQ(sum(b).dtype(), DType::i64);
  EXPECT_EQ(get_int(sum(b), {}), 20);
  EXPECT_EQ(mean(i32).dtype(), DType::f64);
  EXPECT_EQ(mean(b, axes({0})).dtype(), DType::f64);
  EXPECT_EQ(accelera::max(i32).dtype(), DType::i32);
  EXPECT_EQ(sum(ones(Shape{3}, DType::f32)).dtype(), DType::f32);
  EXPECT_EQ(mean(ones(Shape{3}, DType::f32)).dtype(), DType::f32);
  // int32 sums do not overflow: they accumulate and return int64.
  const Tensor big = full(Shape{3}, 2147483647.0, DType::i32);
  EXPECT_EQ(get_int(sum(big), {}), 3LL * 2147483647LL);
  const Tensor neg = full(Shape{5}, -2147483648.0, DType::i32);
  EXPECT_EQ(get_int(accelera::max(neg), {}), INT32_MIN);
  EXPECT_DOUBLE_EQ(get(mean(big), {}), 2147483647.0);
}

TEST(Reduce, MaxAndSumPropagateNaN) {
  std::mt19937_64 rng(59);
  for (DType dt : {DType::f32, DType::f64}) {
    SCOPED_TRACE(dtype_name(dt));
    // Long vector, nan at the start, in the middle and at the end.
    for (std::int64_t pos : {std::int64_t{0}, std::int64_t{123457}, std::int64_t{200002}}) {
      const Tensor v = random_tensor(Shape{200003}, dt, rng);
      set(v, {pos}, kNaN);
      EXPECT_TRUE(std::isnan(get(accelera::max(v), {}))) << pos;
      EXPECT_TRUE(std::isnan(get(sum(v), {}))) << pos;
      EXPECT_TRUE(std::isnan(get(accelera::max(v.slice(0, 0, 200003, 1)), {}))) << pos;
    }
    // Matrix: nan in one column only poisons that column's result (column path), and that row (row path).
    const Tensor m = random_tensor(Shape{3000, 257}, dt, rng);
    set(m, {1500, 100}, kNaN);
    set(m, {2999, 256}, kNaN);
    set(m, {0, 7}, kNaN);
    check_reduce(Kind::max, m, axes({0}), false);
    check_reduce(Kind::max, m, axes({1}), true);
    check_reduce(Kind::max, m.T(), axes({0}), false);
    check_reduce(Kind::sum, m, axes({0}), false);
    // Small: nan as the very first element compared.
    const Tensor s = random_tensor(Shape{3, 9}, dt, rng);
    set(s, {1, 0}, kNaN);
    check_reduce(Kind::max, s, axes({1}), false);
    check_reduce(Kind::max, s, axes({0}), false);
  }
}

TEST(Reduce, EmptyAxes) {
  for (DType dt : kDTypes) {
    SCOPED_TRACE(dtype_name(dt));
    const Tensor x = zeros(Shape{3, 0}, dt);
    poison_cache(3 * 8);
    const Tensor s = sum(x, axes({1}));
    ASSERT_EQ(s.shape(), (Shape{3}));
    for (std::int64_t i = 0; i < 3; ++i) EXPECT_EQ(get(s, {i}), 0.0);
    EXPECT_EQ(get(sum(zeros(Shape{0}, dt)), {}), 0.0);
    const Tensor mn = mean(x, axes({-1}), true);
    ASSERT_EQ(mn.shape(), (Shape{3, 1}));
    EXPECT_TRUE(std::isnan(get(mn, {2, 0})));
    EXPECT_THROW(accelera::max(x, axes({1})), ValueError);
    EXPECT_THROW(accelera::max(x), ValueError);
    EXPECT_THROW(accelera::max(zeros(Shape{0}, dt)), ValueError);
    // Reducing a non-empty axis of an empty tensor gives an empty result, also for max.
    EXPECT_EQ(accelera::max(x, axes({0})).shape(), (Shape{0}));
    EXPECT_EQ(sum(x, axes({0}), true).shape(), (Shape{1, 0}));
  }
}

TEST(Reduce, AxisValidation) {
  const Tensor x = ones(Shape{2, 3});
  for (Kind k : kKinds) {
    SCOPED_TRACE(kind_name(k));
    for (const Axes& bad : {axes({0, 0}), axes({0, -2}), axes({1, -1, 0})}) {
      EXPECT_THROW(run(k, x, bad, false), ValueError);
    }
    for (const Axes& bad : {axes({2}), axes({-3}), axes({0, 5})}) EXPECT_THROW(run(k, x, bad, false), ValueError);
    EXPECT_THROW(run(k, full(Shape{}, 1.0), axes({0}), false), ValueError);
    EXPECT_EQ(run(k, full(Shape{}, 2.0), axes({}), false).shape(), (Shape{}));
  }
}

// argmax/argmin of long contiguous runs (read in blocks of 4096 on the CPU): the first extremum when it
// recurs in later blocks and within its block, the first nan wherever it lies, a run of one repeated
// value, and the best in the last, partial block. Checked against a scalar scan.
TEST(Reduce, ArgExtremumOfLongRunsFindsTheFirst) {
  std::mt19937_64 rng(61);
  const std::int64_t n = 3 * 4096 + 5;
  for (DType dt : {DType::f32, DType::f64}) {
    SCOPED_TRACE(dtype_name(dt));
    for (const bool is_max : {true, false}) {
      const auto fn = is_max ? &accelera::argmax : &accelera::argmin;
      const double best = is_max ? 2.0 : -2.0;
      const auto first_of = [&](const Tensor& v) {
        std::int64_t at = 0;
        for (std::int64_t i = 1; i < n; ++i) {
          const double a = get(v, {i}), b = get(v, {at});
          if (std::isnan(b)) break;
          if (std::isnan(a) || (is_max ? a > b : a < b)) at = i;
        }
        return at;
      };
      const auto expect_first = [&](const Tensor& v, const std::string& what) {
        const std::int64_t want = first_of(v);
        EXPECT_EQ(get(fn(v, std::nullopt, false), {}), static_cast<double>(want)) << what << (is_max ? " argmax" : " argmin");
      };
      Tensor v = random_tensor(Shape{n}, dt, rng);
      set(v, {9000}, best), set(v, {5000}, best), set(v, {5001}, best), set(v, {12000}, best);
      expect_first(v, "recurring best");  // 5000: block 1, before its later copies
      set(v, {4095}, best);
      expect_first(v, "best at a block's end");
      set(v, {10000}, kNaN), set(v, {12290}, kNaN);
      expect_first(v, "nan after the best");
      Tensor w = random_tensor(Shape{n}, dt, rng);
      set(w, {n - 1}, best);
      expect_first(w, "best in the partial last block");
      Tensor same = full(Shape{n}, is_max ? -kInf : kInf, dt);
      expect_first(same, "one repeated value");  // 0
    }
  }
}
