// accelera::nn autograd: every differentiable function's gradient against float64 central differences, on
// every device, and the graph's bookkeeping (accumulation, release, no_grad, bad seeds).
#include <functional>

#include "accelera/nn.hpp"
#include "helpers.hpp"

namespace acc_test {
namespace {

using accelera::nn::NoGradGuard;
using accelera::nn::Variable;
namespace F = accelera::nn::functional;

using Fn = std::function<Variable(const std::vector<Variable>&)>;

class NnAutograd : public ::testing::TestWithParam<Device> {
 protected:
  Device dev() const { return GetParam(); }
  std::mt19937_64 rng{20261124};

  Tensor input(const Shape& shape, double lo = -1.0, double hi = 1.0) {
    return random_tensor(shape, DType::f64, rng, lo, hi);
  }

  // sum(f(inputs) * w) for fixed random weights w: a scalar whose gradient reaches every output element.
  double scalar_of(const Fn& f, const std::vector<Tensor>& host_inputs, const Tensor& weights) {
    NoGradGuard no_grad;
    std::vector<Variable> vars;
    for (const auto& t : host_inputs) vars.emplace_back(t.to(dev()));
    Tensor out = f(vars).value().to(Device::cpu()).contiguous();
    double total = 0;
    const auto values = values_of(out), w = values_of(weights);
    for (std::size_t i = 0; i < values.size(); ++i) total += values[i] * w[i];
    return total;
  }

