// Bad input for every public entry point: the typed error, and inputs and memory left as they were.
#include "helpers.hpp"

using namespace accelera;
using namespace acc_test;

namespace {

// Calls f, expects exception E, and checks that the inputs' bytes and the cpu allocator's live bytes are
// what they were before.
template <typename E, typename F>
void expect_fails(const char* what, std::initializer_list<Tensor> inputs, F&& f) {
  SCOPED_TRACE(what);
  std::vector<std::vector<std::byte>> before;
  for (const Tensor& t : inputs) before.push_back(t.defined() ? storage_bytes(t) : std::vector<std::byte>{});
  const auto live = memory_stats(Device::cpu()).current_bytes;
  EXPECT_THROW(f(), E);
  std::size_t i = 0;
  for (const Tensor& t : inputs) {
    if (t.defined()) {
      EXPECT_EQ(storage_bytes(t), before[i]) << "input " << i << " changed";
    }
    ++i;
  }
  EXPECT_EQ(memory_stats(Device::cpu()).current_bytes, live) << "memory leaked";
}

using BinaryFn = Tensor (*)(const Tensor&, const Tensor&);
using UnaryFn = Tensor (*)(const Tensor&);
const std::pair<const char*, BinaryFn> kBinary[] = {
    {"add", &accelera::add}, {"subtract", &accelera::subtract}, {"multiply", &accelera::multiply},
    {"divide", &accelera::divide}};
const std::pair<const char*, UnaryFn> kUnary[] = {{"neg", &accelera::neg},   {"exp", &accelera::exp},
                                                  {"log", &accelera::log},   {"tanh", &accelera::tanh},
                                                  {"relu", &accelera::relu}, {"sigmoid", &accelera::sigmoid}};
using ReduceFn = Tensor (*)(const Tensor&, const Axes&, bool);
const std::pair<const char*, ReduceFn> kReduce[] = {
    {"sum", &accelera::sum}, {"mean", &accelera::mean}, {"max", &accelera::max}};

}  // namespace

TEST(BadInput, BinaryOps) {
  std::mt19937_64 rng(97);
  const Tensor a = make_input(Shape{3, 4}, DType::f32, Layout::step2, rng);
  const Tensor b = make_input(Shape{5}, DType::f32, Layout::negstep, rng);
  const Tensor bo = random_tensor(Shape{3, 4}, DType::boolean, rng);
  // Two views whose broadcast shape has more elements than int64 can count.
  const Tensor huge_row = ones(Shape{1}).broadcast_to(Shape{1LL << 40});
  const Tensor huge_col = ones(Shape{1, 1}).broadcast_to(Shape{1LL << 40, 1});
  for (auto [name, op] : kBinary) {
    SCOPED_TRACE(name);
    expect_fails<ShapeError>("shape mismatch", {a, b}, [&] { return op(a, b); });
    expect_fails<ShapeError>("shape mismatch, swapped", {a, b}, [&] { return op(b, a.T()); });
    if (std::string(name) != "divide") {
      expect_fails<DTypeError>("bool", {bo}, [&] { return op(bo, bo); });
    }
    expect_fails<ValueError>("undefined first", {a}, [&] { return op(Tensor(), a); });
    expect_fails<ValueError>("undefined second", {a}, [&] { return op(a, Tensor()); });
    expect_fails<ValueError>("overflowing broadcast", {huge_row}, [&] { return op(huge_row, huge_col); });
  }
}

TEST(BadInput, UnaryOps) {
  std::mt19937_64 rng(101);
  const Tensor bo = random_tensor(Shape{7}, DType::boolean, rng);
  for (auto [name, op] : kUnary) {
    SCOPED_TRACE(name);
    expect_fails<DTypeError>("bool", {bo}, [&] { return op(bo); });
    expect_fails<ValueError>("undefined", {}, [&] { return op(Tensor()); });
  }
}

TEST(BadInput, Reductions) {
  std::mt19937_64 rng(103);
  const Tensor x = make_input(Shape{4, 5}, DType::f64, Layout::negstep, rng);
  for (auto [name, op] : kReduce) {
    SCOPED_TRACE(name);
    expect_fails<ValueError>("axis too large", {x}, [&] { return op(x, axes({2}), false); });
    expect_fails<ValueError>("axis too negative", {x}, [&] { return op(x, axes({-3}), true); });
    expect_fails<ValueError>("duplicate axis", {x}, [&] { return op(x, axes({1, -1}), false); });
    expect_fails<ValueError>("axis of a 0-d tensor", {}, [&] { return op(full(Shape{}, 1.0), axes({0}), false); });
    expect_fails<ValueError>("undefined", {}, [&] { return op(Tensor(), std::nullopt, false); });
  }
  expect_fails<ValueError>("max over an empty axis", {}, [&] { return accelera::max(zeros(Shape{5, 0}), axes({1})); });
}

