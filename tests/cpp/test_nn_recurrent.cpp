// accelera::nn LSTM and GRU: each direction's backward through time against float64 central differences on
// every device (the fused-cell and composed loops), the CPU's float32 sequence kernels against the float64
// loop, and the modules' shapes and names (PyTorch's).
#include <omp.h>

#include "accelera/nn.hpp"
#include "accelera/nn_ops.hpp"
#include "helpers.hpp"

namespace acc_test {
namespace {

namespace nn = accelera::nn;
namespace F = accelera::nn::functional;
using nn::Variable;

class NnRecurrent : public ::testing::TestWithParam<Device> {
 protected:
  Device dev() const { return GetParam(); }
  std::mt19937_64 rng{77};
  Tensor input(const Shape& shape) { return random_tensor(shape, DType::f64, rng, -1.0, 1.0); }

  // Central differences of sum(f(inputs) * w) against backward(), every element of every input.
  void check(const char* what, const std::function<Variable(const std::vector<Variable>&)>& f, std::vector<Tensor> host) {
    SCOPED_TRACE(what);
    std::vector<Variable> vars;
    for (const auto& t : host) vars.emplace_back(t.to(dev()), true);
    const Variable out = f(vars);
    const Tensor w = random_tensor(out.shape(), DType::f64, rng, -1.0, 1.0);
    F::sum(F::multiply(out, Variable(w.to(dev())))).backward();
    auto scalar = [&](const std::vector<Tensor>& inputs) {
      nn::NoGradGuard no_grad;
      std::vector<Variable> v;
      for (const auto& t : inputs) v.emplace_back(t.to(dev()));
      const auto values = values_of(f(v).value().to(Device::cpu()).contiguous()), weights = values_of(w);
      double total = 0;
      for (std::size_t i = 0; i < values.size(); ++i) total += values[i] * weights[i];
      return total;
    };
    for (std::size_t i = 0; i < host.size(); ++i) {
      ASSERT_TRUE(vars[i].grad().defined()) << "input " << i;
      const auto analytic = values_of(vars[i].grad().to(Device::cpu()).contiguous());
      for (std::int64_t e = 0; e < host[i].numel(); ++e) {
        std::vector<Tensor> shifted = host;
        shifted[i] = host[i].clone();
        double* p = shifted[i].data<double>();
        const double saved = p[e], h = 1e-6;
        p[e] = saved + h;
        const double up = scalar(shifted);
        p[e] = saved - h;
        const double down = scalar(shifted);
        const double numeric = (up - down) / (2 * h);
        EXPECT_NEAR(analytic[static_cast<std::size_t>(e)], numeric, 1e-6 * std::max(1.0, std::abs(numeric)))
            << "input " << i << " element " << e;
      }
    }
  }
};

TEST_P(NnRecurrent, LstmDirectionGradients) {
  for (bool reverse : {false, true}) {
    SCOPED_TRACE(reverse ? "reverse" : "forward");
    check("lstm", [&](auto& v) { return F::lstm_direction(v[0], v[1], v[2], v[3], v[4], v[5], v[6], reverse); },
          {input({3, 2, 3}), input({2, 2}), input({2, 2}), input({8, 3}), input({8, 2}), input({8}), input({8})});
  }
  check("lstm without biases", [](auto& v) {
    return F::lstm_direction(v[0], v[1], v[2], v[3], v[4], Variable(), Variable(), false);
  }, {input({4, 1, 2}), input({1, 3}), input({1, 3}), input({12, 2}), input({12, 3})});
}

TEST_P(NnRecurrent, GruDirectionGradients) {
  for (bool reverse : {false, true}) {
    SCOPED_TRACE(reverse ? "reverse" : "forward");
    check("gru", [&](auto& v) { return F::gru_direction(v[0], v[1], v[2], v[3], v[4], v[5], reverse); },
          {input({3, 2, 3}), input({2, 2}), input({6, 3}), input({6, 2}), input({6}), input({6})});
  }
}

TEST_P(NnRecurrent, SlicesAndJoins) {
  check("slice", [](auto& v) { return F::slice(v[0], 1, 1, 3); }, {input({2, 4})});
  check("concat", [](auto& v) { return F::concat({v[0], v[1]}, -1); }, {input({2, 1}), input({2, 3})});
}

TEST_P(NnRecurrent, StackedBidirectionalShapesAndNames) {
  nn::RecurrentOptions options;
  options.num_layers = 2;
  options.bidirectional = true;
  options.batch_first = true;
  nn::LSTM lstm(3, 4, options, {dev(), DType::f32, 1});
  std::vector<std::string> names;
  for (const auto& [name, p] : lstm.named_parameters()) names.push_back(name);
  ASSERT_EQ(names.size(), 16u);
  EXPECT_EQ(names[0], "weight_ih_l0");
  EXPECT_EQ(names[4], "weight_ih_l0_reverse");
  EXPECT_EQ(names[15], "bias_hh_l1_reverse");
  EXPECT_EQ(lstm.named_parameters()[8].second.shape(), (Shape{16, 8}));  // layer 1 reads both directions
  Variable x(accelera::ones(Shape{2, 5, 3}, DType::f32, dev()), true);
  nn::RecurrentOutput out = lstm.run(x);
  EXPECT_EQ(out.output.shape(), (Shape{2, 5, 8}));
  EXPECT_EQ(out.h_n.shape(), (Shape{4, 2, 4}));
  EXPECT_EQ(out.c_n.shape(), (Shape{4, 2, 4}));
  F::sum(out.output).backward();
  for (const auto& p : lstm.parameters()) EXPECT_TRUE(p.grad().defined());
  EXPECT_TRUE(x.grad().defined());
  nn::GRU gru(3, 2, {}, {dev(), DType::f32, 2});
  nn::RecurrentOutput g = gru.run(Variable(accelera::ones(Shape{6, 2, 3}, DType::f32, dev())));
  EXPECT_EQ(g.output.shape(), (Shape{6, 2, 2}));
  EXPECT_EQ(g.h_n.shape(), (Shape{1, 2, 2}));
  EXPECT_FALSE(g.c_n.defined());
  EXPECT_THROW(gru.run(Variable(accelera::ones(Shape{6, 2, 4}, DType::f32, dev()))), accelera::ShapeError);
  EXPECT_THROW(gru.run(Variable(accelera::ones(Shape{6, 2, 3}, DType::f32, dev())), Variable(accelera::ones(Shape{2, 2}, DType::f32, dev()))),
               accelera::ShapeError);
}

TEST_P(NnRecurrent, Float32MatchesTheFloat64Loop) {
  // On the CPU float32 runs through oneDNN's sequence kernels; elsewhere through the loop. Both against the
  // float64 loop, forward and backward.
  const Tensor x = input({5, 3, 4}), h0 = input({3, 6}), c0 = input({3, 6});
  const Tensor w_ih = input({24, 4}), w_hh = input({24, 6}), b_ih = input({24}), b_hh = input({24});
  for (bool reverse : {false, true}) {
    std::vector<Tensor> grads[2], outs;
    for (DType dt : {DType::f64, DType::f32}) {
      std::vector<Variable> v;
      for (const Tensor* t : {&x, &h0, &c0, &w_ih, &w_hh, &b_ih, &b_hh}) v.emplace_back(t->astype(dt).to(dev()), true);
      Variable out = F::lstm_direction(v[0], v[1], v[2], v[3], v[4], v[5], v[6], reverse);
      F::sum(F::multiply(out, out)).backward();
      outs.push_back(out.value().to(Device::cpu()).astype(DType::f64));
      for (auto& var : v) grads[dt == DType::f32].push_back(var.grad().to(Device::cpu()).astype(DType::f64));
    }
    const auto a = values_of(outs[0]), b = values_of(outs[1]);
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(b[i], a[i], 1e-5) << "output " << i;
    for (std::size_t k = 0; k < grads[0].size(); ++k) {
      const auto ga = values_of(grads[0][k]), gb = values_of(grads[1][k]);
      for (std::size_t i = 0; i < ga.size(); ++i) ASSERT_NEAR(gb[i], ga[i], 1e-4 * std::max(1.0, std::abs(ga[i]))) << k << " " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllDevices, NnRecurrent, ::testing::ValuesIn(all_devices()), device_name);

// Note [Batch slices]: the CPU's sequence kernels cut the batch into one slice per OpenMP thread and write
// the count into the workspace, so a backward run with another thread count still reads each slice's
// workspace where the forward left it; the gradients match those of a backward with the forward's count.
TEST(SequenceKernels, BackwardCutsTheBatchAsItsForwardDid) {
  if (!accelera::supports(Device::cpu(), "lstm_sequence", DType::f32)) GTEST_SKIP() << "a build without oneDNN";
  std::mt19937_64 rng{5};
  const auto f32 = [&](const Shape& s) { return random_tensor(s, DType::f32, rng, -0.5, 0.5); };
  const std::int64_t T = 4, B = 7, I = 3, H = 5;
  const Tensor x = f32({T, B, I}), h0 = f32({B, H}), c0 = f32({B, H}), grad_hs = f32({T, B, H}), grad_c = f32({B, H});
  const Tensor w4 = f32({4 * H, I}), u4 = f32({4 * H, H}), b4 = f32({4 * H});
  const Tensor w3 = f32({3 * H, I}), u3 = f32({3 * H, H}), b3 = f32({3 * H});
  const int threads = omp_get_max_threads();
  // (forward's threads, backward's threads): the first pair is the reference.
  const std::pair<int, int> runs[] = {{3, 3}, {3, 1}, {1, 3}, {2, 5}};
  std::vector<std::vector<double>> lstm_grads, gru_grads;
  for (const auto& [forward_threads, backward_threads] : runs) {
    omp_set_num_threads(forward_threads);
    const auto lstm = accelera::lstm_sequence(x, h0, c0, w4, u4, b4, false);
    const auto gru = accelera::gru_sequence(x, h0, w3, u3, b3, b3, true);
    omp_set_num_threads(backward_threads);
    const auto dl = accelera::lstm_sequence_backward(grad_hs, grad_c, x, h0, c0, w4, u4, b4, false, lstm);
    const auto dg = accelera::gru_sequence_backward(grad_hs, x, h0, w3, u3, b3, b3, true, gru);
    std::vector<double> l, g;
    for (const Tensor* t : {&dl.dx, &dl.dh0, &dl.dc0, &dl.dw_ih, &dl.dw_hh, &dl.dbias})
      for (double v : values_of(t->astype(DType::f64))) l.push_back(v);
    for (const Tensor* t : {&dg.dx, &dg.dh0, &dg.dw_ih, &dg.dw_hh, &dg.db_ih, &dg.db_hh})
      for (double v : values_of(t->astype(DType::f64))) g.push_back(v);
    lstm_grads.push_back(l);
    gru_grads.push_back(g);
  }
  omp_set_num_threads(threads);
  for (std::size_t r = 1; r < lstm_grads.size(); ++r) {
    for (std::size_t i = 0; i < lstm_grads[0].size(); ++i)
      ASSERT_NEAR(lstm_grads[r][i], lstm_grads[0][i], 1e-5) << "LSTM run " << r << " element " << i;
    for (std::size_t i = 0; i < gru_grads[0].size(); ++i)
      ASSERT_NEAR(gru_grads[r][i], gru_grads[0][i], 1e-5) << "GRU run " << r << " element " << i;
  }
}

}  // namespace
}  // namespace acc_test