  // Checks d scalar_of / d inputs[i] for every input that `differentiable` names.
  void check(const char* what, const Fn& f, std::vector<Tensor> host_inputs, std::vector<bool> differentiable = {}) {
    SCOPED_TRACE(what);
    if (differentiable.empty()) differentiable.assign(host_inputs.size(), true);
    std::vector<Variable> vars;
    for (std::size_t i = 0; i < host_inputs.size(); ++i) vars.emplace_back(host_inputs[i].to(dev()), differentiable[i]);
    Variable out = f(vars);
    Tensor weights = random_tensor(out.shape(), DType::f64, rng, -1.0, 1.0);
    F::sum(F::multiply(out, Variable(weights.to(dev())))).backward();
    const double h = 1e-6;
    for (std::size_t i = 0; i < host_inputs.size(); ++i) {
      if (!differentiable[i]) {
        EXPECT_FALSE(vars[i].grad().defined()) << "input " << i;
        continue;
      }
      ASSERT_TRUE(vars[i].grad().defined()) << "input " << i << " got no gradient";
      ASSERT_EQ(vars[i].grad().shape(), host_inputs[i].shape()) << "input " << i;
      const auto analytic = values_of(vars[i].grad().to(Device::cpu()).contiguous());
      Tensor x = host_inputs[i].clone();
      double* p = x.data<double>();
      for (std::int64_t e = 0; e < x.numel(); ++e) {
        const double saved = p[e];
        std::vector<Tensor> shifted = host_inputs;
        shifted[i] = x;
        p[e] = saved + h;
        const double up = scalar_of(f, shifted, weights);
        p[e] = saved - h;
        const double down = scalar_of(f, shifted, weights);
        p[e] = saved;
        const double numeric = (up - down) / (2 * h);
        EXPECT_NEAR(analytic[static_cast<std::size_t>(e)], numeric, 1e-6 * std::max(1.0, std::abs(numeric)))
            << "input " << i << " element " << e;
      }
    }
  }
};

TEST_P(NnAutograd, ArithmeticWithBroadcasting) {
  check("add", [](auto& v) { return F::add(v[0], v[1]); }, {input({3, 4}), input({1, 4})});
  check("subtract", [](auto& v) { return F::subtract(v[0], v[1]); }, {input({2, 3, 1}), input({3, 5})});
  check("multiply", [](auto& v) { return F::multiply(v[0], v[1]); }, {input({3, 4}), input({3, 1})});
  check("scale", [](auto& v) { return F::scale(v[0], -2.5); }, {input({7})});
  check("sum", [](auto& v) { return F::sum(v[0]); }, {input({2, 3})});
  check("mean", [](auto& v) { return F::mean(v[0]); }, {input({5, 1, 3})});
}

TEST_P(NnAutograd, ProductsAndShapes) {
  check("matmul", [](auto& v) { return F::matmul(v[0], v[1]); }, {input({3, 5}), input({5, 2})});
  check("batched matmul", [](auto& v) { return F::matmul(v[0], v[1]); }, {input({2, 3, 4}), input({4, 1})});
  check("linear", [](auto& v) { return F::linear(v[0], v[1], v[2]); }, {input({4, 3}), input({5, 3}), input({5})});
  check("linear 3-d, no bias", [](auto& v) { return F::linear(v[0], v[1], Variable()); }, {input({2, 3, 3}), input({1, 3})});
  check("linear, data without gradient", [](auto& v) { return F::linear(v[0], v[1], v[2]); },
        {input({4, 3}), input({2, 3}), input({2})}, {false, true, true});
  check("reshape", [](auto& v) { return F::reshape(v[0], {3, 2}); }, {input({2, 3})});
  check("flatten", [](auto& v) { return F::flatten(v[0]); }, {input({2, 2, 3})});
}

TEST_P(NnAutograd, Activations) {
  // Inputs kept away from relu's kink at 0, where central differences straddle it.
  Tensor x = input({4, 5});
  for (std::int64_t i = 0; i < x.numel(); ++i)
    if (std::abs(x.data<double>()[i]) < 1e-3) x.data<double>()[i] = 0.5;
  check("relu", [](auto& v) { return F::relu(v[0]); }, {x});
  check("leaky_relu", [](auto& v) { return F::leaky_relu(v[0], 0.2); }, {x});
  check("sigmoid", [](auto& v) { return F::sigmoid(v[0]); }, {input({4, 5}, -4, 4)});
  check("tanh", [](auto& v) { return F::tanh(v[0]); }, {input({4, 5}, -3, 3)});
  check("gelu", [](auto& v) { return F::gelu(v[0]); }, {input({4, 5}, -3, 3)});
  check("silu", [](auto& v) { return F::silu(v[0]); }, {input({4, 5}, -3, 3)});
  check("softmax", [](auto& v) { return F::softmax(v[0], -1); }, {input({3, 7}, -3, 3)});
  check("softmax axis 0", [](auto& v) { return F::softmax(v[0], 0); }, {input({3, 7}, -3, 3)});
  check("log_softmax", [](auto& v) { return F::log_softmax(v[0], -1); }, {input({3, 7}, -3, 3)});
  check("dropout", [](auto& v) { return F::dropout(v[0], 0.3, true, 7, 0); }, {input({6, 5})});
}

TEST_P(NnAutograd, NormalisationConvolutionPooling) {
  check("layer_norm", [](auto& v) { return F::layer_norm(v[0], v[1], v[2], 1e-5); },
        {input({3, 6}), input({6}), input({6})});
  accelera::ConvWindow conv_window{{}, {2}, {1}, {}};
  check("conv", [&](auto& v) { return F::conv(v[0], v[1], v[2], conv_window); },
        {input({2, 3, 5, 5}), input({4, 3, 3, 3}), input({4})});
  check("conv, first layer", [&](auto& v) { return F::conv(v[0], v[1], Variable(), conv_window); },
        {input({1, 2, 4, 3}), input({3, 2, 2, 2})}, {false, true});
  // One and three spatial axes, with stride, padding and dilation.
  check("conv1d", [](auto& v) { return F::conv(v[0], v[1], v[2], accelera::ConvWindow{{3}, {2}, {1}, {2}}); },
        {input({2, 2, 9}), input({3, 2, 3}), input({3})});
  check("conv3d", [](auto& v) { return F::conv(v[0], v[1], v[2], accelera::ConvWindow{{2, 1, 2}, {1, 1, 2}, {1, 0, 0}, {1, 1, 1}}); },
        {input({1, 2, 3, 2, 4}), input({2, 2, 2, 1, 2}), input({2})});
  check("avg_pool3d", [](auto& v) { return F::avg_pool(v[0], accelera::ConvWindow{{2, 2, 2}, {1, 2, 1}, {1, 0, 0}, {}}); },
        {input({1, 2, 3, 4, 3})});
  // Distinct values, so that no window has a tie that a small step could flip.
  Tensor image = Tensor::empty(Shape{2, 2, 5, 4}, DType::f64);
  for (std::int64_t i = 0; i < image.numel(); ++i) image.data<double>()[i] = std::sin(1.7 * static_cast<double>(i) + 0.3);
  check("max_pool", [](auto& v) { return F::max_pool(v[0], accelera::ConvWindow{{2, 2}, {2, 1}, {}, {}}); }, {image});
  check("avg_pool", [](auto& v) { return F::avg_pool(v[0], accelera::ConvWindow{{3, 2}, {1, 2}, {1, 0}, {}}); },
        {input({2, 3, 5, 4})});
}

TEST_P(NnAutograd, BatchNormEmbeddingAttention) {
  for (bool training : {true, false}) {
    SCOPED_TRACE(training ? "training" : "evaluation");
    Tensor running_mean = input({3}).to(dev()), running_var = input({3}, 0.5, 2.0).to(dev());
    check("batch_norm (N, C)", [&](auto& v) {
      return F::batch_norm(v[0], running_mean.clone(), running_var.clone(), v[1], v[2], training);
    }, {input({5, 3}), input({3}), input({3})});
    check("batch_norm (N, C, H, W)", [&](auto& v) {
      return F::batch_norm(v[0], running_mean.clone(), running_var.clone(), v[1], Variable(), training);
    }, {input({2, 3, 2, 3}), input({3})});
  }
  Tensor indices = Tensor::empty(Shape{2, 3}, DType::i64);
  const std::int64_t picked[] = {4, 0, 4, 2, 2, 4};  // repeated rows add their gradients up
  for (int i = 0; i < 6; ++i) indices.data<std::int64_t>()[i] = picked[i];
  Tensor indices_here = indices.to(dev());
  check("embedding", [&](auto& v) { return F::embedding(indices_here, v[0]); }, {input({5, 3})});
  check("permute", [](auto& v) { return F::contiguous(F::permute(v[0], {2, 0, 1})); }, {input({2, 3, 4})});
  for (bool causal : {false, true}) {
    SCOPED_TRACE(causal ? "causal" : "full");
    check("attention", [&](auto& v) { return F::attention(v[0], v[1], v[2], causal); },
          {input({1, 2, 3, 4}), input({1, 2, 5, 4}), input({1, 2, 5, 4})});
  }
}

TEST_P(NnAutograd, BatchNormRunningStatistics) {
  // Training blends the batch mean and the unbiased variance into the running statistics.
  Tensor x = input({4, 2});
  Tensor mean = accelera::zeros(Shape{2}, DType::f64, dev()), var = accelera::ones(Shape{2}, DType::f64, dev());
  F::batch_norm(Variable(x.to(dev())), mean, var, Variable(), Variable(), true, 0.25);
  const auto m = values_of(mean.to(Device::cpu())), v = values_of(var.to(Device::cpu()));
  for (std::int64_t c = 0; c < 2; ++c) {
    double mu = 0, ss = 0;
    for (std::int64_t r = 0; r < 4; ++r) mu += get(x, {r, c}) / 4;
    for (std::int64_t r = 0; r < 4; ++r) ss += (get(x, {r, c}) - mu) * (get(x, {r, c}) - mu);
    EXPECT_NEAR(m[static_cast<std::size_t>(c)], 0.25 * mu, 1e-14);
    EXPECT_NEAR(v[static_cast<std::size_t>(c)], 0.75 + 0.25 * ss / 3, 1e-14);
  }
  EXPECT_THROW(F::batch_norm(Variable(accelera::ones(Shape{1, 2}, DType::f64, dev())), mean, var, Variable(), Variable(), true),
               accelera::ShapeError);  // one value per channel
  Tensor bad = Tensor::empty(Shape{2}, DType::i64);
  bad.data<std::int64_t>()[0] = 1;
  bad.data<std::int64_t>()[1] = 5;
  EXPECT_THROW(F::embedding(bad.to(dev()), Variable(accelera::ones(Shape{5, 2}, DType::f64, dev()), true)),
               accelera::ValueError);
}

TEST_P(NnAutograd, Losses) {
  Tensor labels = Tensor::empty(Shape{5}, DType::i64);
  for (std::int64_t i = 0; i < 5; ++i) labels.data<std::int64_t>()[i] = (3 * i + 1) % 4;
  Tensor labels_here = labels.to(dev());
  check("cross_entropy, labels", [&](auto& v) { return F::cross_entropy(v[0], labels_here); }, {input({5, 4}, -3, 3)});
  Tensor probabilities = accelera::softmax(input({5, 4}, -2, 2), -1).to(dev());
  check("cross_entropy, probabilities", [&](auto& v) { return F::cross_entropy(v[0], probabilities); },
        {input({5, 4}, -3, 3)});
  Tensor bits = accelera::greater(input({4, 3}), accelera::zeros(Shape{}, DType::f64)).astype(DType::f64).to(dev());
  check("binary_cross_entropy_with_logits", [&](auto& v) { return F::binary_cross_entropy_with_logits(v[0], bits); },
        {input({4, 3}, -4, 4)});
  check("binary_cross_entropy", [&](auto& v) { return F::binary_cross_entropy(v[0], bits); }, {input({4, 3}, 0.05, 0.95)});
  Tensor target = input({3, 4}).to(dev());
  check("mse_loss", [&](auto& v) { return F::mse_loss(v[0], target); }, {input({3, 4})});
  check("huber_loss", [&](auto& v) { return F::huber_loss(v[0], target, 0.5); }, {input({3, 4}, -2, 2)});
}

TEST_P(NnAutograd, LossValuesMatchReferences) {
  // Cross-entropy of labels against -mean(log softmax) computed here in float64.
  Tensor logits = input({3, 4}, -3, 3);
  Tensor labels = Tensor::empty(Shape{3}, DType::i64);
  const std::int64_t picked[] = {0, 3, 2};
  for (int i = 0; i < 3; ++i) labels.data<std::int64_t>()[i] = picked[i];
  double expected = 0;
  for (int r = 0; r < 3; ++r) {
    double m = -kInf, s = 0;
    for (int c = 0; c < 4; ++c) m = std::max(m, get(logits, {r, c}));
    for (int c = 0; c < 4; ++c) s += std::exp(get(logits, {r, c}) - m);
    expected -= get(logits, {r, picked[r]}) - m - std::log(s);
  }
  const double got = get(F::cross_entropy(Variable(logits.to(dev())), labels.to(dev())).value().to(Device::cpu()), {});
  EXPECT_NEAR(got, expected / 3, 1e-12);
  // Huber on both sides of delta.
  Tensor pred = Tensor::empty(Shape{2}, DType::f64), tgt = accelera::zeros(Shape{2}, DType::f64);
  pred.data<double>()[0] = 0.3;
  pred.data<double>()[1] = -2.0;
  const double huber = get(F::huber_loss(Variable(pred.to(dev())), tgt.to(dev()), 1.0).value().to(Device::cpu()), {});
  EXPECT_NEAR(huber, (0.5 * 0.09 + (2.0 - 0.5)) / 2, 1e-14);
}

TEST_P(NnAutograd, GradientsAccumulateAcrossBackwardCalls) {
  Variable x(accelera::full(Shape{3}, 2.0, DType::f64, dev()), true);
  F::sum(F::multiply(x, x)).backward();
  F::sum(F::scale(x, 3.0)).backward();
  for (double g : values_of(x.grad().to(Device::cpu()))) EXPECT_DOUBLE_EQ(g, 2 * 2.0 + 3.0);
  x.zero_grad();
  EXPECT_FALSE(x.grad().defined());
  // A variable used twice in one graph gets both contributions.
  Variable y = F::add(F::scale(x, 2.0), F::multiply(x, x));
  F::sum(y).backward();
  for (double g : values_of(x.grad().to(Device::cpu()))) EXPECT_DOUBLE_EQ(g, 2.0 + 2 * 2.0);
}

TEST_P(NnAutograd, GraphIsReleasedUnlessRetained) {
  Variable x(accelera::full(Shape{2}, 1.5, DType::f64, dev()), true);
  Variable loss = F::sum(F::tanh(x));
  loss.backward(Tensor(), /*retain_graph=*/true);
  loss.backward();
  EXPECT_THROW(loss.backward(), accelera::ValueError);
}

TEST_P(NnAutograd, NoGradRecordsNothing) {
  Variable x(accelera::ones(Shape{2}, DType::f64, dev()), true);
  Variable y;
  {
    NoGradGuard guard;
    EXPECT_FALSE(accelera::nn::grad_enabled());
    y = F::sum(F::scale(x, 2.0));
  }
  EXPECT_TRUE(accelera::nn::grad_enabled());
  EXPECT_FALSE(y.requires_grad());
  EXPECT_THROW(y.backward(), accelera::ValueError);
}

TEST_P(NnAutograd, BadSeedsAndLeaves) {
  Variable x(accelera::ones(Shape{2, 2}, DType::f64, dev()), true);
  Variable y = F::scale(x, 2.0);
  EXPECT_THROW(y.backward(), accelera::ShapeError);  // not one element and no seed
  EXPECT_THROW(y.backward(accelera::ones(Shape{3}, DType::f64, dev())), accelera::ShapeError);
  EXPECT_THROW(y.set_requires_grad(false), accelera::ValueError);  // not a leaf
  EXPECT_THROW(Variable(accelera::ones(Shape{2}, DType::i64), true), accelera::DTypeError);
  y.backward(accelera::full(Shape{2, 2}, 0.5, DType::f64, dev()));
  for (double g : values_of(x.grad().to(Device::cpu()))) EXPECT_DOUBLE_EQ(g, 1.0);
}

TEST_P(NnAutograd, LossesRejectBadTargets) {
  Variable logits(accelera::zeros(Shape{3, 4}, DType::f32, dev()), true);
  Tensor labels = Tensor::empty(Shape{3}, DType::i64);
  labels.data<std::int64_t>()[0] = 0;
  labels.data<std::int64_t>()[1] = 4;  // outside [0, 4)
  labels.data<std::int64_t>()[2] = 1;
  EXPECT_THROW(F::cross_entropy(logits, labels.to(dev())), accelera::ValueError);
  EXPECT_THROW(F::cross_entropy(logits, accelera::zeros(Shape{2}, DType::i64, dev())), accelera::ShapeError);
  EXPECT_THROW(F::mse_loss(logits, accelera::zeros(Shape{3, 5}, DType::f32, dev())), accelera::ShapeError);
  EXPECT_THROW(F::huber_loss(logits, accelera::zeros(Shape{3, 4}, DType::f32, dev()), 0.0), accelera::ValueError);
  EXPECT_THROW(F::dropout(logits, 1.0, true, 0, 0), accelera::ValueError);
  EXPECT_FALSE(logits.grad().defined());
}

INSTANTIATE_TEST_SUITE_P(AllDevices, NnAutograd, ::testing::ValuesIn(all_devices()), device_name);

}  // namespace
}  // namespace acc_test
