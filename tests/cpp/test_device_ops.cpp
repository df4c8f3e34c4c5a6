// The backend-neutral op suite on every device other than the CPU (opencl:N on PoCL in CI, cuda:N on a
// GPU): inputs are built on the host, copied to the device, viewed there with the same strides
// (transposed, stepped, reversed, broadcast), and the device's results are checked against float64
// references computed from the host views.
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

const std::vector<Shape> kShapes = {Shape{}, Shape{1}, Shape{7}, Shape{0, 5}, Shape{13, 31}, Shape{3, 1, 127},
                                    Shape{2, 3, 4, 5}};

class DeviceOps : public ::testing::TestWithParam<Device> {
 protected:
  void SetUp() override {
    if (const std::string why = device_absence(GetParam()); !why.empty()) GTEST_SKIP() << why;
  }
  std::mt19937_64 rng{42};
};

TEST(DeviceOpsSuite, ReportsWhichDevicesRun) {
  const auto devs = accelerator_devices();
  if (devs.empty()) GTEST_SKIP() << "no device other than the CPU answers: the device op suite has nothing to run";
  for (const auto& d : devs) std::cout << "device op suite runs on " << d.str() << "\n";
}

TEST_P(DeviceOps, BinaryOpsMatchFloat64) {
  const Device dev = GetParam();
  using F = std::function<Tensor(const Tensor&, const Tensor&)>;
  const std::pair<F, std::function<double(double, double)>> ops[] = {
      {[](auto& a, auto& b) { return accelera::add(a, b); }, [](double x, double y) { return x + y; }},
      {[](auto& a, auto& b) { return accelera::subtract(a, b); }, [](double x, double y) { return x - y; }},
      {[](auto& a, auto& b) { return accelera::multiply(a, b); }, [](double x, double y) { return x * y; }},
      {[](auto& a, auto& b) { return accelera::divide(a, b); }, [](double x, double y) { return x / y; }},
  };
  for (DType dt : {DType::f32, DType::f64, DType::i32, DType::i64}) {
    for (std::size_t o = 0; o < 4; ++o) {
      if (o == 3 && !is_float(dt)) continue;
      for (const Shape& shape : kShapes) {
        for (Layout la : kAllLayouts) {
          const Input a = make_device_input(shape, dt, la, rng, 0.5, 2.0);
          const Input b = make_device_input(shape, dt, Layout::broadcast, rng, 0.5, 2.0);
          const Tensor got = ops[o].first(a.on(dev), b.on(dev));
          ASSERT_EQ(got.device(), dev);
          const Ref ref = ref_binary(a.host(), b.host(), ops[o].second);
          EXPECT_TRUE(matches(got.to(Device::cpu()), ref, tol_for(dt)))
              << "op " << o << " " << accelera::dtype_name(dt) << " " << shape.str() << " " << layout_name(la);
        }
      }
    }
  }
}

TEST_P(DeviceOps, UnaryOpsMatchFloat64) {
  const Device dev = GetParam();
  using F = std::function<Tensor(const Tensor&)>;
  struct Case {
    F op;
    std::function<double(double)> ref;
    double lo, hi;
  };
  const Case cases[] = {
      {[](auto& x) { return accelera::neg(x); }, [](double x) { return -x; }, -3, 3},
      {[](auto& x) { return accelera::exp(x); }, [](double x) { return std::exp(x); }, -20, 20},
      {[](auto& x) { return accelera::log(x); }, [](double x) { return std::log(x); }, 1e-3, 1e3},
      {[](auto& x) { return accelera::tanh(x); }, [](double x) { return std::tanh(x); }, -5, 5},
      {[](auto& x) { return accelera::relu(x); }, [](double x) { return x > 0 ? x : 0.0; }, -3, 3},
      {[](auto& x) { return accelera::sigmoid(x); }, [](double x) { return 1 / (1 + std::exp(-x)); }, -20, 20},
  };
  for (DType dt : {DType::f32, DType::f64}) {
    for (const auto& c : cases) {
      for (const Shape& shape : kShapes) {
        for (Layout layout : kAllLayouts) {
          const Input x = make_device_input(shape, dt, layout, rng, c.lo, c.hi);
          const Tensor got = c.op(x.on(dev));
          // OpenCL's built-in exp/log/tanh may be off by up to 4 ulp.
          Tol tol = tol_for(dt);
          if (dt == DType::f32) tol.rtol = 4e-6;
          EXPECT_TRUE(matches(got.to(Device::cpu()), ref_unary(x.host(), c.ref), tol))
              << accelera::dtype_name(dt) << " " << shape.str() << " " << layout_name(layout);
        }
      }
    }
  }
}

