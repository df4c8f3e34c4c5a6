// accelera::nn mixed precision: the autocast policy (which functions cast, to what, and that a float32
// weight still gets a float32 gradient), dynamic loss scaling, and training with mixed_precision, on every
// device.
#include <limits>

#include "accelera/nn.hpp"
#include "accelera/nn/amp.hpp"
#include "helpers.hpp"

namespace acc_test {
namespace {

namespace nn = accelera::nn;
namespace amp = accelera::nn::amp;
namespace F = accelera::nn::functional;
using nn::Variable;

class NnAmp : public ::testing::TestWithParam<Device> {
 protected:
  Device dev() const { return GetParam(); }
  std::mt19937_64 rng{2026};
  Variable leaf(const Shape& shape, bool grad = true) {
    return Variable(random_tensor(shape, DType::f32, rng).to(dev()), grad);
  }
};

double max_relative_difference(const Tensor& got, const Tensor& want) {
  const auto g = values_of(got.to(Device::cpu()).astype(DType::f64)), w = values_of(want.to(Device::cpu()).astype(DType::f64));
  double scale = 0, worst = 0;
  for (double v : w) scale = std::max(scale, std::abs(v));
  for (std::size_t i = 0; i < g.size(); ++i) worst = std::max(worst, std::abs(g[i] - w[i]));
  return worst / std::max(scale, 1e-30);
}

TEST_P(NnAmp, ProductsRunInTheAutocastDtypeAndWeightsKeepFloat32Gradients) {
  Variable x = leaf({16, 24}, false), w = leaf({8, 24}), b = leaf({8});
  // The float32 reference.
  Variable reference = F::linear(x, w, b);
  F::sum(reference).backward();
  const Tensor want_grad = w.grad().clone();
  w.zero_grad();
  b.zero_grad();
  for (DType half : {DType::bf16, DType::f16}) {
    SCOPED_TRACE(accelera::dtype_name(half));
    Variable y;
    {
      amp::Autocast autocast(half);
      EXPECT_EQ(amp::autocast_dtype(), half);
      y = F::linear(x, w, b);
      EXPECT_EQ(y.dtype(), half);
      // Precision-sensitive functions take half operands up to float32.
      EXPECT_EQ(F::softmax(y).dtype(), DType::f32);
      EXPECT_EQ(F::log_softmax(y).dtype(), DType::f32);
      EXPECT_EQ(F::mse_loss(y, accelera::zeros(Shape{16, 8}, DType::f32, dev())).dtype(), DType::f32);
      // Everything else runs in the dtype it is given.
      EXPECT_EQ(F::relu(y).dtype(), half);
    }
    EXPECT_FALSE(amp::is_autocast_enabled());
    EXPECT_EQ(F::linear(x, w, b).dtype(), DType::f32);  // outside: float32 again
    F::sum(y).backward();  // a half seed, back through the casts
    ASSERT_EQ(w.grad().dtype(), DType::f32);  // the master weight's gradient
    EXPECT_LT(max_relative_difference(y.value(), reference.value()), half == DType::bf16 ? 2e-2 : 2e-3);
    EXPECT_LT(max_relative_difference(w.grad(), want_grad), half == DType::bf16 ? 2e-2 : 2e-3);
    w.zero_grad();
    b.zero_grad();
  }
}

TEST_P(NnAmp, ScopesNestAndTurnOff) {
  {
    amp::Autocast outer(DType::bf16);
    {
      amp::Autocast inner(DType::f16);
      EXPECT_EQ(amp::autocast_dtype(), DType::f16);
      {
        amp::Autocast off(DType::f16, false);
        EXPECT_FALSE(amp::is_autocast_enabled());
      }
      EXPECT_EQ(amp::autocast_dtype(), DType::f16);
    }
    EXPECT_EQ(amp::autocast_dtype(), DType::bf16);
  }
  EXPECT_FALSE(amp::is_autocast_enabled());
  EXPECT_THROW(amp::Autocast(DType::f32), accelera::DTypeError);
}

TEST_P(NnAmp, GradScalerUnscalesSkipsOverflowsAndAdjustsTheScale) {
  Variable w(accelera::full(Shape{4}, 1.0, DType::f32, dev()), true);
  nn::optim::SGD sgd({w}, 0.5);
  amp::GradScaler scaler({.init_scale = 1024.0, .growth_interval = 2});
  // sum(3 w): gradient 3, scaled to 3072 by backward, unscaled to 3 by the step.
  scaler.scale(F::scale(F::sum(w), 3.0)).backward();
  EXPECT_NEAR(values_of(w.grad().to(Device::cpu()))[0], 3.0 * 1024.0, 1e-3);
  EXPECT_TRUE(scaler.step(sgd));
  for (double v : values_of(w.value().to(Device::cpu()))) EXPECT_NEAR(v, 1.0 - 0.5 * 3.0, 1e-6);
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 1024.0);
  // An overflowing gradient: the step is skipped and the scale backs off.
  sgd.zero_grad();
  Tensor huge = accelera::full(Shape{4}, std::numeric_limits<float>::infinity(), DType::f32, dev());
  w.set_grad(huge);
  const Tensor before = w.value().clone();
  EXPECT_FALSE(scaler.step(sgd));
  EXPECT_EQ(values_of(w.value().to(Device::cpu())), values_of(before.to(Device::cpu())));
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 512.0);
  EXPECT_EQ(scaler.skipped_steps(), 1);
  // Two calm steps in a row grow it again.
  for (int i = 0; i < 2; ++i) {
    sgd.zero_grad();
    scaler.scale(F::sum(w)).backward();
    EXPECT_TRUE(scaler.step(sgd));
    scaler.update();
  }
  EXPECT_EQ(scaler.get_scale(), 1024.0);
  // Out of order and out of range.
  EXPECT_THROW(scaler.update(), accelera::ValueError);
  scaler.scale(F::sum(w)).backward();
  scaler.unscale_(sgd);
  EXPECT_THROW(scaler.unscale_(sgd), accelera::ValueError);
  EXPECT_THROW(amp::GradScaler({.growth_factor = 1.0}), accelera::ValueError);
  EXPECT_THROW(amp::GradScaler({.init_scale = -1.0}), accelera::ValueError);
  // Disabled: a plain step.
  amp::GradScaler off({.enabled = false});
  EXPECT_EQ(off.get_scale(), 1.0);
}

