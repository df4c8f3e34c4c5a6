// The complex dtypes beyond the element-wise kernels (op_table_complex_rows.cpp): the real view, fills,
// copies between complex and real dtypes, the products, reductions and moves composed from real kernels,
// on every device, against std::complex<long double> references of the same values.
#include <complex>

#include "accelera/linalg.hpp"
#include "helpers.hpp"

namespace acc_test {
namespace {

using Z = std::complex<long double>;

// A complex tensor of `shape` with parts drawn from [-1, 1], built through its real view.
Tensor random_complex(const Shape& shape, DType dtype, std::mt19937_64& rng) {
  std::vector<std::int64_t> dims = shape.dims();
  dims.push_back(2);
  return random_tensor(Shape(dims), accelera::real_dtype(dtype), rng, -1, 1).view_as_complex();
}

std::vector<Z> values(const Tensor& z) {
  const Tensor pairs = z.to(Device::cpu()).contiguous().view_as_real();
  std::vector<double> flat;
  for_each_index(pairs.shape(), [&](const Index& i, std::int64_t) { flat.push_back(get(pairs, i)); });
  std::vector<Z> out;
  for (std::size_t k = 0; k < flat.size(); k += 2) out.emplace_back(flat[k], flat[k + 1]);
  return out;
}

void expect_close(const std::vector<Z>& got, const std::vector<Z>& want, long double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    EXPECT_LE(std::abs(got[k] - want[k]), tol * std::max(1.0L, std::abs(want[k]))) << "at " << k;
  }
}

long double tol_of(DType dtype, long double terms = 1) {
  return (dtype == DType::c64 ? 1e-6L : 1e-15L) * 8 * std::max(terms, 1.0L);
}

class ComplexOps : public ::testing::TestWithParam<Device> {
 protected:
  void SetUp() override {
    if (const std::string why = device_absence(GetParam()); !why.empty()) GTEST_SKIP() << why;
  }
};

TEST(ComplexViews, RealViewSharesStorageAndRoundTrips) {
  const Tensor z = accelera::full(Shape{3, 4}, std::complex<double>(1.5, -2.0), DType::c64);
  const Tensor parts = z.view_as_real();
  EXPECT_EQ(parts.dtype(), DType::f32);
  EXPECT_EQ(parts.shape(), (Shape{3, 4, 2}));
  EXPECT_TRUE(parts.shares_storage_with(z));
  EXPECT_EQ(get(parts, {2, 3, 0}), 1.5);
  EXPECT_EQ(get(parts, {2, 3, 1}), -2.0);
  const Tensor back = z.T().view_as_real().view_as_complex();
  EXPECT_EQ(back.shape(), (Shape{4, 3}));
  EXPECT_EQ(back.strides(), z.T().strides());
  EXPECT_THROW((void)Tensor::empty(Shape{3}, DType::f32).view_as_real(), accelera::DTypeError);
  EXPECT_THROW((void)Tensor::empty(Shape{3, 3}, DType::f32).view_as_complex(), accelera::ShapeError);
  EXPECT_THROW((void)Tensor::empty(Shape{3, 2}, DType::i32).view_as_complex(), accelera::DTypeError);
  // A view whose pairs are not adjacent (the real view transposed) is refused, not misread.
  EXPECT_THROW((void)parts.transpose(0, 2).view_as_complex(), accelera::ShapeError);
  EXPECT_THROW((void)accelera::full(Shape{2}, std::complex<double>(0, 1), DType::f32), accelera::DTypeError);
  EXPECT_EQ(accelera::complex_dtype(DType::i16), DType::c64);
  EXPECT_EQ(accelera::complex_dtype(DType::i32), DType::c128);
  EXPECT_EQ(accelera::real_dtype(DType::c128), DType::f64);
}

TEST_P(ComplexOps, CopiesBetweenComplexAndRealDtypes) {
  const Device dev = GetParam();
  std::mt19937_64 rng(3);
  for (DType dtype : {DType::c64, DType::c128}) {
    if (!accelera::supports(dev, "copy", accelera::real_dtype(dtype))) continue;
    SCOPED_TRACE(std::string(accelera::dtype_name(dtype)));
    const Tensor z = random_complex(Shape{5, 7}, dtype, rng);
    const std::vector<Z> want = values(z);
    const Tensor on = z.to(dev).T();  // a strided source
    const DType other = dtype == DType::c64 ? DType::c128 : DType::c64;
    expect_close(values(on.astype(other).T()), want, tol_of(DType::c64));
    const Tensor re = on.astype(DType::f64).T().to(Device::cpu());
    for (std::int64_t i = 0; i < 5; ++i) EXPECT_EQ(get(re, {i, 3}), static_cast<double>(want[i * 7 + 3].real()));
    // Real to complex: imaginary parts zero; complex to bool: either part nonzero.
    const Tensor from_real = accelera::ones(Shape{4}, DType::i32, dev).astype(dtype);
    expect_close(values(from_real), std::vector<Z>(4, Z(1, 0)), 0);
    const Tensor imaginary = accelera::full(Shape{2}, std::complex<double>(0, 3), dtype, dev);
    EXPECT_EQ(values_of(imaginary.astype(DType::boolean).to(Device::cpu())), (std::vector<double>{1, 1}));
  }
}

TEST_P(ComplexOps, ProductsReductionsAndMovesMatchReferences) {
  const Device dev = GetParam();
  std::mt19937_64 rng(5);
  for (DType dtype : {DType::c64, DType::c128}) {
    if (!accelera::supports(dev, "complex_binary", dtype)) continue;
    SCOPED_TRACE(std::string(accelera::dtype_name(dtype)));
    const std::int64_t m = 7, k = 13, n = 5;
    const Tensor a = random_complex(Shape{m, k}, dtype, rng), b = random_complex(Shape{k, n}, dtype, rng);
    const std::vector<Z> va = values(a), vb = values(b);
    std::vector<Z> product(static_cast<std::size_t>(m * n));
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        for (std::int64_t p = 0; p < k; ++p) product[i * n + j] += va[i * k + p] * vb[p * n + j];
      }
    }
    const Tensor da = a.to(dev), db = b.to(dev);
    expect_close(values(accelera::matmul(da, db)), product, tol_of(dtype, k));
    // matmul_into accumulates into a strided out.
    const Tensor out = accelera::full(Shape{n, m}, std::complex<double>(1, -1), dtype, dev).T();
    accelera::matmul_into(da, db, out, /*accumulate=*/true);
    std::vector<Z> accumulated = product;
    for (auto& v : accumulated) v += Z(1, -1);
    expect_close(values(out), accumulated, tol_of(dtype, k));

