// What the op test table does not cover for linear algebra: typed errors for bad input and for matrices a
// factorisation cannot take, with the inputs left untouched (on every device), and the compositions
// tensordot, vecdot, diagonal and matrix_power against small worked examples.
#include "accelera/linalg.hpp"
#include "helpers.hpp"

namespace acc_test {
namespace {

namespace la = accelera::linalg;

Tensor matrix(std::initializer_list<double> values, std::int64_t rows, std::int64_t cols, const Device& d,
              DType dt = DType::f64) {
  Tensor t = Tensor::empty(Shape{rows, cols}, dt);
  std::int64_t i = 0;
  for (double v : values) set(t, {i / cols, i % cols}, v), ++i;
  return t.to(d);
}

std::vector<double> values(const Tensor& t) {
  const Tensor h = t.to(Device::cpu());
  std::vector<double> v;
  for_each_index(h.shape(), [&](const Index& i, std::int64_t) { v.push_back(get(h, i)); });
  return v;
}

class Linalg : public ::testing::TestWithParam<Device> {};

TEST_P(Linalg, SingularAndIndefiniteMatricesRaiseLinAlgErrorAndStayUntouched) {
  const Device d = GetParam();
  const Tensor singular = matrix({1, 2, 2, 4}, 2, 2, d);
  EXPECT_THROW(la::inv(singular), accelera::LinAlgError);
  EXPECT_THROW(la::solve(singular, singular), accelera::LinAlgError);
  EXPECT_THROW(la::cholesky(singular), accelera::LinAlgError);
  EXPECT_EQ(values(singular), (std::vector<double>{1, 2, 2, 4}));
  EXPECT_EQ(values(la::det(singular)), std::vector<double>{0.0});
}

TEST_P(Linalg, BadInputRaisesTypedErrors) {
  const Device d = GetParam();
  const Tensor rect = matrix({1, 2, 3, 4, 5, 6}, 2, 3, d);
  const Tensor ints = matrix({1, 0, 0, 1}, 2, 2, d, DType::i64);
  const Tensor vec = Tensor::empty(Shape{3}, DType::f64, Device::cpu()).to(d);
  EXPECT_THROW(la::inv(rect), accelera::ShapeError);
  EXPECT_THROW(la::eigh(rect), accelera::ShapeError);
  EXPECT_THROW(la::det(vec), accelera::ShapeError);
  EXPECT_THROW(la::inv(ints), accelera::DTypeError);
  EXPECT_THROW(la::svd(ints), accelera::DTypeError);
  EXPECT_THROW(la::qr(rect, "economic"), accelera::ValueError);
  EXPECT_THROW(la::matrix_norm(rect, "3"), accelera::ValueError);
  EXPECT_THROW(la::solve(matrix({1, 0, 0, 1}, 2, 2, d), rect.transpose(0, 1)), accelera::ShapeError);
  EXPECT_THROW(accelera::tensordot(rect, rect, 1), accelera::ShapeError);
  EXPECT_EQ(values(rect), (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

TEST_P(Linalg, CompositionsMatchWorkedExamples) {
  const Device d = GetParam();
  const Tensor a = matrix({1, 2, 3, 4, 5, 6}, 2, 3, d);
  EXPECT_EQ(values(accelera::tensordot(a, a.transpose(0, 1), 1)), (std::vector<double>{14, 32, 32, 77}));
  EXPECT_EQ(values(accelera::tensordot(a, a, 2)), std::vector<double>{91});
  EXPECT_EQ(values(accelera::vecdot(a, a)), (std::vector<double>{14, 77}));
  EXPECT_EQ(values(la::diagonal(a, 1)), (std::vector<double>{2, 6}));
  EXPECT_EQ(values(la::diagonal(a, -1)), std::vector<double>{4});
  EXPECT_EQ(values(la::trace(a)), std::vector<double>{6});
  const Tensor s = matrix({1, 1, 0, 1}, 2, 2, d);
  EXPECT_EQ(values(la::matrix_power(s, 5)), (std::vector<double>{1, 5, 0, 1}));
  EXPECT_EQ(values(la::matrix_power(s, -2)), (std::vector<double>{1, -2, 0, 1}));
  EXPECT_EQ(values(la::matrix_power(s, 0)), (std::vector<double>{1, 0, 0, 1}));
  EXPECT_EQ(values(la::vector_norm(a, std::nullopt, 0.0)), std::vector<double>{6});
  EXPECT_EQ(values(la::matrix_norm(a, "inf")), std::vector<double>{15});
  EXPECT_EQ(values(la::matrix_norm(a, "1")), std::vector<double>{9});
}

INSTANTIATE_TEST_SUITE_P(Devices, Linalg, ::testing::ValuesIn(all_devices()), device_name);

}  // namespace
}  // namespace acc_test
