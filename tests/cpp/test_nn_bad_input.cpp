// Bad input to the fused neural-network ops: a typed error that says what was wrong, inputs unchanged;
// and the dtypes a device does not compute.
#include "nn_helpers.hpp"

namespace acc_test {
namespace {

using accelera::DTypeError;
using accelera::NotSupportedError;
using accelera::ShapeError;
using accelera::ValueError;

template <typename E, typename F>
void expect_error(F&& f, const std::string& needle, const std::vector<Tensor>& inputs) {
  std::vector<std::vector<std::byte>> before;
  for (const Tensor& t : inputs) before.push_back(storage_bytes(t));
  try {
    f();
    ADD_FAILURE() << "no error; expected one mentioning '" << needle << "'";
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) EXPECT_EQ(storage_bytes(inputs[i]), before[i]) << "input " << i;
}

TEST(NnBadInput, TypedErrorsAndInputsUnchanged) {
  std::mt19937_64 rng(3);
  const Tensor x = random_tensor(Shape{4, 8}, DType::f32, rng);
  const Tensor xi = Tensor::empty(Shape{4, 8}, DType::i32);
  const Tensor w = random_tensor(Shape{5, 8}, DType::f32, rng);
  const Tensor w64 = random_tensor(Shape{5, 8}, DType::f64, rng);
  const Tensor b_bad = random_tensor(Shape{7}, DType::f32, rng);
  expect_error<DTypeError>([&] { accelera::gelu(xi); }, "int32", {xi});
  expect_error<DTypeError>([&] { accelera::linear_gelu(x, w64, Tensor()); }, "float64", {x, w64});
  expect_error<ShapeError>([&] { accelera::linear_gelu(x, w.T(), Tensor()); }, "in_features", {x, w});
  expect_error<ShapeError>([&] { accelera::linear_gelu(x, w, b_bad); }, "(5,)", {x, w, b_bad});
  expect_error<ShapeError>([&] { accelera::bias_gelu(x, b_bad); }, "bias", {x, b_bad});
  expect_error<ShapeError>([&] { accelera::layer_norm(x, b_bad, Tensor()); }, "weight", {x, b_bad});
  expect_error<ValueError>([&] { accelera::layer_norm(x, Tensor(), Tensor(), -1.0); }, "eps", {x});
  expect_error<ValueError>([&] { accelera::softmax(x, 2); }, "axis", {x});
  expect_error<ShapeError>([&] { accelera::gelu_backward(x, w); }, "shape", {x, w});
  const Tensor q = random_tensor(Shape{1, 2, 3, 8}, DType::f32, rng);
  const Tensor k = random_tensor(Shape{1, 2, 5, 8}, DType::f32, rng);
  const Tensor k_bad = random_tensor(Shape{1, 2, 5, 4}, DType::f32, rng);
  expect_error<ShapeError>([&] { accelera::attention(q, k_bad, k_bad); }, "head_dim", {q, k_bad});
  expect_error<ShapeError>([&] { accelera::attention(q, k, q); }, "v has shape", {q, k});
  expect_error<ShapeError>([&] { accelera::attention(x, x, x); }, "4-D", {x});
  expect_error<ValueError>([&] { accelera::attention(q, k, k, std::nan("")); }, "scale", {q, k});
  const auto fwd = accelera::attention(q, k, k);
  expect_error<DTypeError>([&] { accelera::attention_backward(q, q, k, k, fwd.out, fwd.lse.astype(DType::f64)); },
                           "lse", {q, k});
  expect_error<ValueError>([] { accelera::gelu_approximation_from_name("fast"); }, "tanh", {});
}

TEST(NnBadInput, RecurrentCellsNameTheOperandThatIsWrong) {
  std::mt19937_64 rng(5);
  const Tensor gates3 = random_tensor(Shape{2, 9}, DType::f32, rng), gates4 = random_tensor(Shape{2, 12}, DType::f32, rng);
  const Tensor not_three = random_tensor(Shape{2, 8}, DType::f32, rng), state = random_tensor(Shape{2, 3}, DType::f32, rng);
  const Tensor wide_state = random_tensor(Shape{2, 4}, DType::f32, rng), state64 = random_tensor(Shape{2, 3}, DType::f64, rng);
  const Tensor act_i = Tensor::empty(Shape{2, 9}, DType::i32);
  expect_error<ShapeError>([&] { accelera::gru_cell(not_three, gates3, state); }, "input_gates must be (batch, 3 * hidden)",
                           {not_three, gates3, state});
  expect_error<ShapeError>([&] { accelera::gru_cell(gates3, gates3, wide_state); }, "h_prev", {gates3, wide_state});
  expect_error<ShapeError>([&] { accelera::gru_cell(gates3, gates4, state); }, "hidden_gates", {gates3, gates4, state});
  expect_error<DTypeError>([&] { accelera::gru_cell(gates3, gates3, state64); }, "float64", {gates3, state64});
  expect_error<DTypeError>([&] { accelera::gru_cell_backward(state, act_i, gates3, state); }, "int32",
                           {state, act_i, gates3});
  expect_error<ShapeError>([&] { accelera::gru_cell_backward(wide_state, gates3, gates3, state); }, "grad_h",
                           {wide_state, gates3, state});
  expect_error<ShapeError>([&] { accelera::lstm_cell(gates3, state); }, "(batch, 4 * hidden)", {gates3, state});
  expect_error<ShapeError>([&] { accelera::lstm_cell(gates4, wide_state); }, "c_prev", {gates4, wide_state});
}

TEST(NnBadInput, HalfTypesAreNotComputedOnTheCpu) {
  const Tensor x = Tensor::empty(Shape{3}, DType::f16);
  expect_error<accelera::NotSupportedError>([&] { accelera::gelu(x); }, "gelu does not compute float16 on cpu", {});
}

TEST(NnBadInput, SlidingWindowsNameWhatIsWrong) {
  std::mt19937_64 rng(5);
  const Tensor img = random_tensor(Shape{2, 3, 5, 5}, DType::f32, rng);
  using W = accelera::ConvWindow;
  expect_error<ShapeError>([&] { accelera::im2col(img, W{{3}}); }, "(N, C, L)", {img});
  expect_error<ShapeError>([&] { accelera::im2col(img, W{{3, 3, 3, 3}}); }, "1, 2 or 3 spatial axes", {img});
  expect_error<ShapeError>([&] { accelera::im2col(img, W{{7, 3}}); }, "spans 7 elements", {img});
  expect_error<ShapeError>([&] { accelera::im2col(img, W{{3, 3}, {1, 1, 1}}); }, "stride has 3 values", {img});
  expect_error<ValueError>([&] { accelera::im2col(img, W{{3, 3}, {0}}); }, "must be positive", {img});
  expect_error<ValueError>([&] { accelera::im2col(img, W{{3, 3}, {}, {-1}}); }, "padding (-1, -1)", {img});
  const Tensor ints = Tensor::empty(Shape{2, 3, 5, 5}, DType::i32);
  expect_error<DTypeError>([&] { accelera::im2col(ints, W{{3, 3}}); }, "int32", {});
  const Tensor patches = accelera::im2col(img, W{{3, 3}});
  expect_error<ShapeError>([&] { accelera::col2im(patches, Shape{2, 3, 6, 5}, W{{3, 3}}); }, "have shape (24, 27)",
                           {patches});
}

// optimizer_step checks the whole group before writing anything: a bad tensor late in the list leaves the
// earlier parameters and their state untouched.
TEST(NnBadInput, OptimizerStepChecksEverythingFirst) {
  std::mt19937_64 rng(5);
  const auto rand = [&](const Shape& s, DType dt = DType::f32) { return random_tensor(s, dt, rng); };
  const Tensor p0 = rand(Shape{4, 3}), g0 = rand(Shape{4, 3}), m0 = rand(Shape{4, 3}), v0 = rand(Shape{4, 3});
  const Tensor p1 = rand(Shape{5}), g1 = rand(Shape{5}), m1 = rand(Shape{5}), v1 = rand(Shape{5});
  accelera::OptimizerHyperparameters adam;
  adam.rule = accelera::OptimizerRule::adam;
  const std::vector<Tensor> all = {p0, g0, m0, v0, p1, g1, m1, v1};
  const auto step = [&](std::vector<Tensor> ps, std::vector<Tensor> gs, std::vector<std::vector<Tensor>> ss,
                        const accelera::OptimizerHyperparameters& h) { accelera::optimizer_step(ps, gs, ss, h); };
  expect_error<ShapeError>([&] { step({p0, p1}, {g0, rand(Shape{6})}, {{m0, v0}, {m1, v1}}, adam); },
                           "the gradient of parameter 1 has shape (6,)", all);
  expect_error<DTypeError>([&] { step({p0, p1}, {g0, rand(Shape{5}, DType::f64)}, {{m0, v0}, {m1, v1}}, adam); },
                           "float64", all);
  expect_error<ValueError>([&] { step({p0, p1}, {g0, g1}, {{m0, v0}, {m1}}, adam); },
                           "parameter 1 has 1 state tensors; the adam rule with these options keeps 2 (exp_avg, "
                           "exp_avg_sq)",
                           all);
  expect_error<ValueError>([&] { step({p0, p1}, {g0, g1}, {{m0, v0}, {m1, m1}}, adam); },
                           "exp_avg of parameter 1 and exp_avg_sq of parameter 1 share memory", all);
  expect_error<ValueError>([&] { step({p0, p1}, {g0, p0.reshape(std::vector<std::int64_t>{12}).slice(0, 7, 12)}, {{m0, v0}, {m1, v1}}, adam); },
                           "the gradient of parameter 1 shares memory with parameter 0", all);
  const Tensor wide = rand(Shape{4, 6});
  expect_error<ValueError>([&] { step({wide.slice(1, 0, 3)}, {g0}, {{m0, v0}}, adam); }, "not C-contiguous", {wide});
  expect_error<ValueError>([&] { step({p0}, {g0}, {{m0}}, accelera::OptimizerHyperparameters{}); },
                           "keeps none", {p0});
  auto bad = adam;
  bad.beta2 = 1.0;
  expect_error<ValueError>([&] { step({p0}, {g0}, {{m0, v0}}, bad); }, "beta2 must be in [0, 1)", {p0, m0, v0});
  bad = adam;
  bad.step = 0;
  expect_error<ValueError>([&] { step({p0}, {g0}, {{m0, v0}}, bad); }, "step counts from 1", {p0, m0, v0});
  bad = accelera::OptimizerHyperparameters{};
  bad.nesterov = true;
  expect_error<ValueError>([&] { step({p0}, {g0}, {{}}, bad); }, "Nesterov", {p0});
  bad.nesterov = false;
  bad.lr = -1;
  expect_error<ValueError>([&] { step({p0}, {g0}, {{}}, bad); }, "lr must be in [0, inf)", {p0});
  const auto before = storage_bytes(p1);
  step({p0, p1}, {g0, g1}, {{m0, v0}, {m1, v1}}, adam);  // the same tensors in a valid call: updated
  EXPECT_NE(storage_bytes(p1), before);
}

}  // namespace
}  // namespace acc_test