TEST_P(NnAmp, NetworksTrainInMixedPrecision) {
  std::mt19937_64 data_rng(5);
  std::normal_distribution<float> noise(0.0f, 0.4f);
  constexpr std::int64_t n = 240;
  Tensor x = Tensor::empty(Shape{n, 4}, DType::f32), y = Tensor::empty(Shape{n}, DType::i64);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t c = i % 3;
    y.data<std::int64_t>()[i] = c;
    for (int j = 0; j < 4; ++j) x.data<float>()[i * 4 + j] = noise(data_rng) + (j == c ? 2.0f : 0.0f);
  }
  std::vector<double> float32_losses;
  for (const char* precision : {"", "bfloat16", "float16"}) {
    SCOPED_TRACE(precision);
    nn::Network network = nn::Network::with_input_size(4, dev())
                              .add_layer(nn::LayerBuilder::dense(16).activation(nn::Activation::ReLU))
                              .add_layer(nn::LayerBuilder::dense(3).activation(nn::Activation::Softmax))
                              .loss(nn::Loss::CategoricalCrossEntropy)
                              .build();
    nn::TrainingConfig config;
    config.max_epochs = 15;
    config.batch_size = 32;
    config.learning_rate = 1e-2;
    config.verbose = false;
    config.mixed_precision = precision;
    const nn::History history = network.train(x, y, config);
    EXPECT_LT(history.train_loss.back(), 0.5 * history.train_loss.front());
    EXPECT_GT(history.train_metrics.at("accuracy").back(), 0.9);
    for (const Variable& p : network.parameters()) EXPECT_EQ(p.dtype(), DType::f32);  // the master weights
    if (config.mixed_precision.empty()) {
      float32_losses = history.train_loss;
    } else {  // the same run in half products: close to float32's, not the same numbers
      EXPECT_NE(history.train_loss, float32_losses);
      EXPECT_NEAR(history.train_loss.back(), float32_losses.back(), 0.1 * float32_losses.back());
    }
  }
  nn::TrainingConfig bad;
  bad.mixed_precision = "float32";
  EXPECT_THROW(bad.validate(), accelera::ValueError);
}

INSTANTIATE_TEST_SUITE_P(AllDevices, NnAmp, ::testing::ValuesIn(all_devices()), device_name);

}  // namespace
}  // namespace acc_test
