// Flash attention forward and backward on every device against a float64 reference that materialises
// the score matrix (plain loops); sequence pairs from (1, 1) to (1023, 1024), causal and not, head dims
// 32 to 256, bottom-right causal alignment when q and kv lengths differ (Note [Attention]).
#include <cmath>

#include "attention_ref.hpp"
#include "nn_helpers.hpp"

namespace acc_test {
namespace {

using namespace acc_test::nn;

Ref as_ref(const Shape& shape, std::vector<double> v, double magnitude) {
  Ref r{shape, std::move(v), {}};
  r.mag.assign(r.v.size(), magnitude);
  return r;
}

struct Case {
  std::int64_t batch, heads, lq, lk, d;
  bool causal;
};

std::string case_name(const Case& c) {
  return fmt::format("b{} h{} lq{} lk{} d{}{}", c.batch, c.heads, c.lq, c.lk, c.d, c.causal ? " causal" : "");
}

class Attention : public ::testing::TestWithParam<Device> {
 protected:
  std::mt19937_64 rng{11};

  void check_forward(const Case& c, DType dt) {
    const Device dev = GetParam();
    const Tensor q = random_tensor(Shape{c.batch, c.heads, c.lq, c.d}, dt, rng);
    const Tensor k = random_tensor(Shape{c.batch, c.heads, c.lk, c.d}, dt, rng);
    const Tensor v = random_tensor(Shape{c.batch, c.heads, c.lk, c.d}, dt, rng);
    const double scale = 1.0 / std::sqrt(static_cast<double>(c.d));
    poison_outputs(dev, {static_cast<std::int64_t>(q.nbytes()), c.batch * c.heads * c.lq * 8});
    const auto got = accelera::attention(on(q, dev), on(k, dev), on(v, dev), std::nullopt, c.causal);
    const auto ref = attention_ref(values_of(q), values_of(k), values_of(v), {}, c.batch * c.heads, c.lq, c.lk, c.d,
                                   scale, c.causal);
    const Tol tol = combined_tol(dt);
    EXPECT_TRUE(matches(host(got.out), as_ref(q.shape(), ref.out, 1.0), tol)) << case_name(c) << " " << dtype_name(dt);
    Ref lse_ref{Shape{c.batch, c.heads, c.lq}, ref.lse, {}};
    for (double l : ref.lse) lse_ref.mag.push_back(std::isinf(l) ? 0.0 : std::fabs(l) + 1.0);
    EXPECT_TRUE(matches(host(got.lse), lse_ref, tol)) << "lse " << case_name(c);
  }

  void check_backward(const Case& c, DType dt) {
    const Device dev = GetParam();
    const Tensor q = random_tensor(Shape{c.batch, c.heads, c.lq, c.d}, dt, rng);
    const Tensor k = random_tensor(Shape{c.batch, c.heads, c.lk, c.d}, dt, rng);
    const Tensor v = random_tensor(Shape{c.batch, c.heads, c.lk, c.d}, dt, rng);
    const Tensor g = random_tensor(q.shape(), dt, rng);
    const double scale = 0.3;
    const auto fwd = accelera::attention(on(q, dev), on(k, dev), on(v, dev), scale, c.causal);
    poison_outputs(dev, {static_cast<std::int64_t>(q.nbytes()), static_cast<std::int64_t>(k.nbytes())});
    const auto got = accelera::attention_backward(on(g, dev), on(q, dev), on(k, dev), on(v, dev), fwd.out, fwd.lse,
                                                  scale, c.causal);
    const auto ref = attention_ref(values_of(q), values_of(k), values_of(v), values_of(g), c.batch * c.heads, c.lq,
                                   c.lk, c.d, scale, c.causal);
    // Gradients sum over up to max(lq, lk) terms of unit size.
    const double mag = 1.0 + 0.05 * static_cast<double>(std::max(c.lq, c.lk));
    const Tol tol = combined_tol(dt);
    EXPECT_TRUE(matches(host(got.dq), as_ref(q.shape(), ref.dq, mag), tol)) << "dq " << case_name(c);
    EXPECT_TRUE(matches(host(got.dk), as_ref(k.shape(), ref.dk, mag), tol)) << "dk " << case_name(c);
    EXPECT_TRUE(matches(host(got.dv), as_ref(v.shape(), ref.dv, mag), tol)) << "dv " << case_name(c);
  }

