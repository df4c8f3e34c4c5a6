// Bad input for sort, argsort, searchsorted and unique: the typed error, inputs and memory as they were.
#include "accelera/ops.hpp"
#include "helpers.hpp"

using namespace accelera;
using namespace acc_test;

namespace {

template <typename E, typename F>
void expect_fails(const char* what, std::initializer_list<Tensor> inputs, F&& f) {
  SCOPED_TRACE(what);
  std::vector<std::vector<std::byte>> before;
  for (const Tensor& t : inputs) before.push_back(storage_bytes(t));
  const auto live = memory_stats(Device::cpu()).current_bytes;
  EXPECT_THROW(f(), E);
  std::size_t i = 0;
  for (const Tensor& t : inputs) EXPECT_EQ(storage_bytes(t), before[i++]) << "input " << i - 1 << " changed";
  EXPECT_EQ(memory_stats(Device::cpu()).current_bytes, live) << "memory leaked";
}

TEST(SortBadInput, TypedErrorsInputsUnchanged) {
  std::mt19937_64 rng(7);
  const Tensor x = random_tensor(Shape{4, 5}, DType::f32, rng);
  const Tensor scalar = random_tensor(Shape{}, DType::f32, rng);
  const Tensor v = random_tensor(Shape{5}, DType::f32, rng);
  expect_fails<ValueError>("sort axis 2 of a matrix", {x}, [&] { (void)accelera::sort(x, 2); });
  expect_fails<ValueError>("argsort axis -3 of a matrix", {x}, [&] { (void)argsort(x, -3); });
  expect_fails<ValueError>("sort of a 0-d tensor", {scalar}, [&] { (void)accelera::sort(scalar); });
  expect_fails<ValueError>("sort of an undefined tensor", {x}, [&] { (void)accelera::sort(Tensor()); });
  expect_fails<ShapeError>("searchsorted into a matrix", {x, v}, [&] { (void)searchsorted(x, v); });
  const Tensor float_sorter = random_tensor(Shape{5}, DType::f32, rng);
  expect_fails<DTypeError>("a float sorter", {v, float_sorter}, [&] { (void)searchsorted(v, v, false, float_sorter); });
  const Tensor short_sorter = Tensor::empty(Shape{3}, DType::i64);
  for (std::int64_t i = 0; i < 3; ++i) set_int(short_sorter, {i}, i);
  expect_fails<ShapeError>("a sorter of another length", {v, short_sorter},
                           [&] { (void)searchsorted(v, v, false, short_sorter); });
  const Tensor bad_sorter = Tensor::empty(Shape{5}, DType::i64);
  for (std::int64_t i = 0; i < 5; ++i) set_int(bad_sorter, {i}, i == 3 ? 9 : i);
  expect_fails<IndexError>("a sorter index out of range", {v, bad_sorter},
                           [&] { (void)searchsorted(v, v, false, bad_sorter); });
  expect_fails<ValueError>("unique of an undefined tensor", {x}, [&] { (void)unique(Tensor(), true, true, true); });
}

}  // namespace
