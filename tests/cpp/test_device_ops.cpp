// What every device other than the CPU must do as the CPU does, beyond the op test table (which checks
// every op against float64 references, test_op_table.cpp): conversions out of range give the CPU's bits,
// and budgets and device mismatches raise typed errors.
#include <functional>

#include "helpers.hpp"

namespace acc_test {
namespace {

using accelera::DeviceKind;

std::vector<Device> accelerator_devices() {
  std::vector<Device> out;
  for (const auto& info : accelera::devices()) {
    if (!info.device.is_cpu()) out.push_back(info.device);
  }
  return out;
}

using ViewFn = std::function<Tensor(const Tensor&)>;

// A host base tensor and the view to take of it; the device input is the same view of base.to(device).
struct Input {
  Tensor base;
  ViewFn view;
  Tensor host() const { return view(base); }
  Tensor on(const Device& d) const { return view(base.to(d)); }
};

Input make_device_input(const Shape& shape, DType dt, Layout layout, std::mt19937_64& rng, double lo = -1.0,
                        double hi = 1.0) {
  const auto& d = shape.dims();
  const auto n = static_cast<std::int64_t>(d.size());
  switch (layout) {
    case Layout::transposed: {
      std::vector<std::int64_t> rev(d.rbegin(), d.rend());
      return {random_tensor(Shape(rev), dt, rng, lo, hi), [](const Tensor& t) { return t.T(); }};
    }
    case Layout::step2: {
      std::vector<std::int64_t> base;
      for (auto e : d) base.push_back(2 * e + 1);
      return {random_tensor(Shape(base), dt, rng, lo, hi), [n, d](const Tensor& t) {
                Tensor v = t;
                for (std::int64_t i = 0; i < n; ++i) v = v.slice(i, 1, 2 * d[static_cast<std::size_t>(i)] + 1, 2);
                return v;
              }};
    }
    case Layout::negstep:
      return {random_tensor(shape, dt, rng, lo, hi), [n](const Tensor& t) {
                Tensor v = t;
                for (std::int64_t i = 0; i < n; ++i) v = v.slice(i, -1, std::numeric_limits<std::int64_t>::min(), -1);
                return v;
              }};
    case Layout::broadcast: {
      std::vector<std::int64_t> base;
      for (auto e : d) base.push_back(std::bernoulli_distribution(0.5)(rng) ? 1 : e);
      return {random_tensor(Shape(base), dt, rng, lo, hi), [shape](const Tensor& t) { return t.broadcast_to(shape); }};
    }
    case Layout::contiguous:
      break;
  }
  return {random_tensor(shape, dt, rng, lo, hi), [](const Tensor& t) { return t; }};
}


class DeviceOps : public ::testing::TestWithParam<Device> {
 protected:
  void SetUp() override {
    if (const std::string why = device_absence(GetParam()); !why.empty()) GTEST_SKIP() << why;
  }
  std::mt19937_64 rng{42};
};

TEST_P(DeviceOps, CastsAndCopiesMatchTheCpu) {
  const Device dev = GetParam();
  for (DType from : accelera::real_dtypes) {
    const Input x = make_device_input(Shape{17, 9}, from, Layout::transposed, rng, -70000, 70000);
    for (DType to : accelera::real_dtypes) {
      const Tensor got = x.on(dev).astype(to).to(Device::cpu());
      const Tensor want = x.host().astype(to);
      EXPECT_EQ(storage_bytes(got.contiguous()), storage_bytes(want.contiguous()))
          << accelera::dtype_name(from) << " -> " << accelera::dtype_name(to);
    }
  }
  const Tensor z = accelera::full(Shape{1000}, 2.5, DType::f32, dev).to(Device::cpu());
  for (double v : values_of(z)) ASSERT_EQ(v, 2.5);
}

TEST_P(DeviceOps, BudgetAndDeviceErrorsAreTyped) {
  const Device dev = GetParam();
  auto& alloc = accelera::allocator_for(dev);
  const auto budget = alloc.budget();
  alloc.set_budget(1 << 20);
  EXPECT_THROW(Tensor::empty(Shape{1 << 20}, DType::f32, dev), accelera::OutOfMemoryError);
  alloc.set_budget(budget);
  const Tensor on_device = accelera::ones(Shape{3}, DType::f32, dev);
  EXPECT_THROW(accelera::add(on_device, accelera::ones(Shape{3})), accelera::DeviceError);
}

// Products with a long K (PoCL's CPU device runs them as GEMMs over slices of K, Note [K in slices on
// PoCL]): against float64 on the host, with K not a multiple of the slice, transposed and strided operands,
// a batch, and an accumulating product.
TEST_P(DeviceOps, LongInnerProductsMatchFloat64) {
  const Device dev = GetParam();
  const auto check = [&](const Tensor& got, const Tensor& a, const Tensor& b, const Tensor* c0, DType dt,
                         const std::string& what) {
    const Tensor a64 = a.astype(DType::f64), b64 = b.astype(DType::f64);
    Tensor want = accelera::matmul(a64, b64);
    if (c0 != nullptr) want = accelera::add(want, c0->astype(DType::f64));
    const auto bound = values_of(accelera::matmul(accelera::abs(a64), accelera::abs(b64)));
    const auto g = values_of(got.to(Device::cpu())), w = values_of(want);
    const double k = static_cast<double>(a.shape()[a.ndim() - 1]);
    ASSERT_EQ(g.size(), w.size()) << what;
    for (std::size_t i = 0; i < g.size(); ++i) {
      ASSERT_LE(std::fabs(g[i] - w[i]), (k + 2) * eps_of(dt) * (bound[i] + 1.0)) << what << " at " << i;
    }
  };
  for (DType dt : {DType::f32, DType::f64}) {
    for (auto [la, lb] : {std::pair{Layout::contiguous, Layout::contiguous},
                          std::pair{Layout::transposed, Layout::step2},
                          std::pair{Layout::negstep, Layout::transposed}}) {
      const Input a = make_device_input(Shape{130, 601}, dt, la, rng), b = make_device_input(Shape{601, 129}, dt, lb, rng);
      check(accelera::matmul(a.on(dev), b.on(dev)), a.host(), b.host(), nullptr, dt,
            std::string(accelera::dtype_name(dt)) + " " + layout_name(la) + " @ " + layout_name(lb));
    }
    const Tensor a = random_tensor(Shape{2, 128, 777}, dt, rng), b = random_tensor(Shape{777, 200}, dt, rng);
    check(accelera::matmul(a.to(dev), b.to(dev)), a, b, nullptr, dt, "batched");
    const Tensor a2 = random_tensor(Shape{128, 1000}, dt, rng), b2 = random_tensor(Shape{1000, 140}, dt, rng);
    const Tensor c0 = random_tensor(Shape{128, 140}, dt, rng);
    const Tensor c = c0.to(dev);
    accelera::matmul_into(a2.to(dev), b2.to(dev), c, /*accumulate=*/true);
    check(c, a2, b2, &c0, dt, "accumulating");
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, DeviceOps, ::testing::ValuesIn(with_cuda_placeholder(accelerator_devices())),
                         device_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(DeviceOps);

}  // namespace
}  // namespace acc_test
