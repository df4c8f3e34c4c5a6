// The Philox generator against Random123's known answers, and what the op test table does not cover for
// the random ops and take: exact int64 draws over the whole range, independence of successive draws, and
// typed errors for bad input that leave the inputs untouched (on every device).
#include <set>

#include "accelera/ops.hpp"
#include "accelera/random.hpp"
#include "helpers.hpp"
#include "ops/random_bits.hpp"
#include "random_reference.hpp"

namespace acc_test {
namespace {

namespace ref = random_reference;

// Random123's kat_vectors for philox4x32 10: counter, key, result.
struct KnownAnswer {
  ref::Block counter;
  std::array<std::uint32_t, 2> key;
  ref::Block result;
};
const KnownAnswer kKnownAnswers[] = {
    {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}, {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}, {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

TEST(Philox, ReferenceReproducesRandom123KnownAnswers) {
  for (const KnownAnswer& k : kKnownAnswers) EXPECT_EQ(ref::philox4x32_10(k.counter, k.key), k.result);
}

TEST(Philox, KernelArithmeticReproducesRandom123KnownAnswers) {
  for (const KnownAnswer& k : kKnownAnswers) {
    const auto out = accelera::random_bits::philox4x32_10({{k.counter[0], k.counter[1], k.counter[2], k.counter[3]}},
                                                          k.key[0], k.key[1]);
    EXPECT_EQ((ref::Block{out.w[0], out.w[1], out.w[2], out.w[3]}), k.result);
  }
}

TEST(Philox, BlocksOfADraw) {
  EXPECT_EQ(accelera::random_blocks(0), 0u);
  EXPECT_EQ(accelera::random_blocks(1), 1u);
  EXPECT_EQ(accelera::random_blocks(4), 1u);
  EXPECT_EQ(accelera::random_blocks(5), 2u);
}

class RandomAndTake : public ::testing::TestWithParam<Device> {
 protected:
  void SetUp() override {
    if (const std::string why = device_absence(GetParam()); !why.empty()) GTEST_SKIP() << why;
  }
};

TEST_P(RandomAndTake, Int64DrawsOverTheWholeRangeAreExact) {
  const Device dev = GetParam();
  constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
  struct Bounds {
    std::int64_t low, high;
    bool endpoint;
  };
  for (Bounds b : {Bounds{lo, hi, true}, Bounds{lo, hi, false}, Bounds{-3, hi, true}}) {
    const Tensor t = accelera::random_integers(Shape{1031}, DType::i64, dev, b.low, b.high, b.endpoint, 7, 99).to(Device::cpu());
    for (std::int64_t i = 0; i < t.numel(); ++i) {
      // The reference takes an exclusive bound; [lo, hi] is the full 2^64 range, which wraps to the same range 0.
      const std::int64_t high = b.endpoint ? static_cast<std::int64_t>(static_cast<std::uint64_t>(b.high) + 1) : b.high;
      ASSERT_EQ(get_int(t, {i}), ref::reference_integer(7, 99, i, DType::i64, b.low, high)) << "element " << i;
    }
  }
}

TEST_P(RandomAndTake, SuccessiveDrawsShareNoCounter) {
  const Device dev = GetParam();
  const std::int64_t n = 10;  // 3 blocks: the next draw starts at offset 3
  const Tensor first = accelera::random_uniform(Shape{n}, DType::f32, dev, 5, 0).to(Device::cpu());
  const Tensor next = accelera::random_uniform(Shape{4}, DType::f32, dev, 5, accelera::random_blocks(n)).to(Device::cpu());
  const Tensor whole = accelera::random_uniform(Shape{16}, DType::f32, dev, 5, 0).to(Device::cpu());
  std::set<double> seen;
  for (std::int64_t i = 0; i < n; ++i) seen.insert(get(first, {i}));
  for (std::int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(get(next, {i}), get(whole, {12 + i}));
    EXPECT_EQ(seen.count(get(next, {i})), 0u);
  }
}

TEST_P(RandomAndTake, PermutationsOrderTheReferenceKeys) {
  const Device dev = GetParam();
  for (std::int64_t n : {0, 1, 2, 17, 1000}) {
    const Tensor p = accelera::random_permutation(n, dev, 31, 5).to(Device::cpu());
    ASSERT_EQ(p.shape(), Shape{n});
    ASSERT_EQ(p.dtype(), DType::i64);
    std::vector<std::int64_t> order(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = get_int(p, {i});
    constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
    const auto key = [](std::int64_t i) { return ref::reference_integer(31, 5, i, DType::i64, lo, static_cast<std::int64_t>(static_cast<std::uint64_t>(hi) + 1)); };
    std::vector<std::int64_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    for (std::int64_t i = 0; i < n; ++i) EXPECT_EQ(sorted[static_cast<std::size_t>(i)], i);  // a permutation
    for (std::int64_t i = 1; i < n; ++i) {
      EXPECT_LT(key(order[static_cast<std::size_t>(i - 1)]), key(order[static_cast<std::size_t>(i)])) << "position " << i;
    }
  }
  EXPECT_THROW(accelera::random_permutation(-1, dev, 0, 0), accelera::ValueError);
}

TEST_P(RandomAndTake, BadRandomArgumentsRaiseTypedErrors) {
  const Device dev = GetParam();
  EXPECT_THROW(accelera::random_uniform(Shape{3}, DType::i32, dev, 1, 0), accelera::DTypeError);
  EXPECT_THROW(accelera::random_uniform(Shape{3}, DType::f32, dev, 1, 0, 2.0, 1.0), accelera::ValueError);
  EXPECT_THROW(accelera::random_uniform(Shape{3}, DType::f32, dev, 1, 0, 0.0, kInf), accelera::ValueError);
  EXPECT_THROW(accelera::random_normal(Shape{3}, DType::boolean, dev, 1, 0), accelera::DTypeError);
  EXPECT_THROW(accelera::random_normal(Shape{3}, DType::f32, dev, 1, 0, 0.0, -1.0), accelera::ValueError);
  EXPECT_THROW(accelera::random_normal(Shape{3}, DType::f32, dev, 1, 0, kNaN, 1.0), accelera::ValueError);
  EXPECT_THROW(accelera::random_integers(Shape{3}, DType::f32, dev, 0, 5, false, 1, 0), accelera::DTypeError);
  EXPECT_THROW(accelera::random_integers(Shape{3}, DType::i64, dev, 5, 5, false, 1, 0), accelera::ValueError);
  EXPECT_THROW(accelera::random_integers(Shape{3}, DType::i32, dev, 0, std::int64_t{1} << 31, true, 1, 0),
               accelera::ValueError);
  EXPECT_NO_THROW(accelera::random_integers(Shape{3}, DType::i32, dev, 0, std::int64_t{1} << 31, false, 1, 0));
  // Nine elements need three counter blocks: starting at 2^64 - 2 they would wrap.
  EXPECT_THROW(accelera::random_uniform(Shape{9}, DType::f32, dev, 1, ~std::uint64_t{0} - 1), accelera::ValueError);
  EXPECT_NO_THROW(accelera::random_uniform(Shape{8}, DType::f32, dev, 1, ~std::uint64_t{0} - 1));
}

Tensor index_tensor(std::initializer_list<std::int64_t> values, DType dt, const Device& dev) {
  Tensor t = Tensor::empty(Shape{static_cast<std::int64_t>(values.size())}, dt);
  std::int64_t i = 0;
  for (std::int64_t v : values) set_int(t, {i++}, v);
  return t.to(dev);
}

TEST_P(RandomAndTake, OutOfRangeIndicesRaiseIndexErrorAndLeaveInputsUntouched) {
  const Device dev = GetParam();
  std::mt19937_64 rng(3);
  const Tensor host = random_tensor(Shape{4, 5}, DType::f32, rng);
  const Tensor x = host.to(dev);
  for (DType idt : {DType::i32, DType::i64}) {
    for (std::int64_t bad : {5, -6, 1000}) {
      const Tensor ind = index_tensor({0, bad, 2}, idt, dev);
      try {
        accelera::take(x, ind, 1);
        ADD_FAILURE() << "index " << bad << " was accepted";
      } catch (const accelera::IndexError& e) {
        EXPECT_NE(std::string(e.what()).find("index " + std::to_string(bad) + " is out of bounds for axis 1 with size 5"),
                  std::string::npos)
            << e.what();
      }
      EXPECT_THROW(accelera::take_along_axis(x, ind.reshape(std::vector<std::int64_t>{1, 3}), 1), accelera::IndexError);
      if (bad == 1000) EXPECT_THROW(accelera::take(x, ind), accelera::IndexError) << "flattened: 20 elements";
      EXPECT_EQ(values_of(ind.to(Device::cpu()))[1], static_cast<double>(bad));
    }
  }
  EXPECT_EQ(values_of(x.to(Device::cpu())), values_of(host));
  // Nothing can be taken from an empty axis; taking nothing is fine.
  const Tensor empty = Tensor::empty(Shape{0, 3}, DType::f32, dev);
  EXPECT_THROW(accelera::take(empty, index_tensor({0}, DType::i64, dev), 0), accelera::IndexError);
  EXPECT_EQ(accelera::take(empty, Tensor::empty(Shape{0}, DType::i64, dev), 0).shape(), (Shape{0, 3}));
}

TEST_P(RandomAndTake, BadTakeArgumentsRaiseTypedErrors) {
  const Device dev = GetParam();
  const Tensor x = accelera::ones(Shape{2, 3}, DType::f32, dev);
  const Tensor ind = index_tensor({0, 1}, DType::i64, dev);
  EXPECT_THROW(accelera::take(x, ind.astype(DType::f32), 0), accelera::DTypeError);
  EXPECT_THROW(accelera::take(x, ind.astype(DType::boolean), 0), accelera::DTypeError);
  EXPECT_THROW(accelera::take(x, ind, 2), accelera::ValueError);
  EXPECT_THROW(accelera::take(x, ind, -3), accelera::ValueError);
  EXPECT_THROW(accelera::take(Tensor::empty(Shape{}, DType::f32, dev), ind, 0), accelera::ValueError);
  EXPECT_THROW(accelera::take_along_axis(x, ind, 0), accelera::ShapeError);  // ranks differ
  EXPECT_THROW(accelera::take_along_axis(x, Tensor::empty(Shape{3, 2}, DType::i64, dev), 1), accelera::ShapeError);
  if (!dev.is_cpu()) EXPECT_THROW(accelera::take(x, ind.to(Device::cpu()), 0), accelera::DeviceError);
}

INSTANTIATE_TEST_SUITE_P(Devices, RandomAndTake, ::testing::ValuesIn(with_cuda_placeholder(all_devices())), device_name);

}  // namespace
}  // namespace acc_test