TEST_P(DeviceOps, ReductionsMatchFloat64) {
  const Device dev = GetParam();
  for (DType dt : {DType::f32, DType::f64, DType::i64}) {
    for (Layout layout : {Layout::contiguous, Layout::transposed, Layout::step2, Layout::broadcast}) {
      const Shape shape{13, 1, 127};
      const Input x = make_device_input(shape, dt, layout, rng, -4, 4);
      for (const accelera::Axes& ax : {accelera::Axes{}, axes({0}), axes({-1}), axes({0, 2}), axes({1})}) {
        const Tensor host = x.host();
        const Tensor dx = x.on(dev);
        const Tensor s = accelera::sum(dx, ax).to(Device::cpu());
        const Tensor m = accelera::max(dx, ax).to(Device::cpu());
        // References from the CPU backend in float64 (itself checked against plain loops elsewhere).
        const Tensor host64 = is_float(dt) ? host.astype(DType::f64) : host;
        const Tensor s_ref = accelera::sum(host64, ax);
        const Tensor m_ref = accelera::max(host64, ax);
        ASSERT_EQ(s.shape(), s_ref.shape());
        const auto sv = values_of(s), sr = values_of(s_ref), mv = values_of(m), mr = values_of(m_ref);
        for (std::size_t i = 0; i < sv.size(); ++i) {
          EXPECT_NEAR(sv[i], sr[i], 1e-4 * 13 * 127 * 4) << "sum " << accelera::dtype_name(dt) << " " << layout_name(layout);
          EXPECT_EQ(mv[i], mr[i]) << "max " << accelera::dtype_name(dt) << " " << layout_name(layout);
        }
        if (is_float(dt)) {
          const Tensor mean = accelera::mean(dx, ax).to(Device::cpu());
          const auto meanv = values_of(mean), meanr = values_of(accelera::mean(host64, ax));
          for (std::size_t i = 0; i < meanv.size(); ++i) EXPECT_NEAR(meanv[i], meanr[i], 1e-5 * 4);
        }
      }
    }
  }
}

TEST_P(DeviceOps, MatmulMatchesFloat64) {
  const Device dev = GetParam();
  struct Case {
    Shape a, b;
    Layout la, lb;
  };
  const Case cases[] = {
      {Shape{1, 1}, Shape{1, 1}, Layout::contiguous, Layout::contiguous},
      {Shape{7, 13}, Shape{13, 5}, Layout::contiguous, Layout::transposed},
      {Shape{64, 33}, Shape{33, 17}, Layout::transposed, Layout::step2},
      {Shape{31, 127}, Shape{127, 29}, Layout::negstep, Layout::contiguous},
      {Shape{2, 1, 3, 4}, Shape{5, 4, 6}, Layout::contiguous, Layout::broadcast},
      {Shape{5, 0}, Shape{0, 3}, Layout::contiguous, Layout::contiguous},
  };
  for (DType dt : {DType::f32, DType::f64}) {
    for (const auto& c : cases) {
      const Input a = make_device_input(c.a, dt, c.la, rng);
      const Input b = make_device_input(c.b, dt, c.lb, rng);
      const Tensor got = accelera::matmul(a.on(dev), b.on(dev)).to(Device::cpu());
      const Tensor ref = accelera::matmul(a.host().astype(DType::f64), b.host().astype(DType::f64));
      ASSERT_EQ(got.shape(), ref.shape());
      const double k = static_cast<double>(c.a[c.a.ndim() - 1]);
      const auto gv = values_of(got), rv = values_of(ref);
      for (std::size_t i = 0; i < gv.size(); ++i) {
        EXPECT_NEAR(gv[i], rv[i], (k + 2) * eps_of(dt) * k) << c.a.str() << " @ " << c.b.str();
      }
    }
  }
}

TEST_P(DeviceOps, CastsAndCopiesMatchTheCpu) {
  const Device dev = GetParam();
  for (DType from : accelera::all_dtypes) {
    const Input x = make_device_input(Shape{17, 9}, from, Layout::transposed, rng, -70000, 70000);
    for (DType to : accelera::all_dtypes) {
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

INSTANTIATE_TEST_SUITE_P(Devices, DeviceOps, ::testing::ValuesIn(with_cuda_placeholder(accelerator_devices())),
                         device_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(DeviceOps);

}  // namespace
}  // namespace acc_test