  bool is_cpu() const { return GetParam().is_cpu(); }
};

TEST_P(Attention, ForwardSequencePairsAndHeadDims) {
  // Every sequence pair, causal and not; head dims rotate so that each appears with odd lengths.
  const std::pair<std::int64_t, std::int64_t> pairs[] = {{1, 1}, {239, 1}, {1, 239}, {113, 203}, {203, 113}};
  const std::int64_t dims[] = {32, 64, 80, 128, 256};
  int n = 0;
  for (const auto& [lq, lk] : pairs) {
    for (bool causal : {false, true}) {
      const std::int64_t d = dims[n++ % 5];
      check_forward({1, 2, lq, lk, d, causal}, DType::f32);
      check_forward({2, 1, lq, lk, d, causal}, DType::f64);
    }
  }
  for (std::int64_t d : dims) check_forward({1, 1, 65, 64, d, true}, DType::f32);
}

TEST_P(Attention, ForwardLongSequences) {
  // (1023, 1024): blocks with ragged edges on both axes; the q < kv causal alignment across many blocks.
  // PoCL runs double slowly, so OpenCL gets the float32 cases only.
  check_forward({1, 1, 1023, 1024, 64, false}, DType::f32);
  check_forward({1, 1, 1023, 1024, 128, true}, DType::f32);
  if (!is_cpu()) return;
  check_forward({1, 1, 1023, 1024, 32, true}, DType::f64);
}

TEST_P(Attention, BackwardMatchesFloat64) {
  const Case cases[] = {{1, 1, 1, 1, 32, false},  {1, 2, 37, 53, 32, true},  {2, 1, 53, 37, 64, true},
                        {1, 1, 70, 70, 80, false}, {1, 1, 130, 67, 32, false}, {1, 1, 3, 130, 128, true}};
  for (const Case& c : cases) {
    check_backward(c, DType::f64);
    check_backward(c, DType::f32);
  }
}

TEST_P(Attention, QueriesThatSeeNoKeyGetZeroAndMinusInfinity) {
  // q_len > kv_len with causal: the first q_len - kv_len queries see no key.
  const Device dev = GetParam();
  const Tensor q = random_tensor(Shape{1, 1, 5, 32}, DType::f32, rng);
  const Tensor kv = random_tensor(Shape{1, 1, 2, 32}, DType::f32, rng);
  const auto r = accelera::attention(on(q, dev), on(kv, dev), on(kv, dev), std::nullopt, true);
  const Tensor out = host(r.out), lse = host(r.lse);
  for (std::int64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(get(lse, {0, 0, i}), -kInf);
    for (std::int64_t c = 0; c < 32; ++c) EXPECT_EQ(get(out, {0, 0, i, c}), 0.0);
  }
  EXPECT_TRUE(std::isfinite(get(lse, {0, 0, 3})));
  const auto g = accelera::attention_backward(on(q, dev), on(q, dev), on(kv, dev), on(kv, dev), r.out, r.lse,
                                              std::nullopt, true);
  const Tensor dq = host(g.dq);
  for (std::int64_t c = 0; c < 32; ++c) EXPECT_EQ(get(dq, {0, 0, 0, c}), 0.0);
}

// A nan in a query makes its row's output and lse nan; a nan in a key, every row that sees the key; the
// other rows stay finite. The same on every device (no masking of nan as "no visible key").
TEST_P(Attention, NanPropagatesToTheRowsItReaches) {
  const Device dev = GetParam();
  for (DType dt : {DType::f32, DType::f64}) {
    for (std::int64_t d : {8, 64}) {
      for (bool causal : {false, true}) {
        const Tensor q = random_tensor(Shape{1, 2, 40, d}, dt, rng);
        const Tensor k = random_tensor(Shape{1, 2, 40, d}, dt, rng);
        const Tensor v = random_tensor(Shape{1, 2, 40, d}, dt, rng);
        set(q, {0, 0, 3, 1}, kNaN);   // query 3 of head 0
        set(k, {0, 1, 30, 0}, kNaN);  // key 30 of head 1: seen by every query without the mask, by 30.. with it
        const auto r = accelera::attention(on(q, dev), on(k, dev), on(v, dev), std::nullopt, causal);
        const Tensor out = host(r.out), lse = host(r.lse);
        for (std::int64_t h = 0; h < 2; ++h) {
          for (std::int64_t i = 0; i < 40; ++i) {
            const bool nan = (h == 0 && i == 3) || (h == 1 && (!causal || i >= 30));
            EXPECT_EQ(std::isnan(get(lse, {0, h, i})), nan) << dtype_name(dt) << " d" << d << " h" << h << " i" << i;
            for (std::int64_t c = 0; c < d; ++c) {
              ASSERT_EQ(std::isnan(get(out, {0, h, i, c})), nan)
                  << dtype_name(dt) << " d" << d << (causal ? " causal" : "") << " h" << h << " i" << i << " c" << c;
            }
          }
        }
      }
    }
  }
}

TEST_P(Attention, EmptyKeysGiveZeros) {
  const Device dev = GetParam();
  const Tensor q = on(random_tensor(Shape{1, 2, 3, 32}, DType::f32, rng), dev);
  const Tensor kv = on(Tensor::empty(Shape{1, 2, 0, 32}, DType::f32), dev);
  const auto r = accelera::attention(q, kv, kv);
  EXPECT_EQ(values_of(host(r.out)), std::vector<double>(6 * 32, 0.0));
  EXPECT_EQ(values_of(host(r.lse)), std::vector<double>(6, -kInf));
}

INSTANTIATE_TEST_SUITE_P(AllDevices, Attention, ::testing::ValuesIn(all_devices()), device_name);

}  // namespace
}  // namespace acc_test