TEST(BadInput, Matmul) {
  std::mt19937_64 rng(107);
  const Tensor a = make_input(Shape{3, 4}, DType::f32, Layout::step2, rng);
  const Tensor b = make_input(Shape{5, 6}, DType::f32, Layout::transposed, rng);
  const Tensor i = random_tensor(Shape{4, 4}, DType::i32, rng, -9, 9);
  const Tensor scalar = full(Shape{}, 1.0);
  const Tensor huge_a = ones(Shape{1, 1, 2, 2}).broadcast_to(Shape{1LL << 40, 1, 2, 2});
  const Tensor huge_b = ones(Shape{1, 2, 2}).broadcast_to(Shape{1LL << 40, 2, 2});
  expect_fails<ShapeError>("inner extents", {a, b}, [&] { return matmul(a, b); });
  expect_fails<ShapeError>("batch extents", {}, [&] { return matmul(ones(Shape{2, 3, 4}), ones(Shape{3, 4, 5})); });
  expect_fails<ShapeError>("0-d", {scalar, a}, [&] { return matmul(scalar, a); });
  expect_fails<DTypeError>("int32", {i}, [&] { return matmul(i, i); });
  expect_fails<ValueError>("undefined", {a}, [&] { return matmul(a.T(), Tensor()); });
  expect_fails<ValueError>("overflowing batch", {huge_a, huge_b}, [&] { return matmul(huge_a, huge_b); });
}

TEST(BadInput, Construction) {
  expect_fails<ValueError>("negative extent", {}, [] { return zeros(Shape{2, -3}); });
  expect_fails<ValueError>("numel overflow", {}, [] { return zeros(Shape{1LL << 62, 4}); });
  expect_fails<ValueError>("numel overflow, full", {}, [] { return full(Shape{1LL << 40, 1LL << 40}, 1.0); });
  expect_fails<ValueError>("byte size overflow", {}, [] { return Tensor::empty(Shape{1LL << 61}, DType::f64); });
  expect_fails<OutOfMemoryError>("beyond the budget", {}, [] { return Tensor::empty(Shape{1LL << 58}, DType::i64); });
  expect_fails<DeviceError>("no such device", {}, [] { return ones(Shape{2}, DType::f32, Device::parse("cuda:0")); });
}

TEST(BadInput, ViewsAndCopies) {
  std::mt19937_64 rng(109);
  const Tensor x = make_input(Shape{4, 6}, DType::f32, Layout::step2, rng);
  const std::vector<std::int64_t> bad_count = {5, 5}, two_infer = {-1, -1}, neg = {-3, 8}, overflow = {1LL << 62, 4, 0};
  expect_fails<ShapeError>("reshape count", {x}, [&] { return x.reshape(bad_count); });
  expect_fails<ValueError>("reshape two -1", {x}, [&] { return x.reshape(two_infer); });
  expect_fails<ValueError>("reshape negative", {x}, [&] { return x.reshape(neg); });
  expect_fails<ValueError>("view overflowing", {x}, [&] { return x.view(overflow).value(); });
  expect_fails<ValueError>("slice step 0", {x}, [&] { return x.slice(1, 0, 3, 0); });
  expect_fails<ValueError>("slice axis", {x}, [&] { return x.slice(2, 0, 3); });
  expect_fails<ValueError>("select index", {x}, [&] { return x.select(0, 4); });
  expect_fails<ValueError>("transpose axis", {x}, [&] { return x.transpose(-3, 0); });
  expect_fails<ValueError>("unsqueeze axis", {x}, [&] { return x.unsqueeze(4); });
  expect_fails<ShapeError>("broadcast_to", {x}, [&] { return x.broadcast_to(Shape{4, 7}); });
  expect_fails<DeviceError>("to a missing device", {x}, [&] { return x.to(Device{DeviceKind::cuda, 0}); });
  const Tensor u;
  expect_fails<ValueError>("undefined clone", {}, [&] { return u.clone(); });
  expect_fails<ValueError>("undefined contiguous", {}, [&] { return u.contiguous(); });
  expect_fails<ValueError>("undefined astype", {}, [&] { return u.astype(DType::f64); });
  expect_fails<ValueError>("undefined to", {}, [&] { return u.to(Device::cpu()); });
  expect_fails<ValueError>("undefined T", {}, [&] { return u.T(); });
  expect_fails<ValueError>("undefined reshape", {}, [&] { return u.reshape(std::vector<std::int64_t>{1}); });
  expect_fails<ValueError>("undefined broadcast_to", {}, [&] { return u.broadcast_to(Shape{2}); });
  expect_fails<ValueError>("undefined unsqueeze", {}, [&] { return u.unsqueeze(0); });
}