    // Sums and products over each axis.
    std::vector<Z> row_sums(static_cast<std::size_t>(m)), column_products(static_cast<std::size_t>(k), Z(1));
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t p = 0; p < k; ++p) {
        row_sums[i] += va[i * k + p];
        column_products[p] *= va[i * k + p];
      }
    }
    expect_close(values(accelera::sum(da, std::vector<std::int64_t>{1})), row_sums, tol_of(dtype, k));
    expect_close(values(accelera::prod(da, std::vector<std::int64_t>{0})), column_products, tol_of(dtype, m));
    std::vector<Z> means = row_sums;
    for (auto& v : means) v /= static_cast<long double>(k);
    expect_close(values(accelera::mean(da, std::vector<std::int64_t>{1})), means, tol_of(dtype, k));

    // take, where and put move whole elements.
    const Tensor idx = accelera::Tensor::empty(Shape{2}, DType::i64);
    idx.data<std::int64_t>()[0] = 4;
    idx.data<std::int64_t>()[1] = -1;
    const std::vector<Z> taken = values(accelera::take(da, idx.to(dev), 1));
    ASSERT_EQ(taken.size(), static_cast<std::size_t>(2 * m));
    EXPECT_EQ(taken[1], va[k - 1]);
    EXPECT_EQ(taken[2], va[k + 4]);
    const Tensor positive = accelera::greater(accelera::real(da), accelera::zeros(Shape{}, accelera::real_dtype(dtype), dev));
    const Tensor picked = accelera::where(positive, da, accelera::zeros(Shape{}, dtype, dev));
    const std::vector<Z> vp = values(picked);
    for (std::size_t i = 0; i < va.size(); ++i) EXPECT_EQ(vp[i], va[i].real() > 0 ? va[i] : Z(0));
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, ComplexOps, ::testing::ValuesIn(with_cuda_placeholder(all_devices())),
                         device_name);

}  // namespace
}  // namespace acc_test
