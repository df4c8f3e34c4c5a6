// accelera::nn modules, optimizers, the builder API, training, safetensors files (also those Python's
// accelera.nn writes) and the Fashion-MNIST reader.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "accelera/nn.hpp"
#include "helpers.hpp"

namespace acc_test {
namespace {

namespace nn = accelera::nn;
namespace F = accelera::nn::functional;
using nn::Activation;
using nn::LayerBuilder;
using nn::Loss;
using nn::Network;
using nn::TrainingConfig;
using nn::Variable;

std::filesystem::path scratch_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("accelera_nn_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// Three well separated Gaussian blobs in 4 dimensions: (x float32 (n, 4), labels int64 (n)).
std::pair<Tensor, Tensor> blobs(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, 0.4);
  Tensor x = Tensor::empty(Shape{n, 4}, DType::f32), y = Tensor::empty(Shape{n}, DType::i64);
  const double centres[3][4] = {{2, 0, 0, 1}, {-2, 1, 0, -1}, {0, -2, 2, 0}};
  for (std::int64_t i = 0; i < n; ++i) {
    const auto c = static_cast<std::int64_t>(rng() % 3);
    y.data<std::int64_t>()[i] = c;
    for (int j = 0; j < 4; ++j) x.data<float>()[i * 4 + j] = static_cast<float>(centres[c][j] + noise(rng));
  }
  return {x, y};
}

TrainingConfig quiet(std::int64_t epochs, std::int64_t batch = 16, double lr = 1e-2) {
  TrainingConfig c;
  c.max_epochs = epochs;
  c.batch_size = batch;
  c.learning_rate = lr;
  c.verbose = false;
  return c;
}

class NnNetwork : public ::testing::TestWithParam<Device> {
 protected:
  Device dev() const { return GetParam(); }
};

// ---- optimizers against their closed forms ------------------------------------------------------------

TEST_P(NnNetwork, OptimizersMatchClosedForms) {
  const double p0[] = {0.5, -1.0, 2.0}, g[] = {0.1, -0.3, 0.7};
  auto leaf = [&] {
    Tensor t = Tensor::empty(Shape{3}, DType::f64);
    for (int i = 0; i < 3; ++i) t.data<double>()[i] = p0[i];
    return Variable(t.to(dev()), true);
  };
  auto grads = [&] {
    Tensor t = Tensor::empty(Shape{3}, DType::f64);
    for (int i = 0; i < 3; ++i) t.data<double>()[i] = g[i];
    return t.to(dev());
  };
  {  // SGD, momentum 0.9, L2 weight decay 0.1, two steps
    Variable p = leaf();
    nn::optim::SGD sgd({p}, 0.05, 0.9, 0.1);
    for (int s = 0; s < 2; ++s) {
      p.set_grad(grads());
      sgd.step();
    }
    const auto got = values_of(p.value().to(Device::cpu()));
    for (int i = 0; i < 3; ++i) {
      double q = p0[i], buf = g[i] + 0.1 * q;
      q -= 0.05 * buf;
      buf = 0.9 * buf + (g[i] + 0.1 * q);
      q -= 0.05 * buf;
      EXPECT_NEAR(got[i], q, 1e-14);
    }
  }
  for (bool decoupled : {false, true}) {  // Adam and AdamW, two steps
    Variable p = leaf();
    std::unique_ptr<nn::optim::Optimizer> opt;
    if (decoupled) opt = std::make_unique<nn::optim::AdamW>(std::vector<Variable>{p}, 0.01, 0.2);
    else opt = std::make_unique<nn::optim::Adam>(std::vector<Variable>{p}, 0.01, 0.2);
    for (int s = 0; s < 2; ++s) {
      p.set_grad(grads());
      opt->step();
    }
    const auto got = values_of(p.value().to(Device::cpu()));
    for (int i = 0; i < 3; ++i) {
      double q = p0[i], m = 0, v = 0;
      for (int t = 1; t <= 2; ++t) {
        double gi = g[i];
        if (decoupled) q *= 1 - 0.01 * 0.2;
        else gi += 0.2 * q;
        m = 0.9 * m + 0.1 * gi;
        v = 0.999 * v + 0.001 * gi * gi;
        const double mh = m / (1 - std::pow(0.9, t)), vh = v / (1 - std::pow(0.999, t));
        q -= 0.01 * mh / (std::sqrt(vh) + 1e-8);
      }
      EXPECT_NEAR(got[i], q, 1e-13) << (decoupled ? "AdamW" : "Adam") << " element " << i;
    }
  }
  {  // RMSprop, one step
    Variable p = leaf();
    nn::optim::RMSprop rms({p}, 0.01);
    p.set_grad(grads());
    rms.step();
    const auto got = values_of(p.value().to(Device::cpu()));
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(got[i], p0[i] - 0.01 * g[i] / (std::sqrt(0.01 * g[i] * g[i]) + 1e-8), 1e-13);
  }
  {  // a parameter without a gradient is left alone
    Variable p = leaf(), q = leaf();
    nn::optim::SGD sgd({p, q}, 0.1);
    p.set_grad(grads());
    sgd.step();
    EXPECT_EQ(values_of(q.value().to(Device::cpu())), std::vector<double>(p0, p0 + 3));
  }
}

TEST_P(NnNetwork, ClipGradNorm) {
  Variable a(accelera::zeros(Shape{2}, DType::f64, dev()), true), b(accelera::zeros(Shape{1}, DType::f64, dev()), true);
  a.set_grad(accelera::full(Shape{2}, 2.0, DType::f64, dev()));  // |(2, 2, 1)| = 3
  b.set_grad(accelera::full(Shape{1}, 1.0, DType::f64, dev()));
  EXPECT_NEAR(nn::optim::clip_grad_norm({a, b}, 1.5), 3.0, 1e-14);
  EXPECT_NEAR(values_of(a.grad().to(Device::cpu()))[0], 2.0 * 1.5 / (3.0 + 1e-6), 1e-14);
  EXPECT_NEAR(values_of(b.grad().to(Device::cpu()))[0], 1.0 * 1.5 / (3.0 + 1e-6), 1e-14);
  EXPECT_THROW(nn::optim::clip_grad_norm({a}, 0.0), accelera::ValueError);
  EXPECT_THROW(nn::optim::SGD({}, 0.1), accelera::ValueError);
  EXPECT_THROW(nn::optim::SGD({Variable(accelera::zeros(Shape{1}), false)}, 0.1), accelera::ValueError);
  EXPECT_THROW(nn::optim::Adam({a}, 0.1, 0.0, 1.0), accelera::ValueError);
}

// ---- modules --------------------------------------------------------------------------------------------

TEST_P(NnNetwork, ModulesNameTheirParametersAsPython) {
  nn::ParameterOptions options{dev(), DType::f32, 3};
  nn::Sequential model;
  model.push_back(std::make_shared<nn::Conv2d>(2, 4, std::vector<std::int64_t>{3}, std::vector<std::int64_t>{1},
                                               std::vector<std::int64_t>{1}, true, options));
  model.push_back(std::make_shared<nn::ActivationLayer>(nn::ActivationLayer::Kind::relu));
  model.push_back(std::make_shared<nn::Flatten>());
  model.push_back(std::make_shared<nn::Linear>(4 * 5 * 5, 3, true, options));
  std::vector<std::string> names;
  for (const auto& [name, p] : model.named_parameters()) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"0.weight", "0.bias", "3.weight", "3.bias"}));
  EXPECT_EQ(model.num_parameters(), 4 * 2 * 9 + 4 + 100 * 3 + 3);
  Variable out = model(Variable(accelera::ones(Shape{2, 2, 5, 5}, DType::f32, dev())));
  EXPECT_EQ(out.shape(), (Shape{2, 3}));
  // Glorot bounds and zero biases.
  const double bound = std::sqrt(6.0 / (100 + 3));
  for (double w : values_of(model.named_parameters()[2].second.value().to(Device::cpu()))) EXPECT_LE(std::abs(w), bound);
  for (double b : values_of(model.named_parameters()[3].second.value().to(Device::cpu()))) EXPECT_EQ(b, 0.0);
  // A shape error names the layer.
  try {
    model(Variable(accelera::ones(Shape{2, 3, 5, 5}, DType::f32, dev())));
    ADD_FAILURE() << "no error";
  } catch (const accelera::ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("layer 0 (Conv2d(2, 4"), std::string::npos) << e.what();
  }
}

// ---- convolution and pooling modules of every rank against direct float64 loops ------------------------

// A window layer's reference: out[n, o, p] = reduce over (c, k) of x[n, c, p * stride - padding + k * dilation],
// for 1 to 3 spatial axes (missing axes count as extent 1).
struct Window3 {
  std::int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, kernel[3] = {1, 1, 1}, stride[3] = {1, 1, 1}, pad[3] = {0, 0, 0},
               dilation[3] = {1, 1, 1};
};

Window3 window3(const Shape& x, const std::vector<std::int64_t>& out, const accelera::ConvWindow& w) {
  Window3 r;
  const std::size_t axes = w.kernel.size();
  for (std::size_t a = 0; a < axes; ++a) {
    const std::size_t slot = 3 - axes + a;
    r.in[slot] = x.dims()[2 + a];
    r.out[slot] = out[1 + a];
    r.kernel[slot] = w.kernel[a];
    r.stride[slot] = w.stride[a];
    r.pad[slot] = w.padding[a];
    r.dilation[slot] = w.dilation[a];
  }
  return r;
}

// Calls visit(out_offset_within_plane, element_or_nullopt) for every window tap of one output plane position.
template <typename Visit>
void for_each_tap(const Window3& w, const double* plane, std::int64_t od, std::int64_t oh, std::int64_t ow, Visit visit) {
  for (std::int64_t kd = 0; kd < w.kernel[0]; ++kd) {
    for (std::int64_t kh = 0; kh < w.kernel[1]; ++kh) {
      for (std::int64_t kw = 0; kw < w.kernel[2]; ++kw) {
        const std::int64_t d = od * w.stride[0] - w.pad[0] + kd * w.dilation[0];
        const std::int64_t h = oh * w.stride[1] - w.pad[1] + kh * w.dilation[1];
        const std::int64_t x = ow * w.stride[2] - w.pad[2] + kw * w.dilation[2];
        const std::int64_t tap = (kd * w.kernel[1] + kh) * w.kernel[2] + kw;
        const bool inside = d >= 0 && d < w.in[0] && h >= 0 && h < w.in[1] && x >= 0 && x < w.in[2];
        visit(tap, inside ? std::optional<double>(plane[(d * w.in[1] + h) * w.in[2] + x]) : std::nullopt);
      }
    }
  }
}

std::vector<double> reference_conv(const Tensor& x, const Tensor& weight, const Tensor& bias,
                                   const accelera::ConvWindow& win, const std::vector<std::int64_t>& out_shape) {
  const Window3 w = window3(x.shape(), out_shape, win);
  const std::int64_t n = x.dim(0), c_in = x.dim(1), c_out = out_shape[0];
  const std::int64_t plane = w.in[0] * w.in[1] * w.in[2], taps = w.kernel[0] * w.kernel[1] * w.kernel[2];
  const auto xs = values_of(x.contiguous()), ws = values_of(weight.contiguous()), bs = values_of(bias);
  std::vector<double> out;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t o = 0; o < c_out; ++o)
      for (std::int64_t od = 0; od < w.out[0]; ++od)
        for (std::int64_t oh = 0; oh < w.out[1]; ++oh)
          for (std::int64_t ow = 0; ow < w.out[2]; ++ow) {
            double total = bs[static_cast<std::size_t>(o)];
            for (std::int64_t c = 0; c < c_in; ++c) {
              const double* p = xs.data() + (i * c_in + c) * plane;
              for_each_tap(w, p, od, oh, ow, [&](std::int64_t tap, std::optional<double> v) {
                if (v) total += *v * ws[static_cast<std::size_t>((o * c_in + c) * taps + tap)];
              });
            }
            out.push_back(total);
          }
  return out;
}

std::vector<double> reference_pool(const Tensor& x, bool max, const accelera::ConvWindow& win,
                                   const std::vector<std::int64_t>& out_shape) {
  const Window3 w = window3(x.shape(), out_shape, win);
  const std::int64_t planes = x.dim(0) * x.dim(1), plane = w.in[0] * w.in[1] * w.in[2];
  const double taps = static_cast<double>(w.kernel[0] * w.kernel[1] * w.kernel[2]);
  const auto xs = values_of(x.contiguous());
  std::vector<double> out;
  for (std::int64_t i = 0; i < planes; ++i)
    for (std::int64_t od = 0; od < w.out[0]; ++od)
      for (std::int64_t oh = 0; oh < w.out[1]; ++oh)
        for (std::int64_t ow = 0; ow < w.out[2]; ++ow) {
          double best = -std::numeric_limits<double>::infinity(), total = 0;
          for_each_tap(w, xs.data() + i * plane, od, oh, ow, [&](std::int64_t, std::optional<double> v) {
            if (v) best = std::max(best, *v), total += *v;  // padding: never the max, zero in the mean
          });
          out.push_back(max ? best : total / taps);
        }
  return out;
}

void expect_close(const std::vector<double>& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-12 * std::max(1.0, std::abs(want[i]))) << what << " at " << i;
}

TEST_P(NnNetwork, ConvolutionAndPoolingOfEveryRank) {
  std::mt19937_64 rng(17);
  const nn::ParameterOptions options{dev(), DType::f64, 5};
  struct Case {
    int axes;
    std::vector<std::int64_t> image, kernel, stride, padding, dilation;
  };
  // Odd extents, strides that leave edges, padding, dilation; size-1 channels and batch.
  const std::vector<Case> cases = {{1, {2, 3, 11}, {3}, {2}, {1}, {2}},
                                   {1, {1, 1, 7}, {7}, {1}, {0}, {1}},
                                   {2, {2, 2, 7, 5}, {3, 2}, {1, 2}, {1, 0}, {1, 2}},
                                   {3, {2, 3, 5, 6, 7}, {3, 2, 3}, {2, 1, 2}, {1, 0, 1}, {1, 2, 1}},
                                   {3, {1, 1, 3, 3, 3}, {1}, {1}, {0}, {1}}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.axes);
    const Tensor x = random_tensor(Shape(c.image), DType::f64, rng);
    nn::ConvNd conv(c.axes, c.image[1], 4, c.kernel, c.stride, c.padding, true, options, c.dilation);
    accelera::copy_into(random_tensor(Shape{4}, DType::f64, rng).to(dev()), conv.bias().value());
    std::vector<std::int64_t> sample(c.image.begin() + 1, c.image.end());
    const auto out_shape = conv.output_shape(sample);
    Variable y = conv(Variable(x.to(dev())));
    std::vector<std::int64_t> want_dims{c.image[0]};
    want_dims.insert(want_dims.end(), out_shape.begin(), out_shape.end());
    ASSERT_EQ(y.shape(), Shape(want_dims)) << conv.describe();
    expect_close(values_of(y.value().to(Device::cpu()).contiguous()),
                 reference_conv(x, conv.weight().value().to(Device::cpu()), conv.bias().value().to(Device::cpu()),
                                conv.window(), out_shape),
                 conv.describe());
    for (auto kind : {nn::PoolNd::Kind::max, nn::PoolNd::Kind::average}) {
      std::vector<std::int64_t> pad(c.padding);
      for (std::size_t a = 0; a < pad.size(); ++a) pad[a] = std::min(pad[a], c.kernel[c.kernel.size() == 1 ? 0 : a] / 2);
      nn::PoolNd pool(c.axes, kind, c.kernel, c.stride, pad);
      const auto pooled_shape = pool.output_shape(sample);
      Variable p = pool(Variable(x.to(dev())));
      const accelera::ConvWindow window{conv.window().kernel, conv.window().stride,
                                        pad.size() == 1 ? std::vector<std::int64_t>(static_cast<std::size_t>(c.axes), pad[0]) : pad,
                                        std::vector<std::int64_t>(static_cast<std::size_t>(c.axes), 1)};
      expect_close(values_of(p.value().to(Device::cpu()).contiguous()),
                   reference_pool(x, kind == nn::PoolNd::Kind::max, window, pooled_shape), pool.describe());
    }
  }
  // Python's names and their ranks; a wrong rank or window is a typed error naming the layer.
  EXPECT_EQ(nn::Conv1d(2, 3, {3}).describe(), "Conv1d(2, 3, kernel_size=(3,), stride=(1,), padding=(0,))");
  EXPECT_EQ(nn::Conv3D(1, 2, {3, 1, 2}).weight().shape(), (Shape{2, 1, 3, 1, 2}));
  EXPECT_EQ(nn::MaxPool3d({2}).describe(), "MaxPool3d(pool_size=(2, 2, 2), stride=(2, 2, 2), padding=(0, 0, 0))");
  try {
    nn::Conv3d(2, 3, {3})(Variable(accelera::ones(Shape{1, 2, 5, 5}, DType::f32, dev())));
    ADD_FAILURE() << "no error";
  } catch (const accelera::ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("Conv3d(2, 3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("(N, C, D, H, W)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(nn::Conv2d(2, 3, {3, 3, 3}), accelera::ValueError);
  EXPECT_THROW(nn::Conv1d(2, 3, {3}, {1}, {0}, true, {}, {0}), accelera::ValueError);
  EXPECT_THROW(nn::AvgPool1d({2}, {}, {2}), accelera::ValueError);
  EXPECT_THROW(nn::ConvNd(4, 1, 1, {1}), accelera::ValueError);
}

// ---- DataLoader, GpuProfiler, GpuManager ---------------------------------------------------------------

TEST_P(NnNetwork, DataLoaderCoversEveryRowOncePerEpoch) {
  constexpr std::int64_t n = 103;  // a prime: the last batch is short
  Tensor x = Tensor::empty(Shape{n, 3}, DType::f32), y = Tensor::empty(Shape{n}, DType::i64);
  for (std::int64_t i = 0; i < n; ++i) {
    for (int j = 0; j < 3; ++j) x.data<float>()[i * 3 + j] = static_cast<float>(i * 10 + j);
    y.data<std::int64_t>()[i] = i;
  }
  const auto epoch_rows = [&](nn::DataLoader& loader) {
    std::vector<std::int64_t> rows;
    for (const auto& batch : loader) {
      EXPECT_EQ(batch.size(), 2u);
      EXPECT_EQ(batch[0].device(), dev());
      EXPECT_EQ(batch[1].device(), dev());
      const auto xs = values_of(batch[0].to(Device::cpu())), ys = values_of(batch[1].to(Device::cpu()));
      EXPECT_EQ(xs.size(), ys.size() * 3);
      for (std::size_t r = 0; r < ys.size(); ++r) {  // the rows of x and y stay together
        EXPECT_EQ(xs[r * 3], ys[r] * 10);
        rows.push_back(static_cast<std::int64_t>(ys[r]));
      }
    }
    return rows;
  };
  for (bool prefetch : {true, false}) {
    SCOPED_TRACE(prefetch);
    nn::DataLoader loader({x, y}, {.batch_size = 16, .shuffle = true, .seed = 7, .device = dev(), .prefetch = prefetch});
    EXPECT_EQ(loader.size(), 7);
    const auto first = epoch_rows(loader), second = epoch_rows(loader);
    for (const auto* epoch : {&first, &second}) {
      std::vector<std::int64_t> sorted = *epoch;
      std::sort(sorted.begin(), sorted.end());
      ASSERT_EQ(sorted.size(), static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) EXPECT_EQ(sorted[static_cast<std::size_t>(i)], i);
    }
    EXPECT_NE(first, second);  // each epoch reshuffles
    nn::DataLoader again({x, y}, {.batch_size = 16, .shuffle = true, .seed = 7, .device = dev(), .prefetch = !prefetch});
    EXPECT_EQ(epoch_rows(again), first);  // the seed decides, not the prefetching
  }
  nn::DataLoader in_order({x, y}, {.batch_size = 50, .shuffle = false, .device = dev(), .drop_last = true});
  EXPECT_EQ(in_order.size(), 2);
  const auto rows = epoch_rows(in_order);
  ASSERT_EQ(rows.size(), 100u);
  for (std::int64_t i = 0; i < 100; ++i) EXPECT_EQ(rows[static_cast<std::size_t>(i)], i);
  // Bad input.
  EXPECT_THROW(nn::DataLoader({}, {}), accelera::ValueError);
  EXPECT_THROW(nn::DataLoader({x, y.slice(0, 0, 50)}, {}), accelera::ShapeError);
  EXPECT_THROW(nn::DataLoader({x}, {.batch_size = 0}), accelera::ValueError);
}

TEST(NnProfiler, RegionsNestRepeatAndExportAChromeTrace) {
  nn::GpuProfiler profiler;
  profiler.start("epoch");
  for (int i = 0; i < 3; ++i) {
    profiler.start("step");
    const Tensor t = accelera::ones(Shape{64, 64}, DType::f32);
    EXPECT_GE(profiler.end("step", t.nbytes(), 0), 0.0);
  }
  const double epoch = profiler.end("epoch");
  const auto rows = profiler.summary();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].name, "epoch");  // the longest total first: it holds the steps
  EXPECT_EQ(rows[1].count, 3);
  EXPECT_NEAR(rows[0].total_s, epoch, 1e-9);
  EXPECT_LE(rows[1].total_s, rows[0].total_s);
  EXPECT_THROW(profiler.end("epoch"), accelera::ValueError);  // no open region of that name
  EXPECT_THROW(profiler.start(""), accelera::ValueError);

  const auto dir = scratch_dir("profiler");
  const auto path = dir / "trace.json";
  profiler.export_chrome_trace(path.string());
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"traceEvents\""), std::string::npos);
  EXPECT_NE(text.find("\"name\":\"step\""), std::string::npos);
  EXPECT_NE(text.find("\"memory_used\":16384"), std::string::npos);
  EXPECT_NE(text.find("\"ph\":\"C\""), std::string::npos);  // the memory counters
  // A trace that cannot be written leaves nothing behind.
  EXPECT_THROW(profiler.export_chrome_trace((dir / "missing" / "trace.json").string()), std::exception);
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files += entry.is_regular_file();
  EXPECT_EQ(files, 1u);
  std::filesystem::remove_all(dir);
}

TEST(NnProfiler, RecordsEveryKernelOnEveryDeviceUntilStopped) {
  std::vector<Device> devices;
  for (const auto& d : accelera::devices()) devices.push_back(d.device);
  nn::GpuProfiler profiler(devices, true);
  std::mt19937_64 rng(8);
  for (const Device& device : devices) {
    const Tensor a = random_tensor(Shape{32, 32}, DType::f32, rng).to(device);
    for (int i = 0; i < 2; ++i) (void)accelera::matmul(accelera::add(a, a), a);
  }
  profiler.stop();
  (void)accelera::add(accelera::ones(Shape{4}), accelera::ones(Shape{4}));  // not recorded
  std::map<std::string, std::int64_t> counts;
  std::set<std::string> op_devices;
  for (const auto& r : profiler.regions()) {
    ASSERT_EQ(r.category, "op");
    ASSERT_TRUE(r.device.has_value());
    EXPECT_GE(r.duration.count(), 0);
    counts[r.name] += 1;
    op_devices.insert(r.device->str());
  }
  // Each device ran 2 adds and 2 matmuls (a device's matmul may run other kernels too, a fill for one).
  EXPECT_EQ(counts["add"], 2 * static_cast<std::int64_t>(devices.size()));
  EXPECT_EQ(counts["matmul"], 2 * static_cast<std::int64_t>(devices.size()));
  EXPECT_EQ(op_devices.size(), devices.size());
  const auto rows = profiler.summary();
  ASSERT_FALSE(rows.empty());
  double shares = 0;
  for (const auto& row : rows) shares += row.share;
  EXPECT_NEAR(shares, 1.0, 1e-9);  // one category: the ops' shares add up to all of it
  // A region beside the ops: listed first, with its own share.
  profiler.start("after");
  profiler.end("after");
  EXPECT_EQ(profiler.summary().front().category, "region");
  EXPECT_NEAR(profiler.summary().front().share, 1.0, 1e-12);
  const auto dir = scratch_dir("profiler_ops");
  profiler.export_chrome_trace((dir / "trace.json").string());
  std::ifstream in(dir / "trace.json");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"cat\":\"op\""), std::string::npos);
  EXPECT_NE(text.find("\"name\":\"matmul\""), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_P(NnNetwork, AttentionAndEmbeddingModules) {
  nn::ParameterOptions options{dev(), DType::f64, 9};
  nn::MultiHeadAttention attention(8, 2, true, false, options);
  std::vector<std::string> names;
  for (const auto& [name, p] : attention.named_parameters()) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"q_proj.weight", "q_proj.bias", "k_proj.weight", "k_proj.bias",
                                             "v_proj.weight", "v_proj.bias", "out_proj.weight", "out_proj.bias"}));
  std::mt19937_64 rng(4);
  Variable x(random_tensor(Shape{2, 5, 8}, DType::f64, rng).to(dev()), true);
  Variable y = attention(x);
  ASSERT_EQ(y.shape(), (Shape{2, 5, 8}));
  // One head of width 8 with identity projections is plain attention: softmax(x x^T / sqrt(8)) x.
  nn::MultiHeadAttention single(8, 1, false, false, options);
  for (const auto& p : single.parameters()) {
    Tensor eye = accelera::zeros(Shape{8, 8}, DType::f64);
    for (std::int64_t i = 0; i < 8; ++i) eye.data<double>()[i * 9] = 1.0;
    accelera::copy_into(eye.to(dev()), p.value());
  }
  const Tensor got = single(x).value().to(Device::cpu());
  const Tensor xs = x.value().to(Device::cpu());
  for (std::int64_t b = 0; b < 2; ++b)
    for (std::int64_t i = 0; i < 5; ++i) {
      std::vector<double> w(5);
      double total = 0;
      for (std::int64_t j = 0; j < 5; ++j) {
        double dot = 0;
        for (std::int64_t d = 0; d < 8; ++d) dot += get(xs, {b, i, d}) * get(xs, {b, j, d});
        w[static_cast<std::size_t>(j)] = std::exp(dot / std::sqrt(8.0));
        total += w[static_cast<std::size_t>(j)];
      }
      for (std::int64_t d = 0; d < 8; ++d) {
        double expected = 0;
        for (std::int64_t j = 0; j < 5; ++j) expected += w[static_cast<std::size_t>(j)] / total * get(xs, {b, j, d});
        EXPECT_NEAR(get(got, {b, i, d}), expected, 1e-12);
      }
    }
  F::sum(y).backward();
  EXPECT_TRUE(x.grad().defined());
  for (const auto& p : attention.parameters()) EXPECT_TRUE(p.grad().defined());
  EXPECT_THROW(attention(Variable(accelera::ones(Shape{2, 5, 6}, DType::f64, dev()))), accelera::ShapeError);
  EXPECT_THROW(nn::MultiHeadAttention(8, 3), accelera::ValueError);

  nn::Embedding embedding(6, 3, options);
  Tensor ids = Tensor::empty(Shape{2, 2}, DType::i32);
  for (int i = 0; i < 4; ++i) ids.data<std::int32_t>()[i] = i + 2;
  EXPECT_EQ(embedding(Variable(ids.to(dev()))).shape(), (Shape{2, 2, 3}));
  ids.data<std::int32_t>()[3] = 6;
  try {
    embedding(Variable(ids.to(dev())));
    ADD_FAILURE() << "no error";
  } catch (const accelera::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("Embedding(6, 3)"), std::string::npos) << e.what();
  }
}

TEST_P(NnNetwork, DropoutOnlyInTraining) {
  nn::Dropout dropout(0.5, 11);
  Variable x(accelera::ones(Shape{1000}, DType::f32, dev()));
  const auto trained = values_of(dropout(x).value().to(Device::cpu()));
  std::int64_t zeros = 0;
  for (double v : trained) {
    EXPECT_TRUE(v == 0.0 || v == 2.0) << v;
    zeros += v == 0.0;
  }
  EXPECT_GT(zeros, 400);
  EXPECT_LT(zeros, 600);
  const auto again = values_of(dropout(x).value().to(Device::cpu()));
  EXPECT_NE(trained, again) << "each call draws a new mask";
  dropout.eval();
  EXPECT_EQ(values_of(dropout(x).value().to(Device::cpu())), std::vector<double>(1000, 1.0));
}

// ---- the builder API and training ----------------------------------------------------------------------------

TEST_P(NnNetwork, MlpLearnsBlobs) {
  auto [x, y] = blobs(600, 1);
  Network net = Network::with_input_size(4, dev())
                    .add_layer(LayerBuilder::dense(16))
                    .add_layer(LayerBuilder::batch_norm().activation(Activation::ReLU))
                    .add_layer(LayerBuilder::dropout(0.1))
                    .add_layer(LayerBuilder::dense(3).activation(Activation::Softmax))
                    .loss(Loss::CategoricalCrossEntropy)
                    .build();
  EXPECT_EQ(net.num_parameters(), 4 * 16 + 16 + 2 * 16 + 16 * 3 + 3);
  const Tensor x_before = x.clone();
  TrainingConfig config = quiet(8);
  config.validation_split = 0.25;
  nn::History h = net.train(x, y, config);
  ASSERT_EQ(h.epochs(), 8u);
  ASSERT_EQ(h.val_loss.size(), 8u);
  EXPECT_LT(h.train_loss.back(), 0.5 * h.train_loss.front());
  EXPECT_GT(h.val_metrics.at("accuracy").back(), 0.95);
  EXPECT_EQ(values_of(x), values_of(x_before)) << "training changed its input";
  const nn::Evaluation e = net.evaluate(x, y);
  ASSERT_TRUE(e.accuracy.has_value());
  EXPECT_GT(*e.accuracy, 0.95);
  const Tensor p = net.predict(x.slice(0, 0, 5));
  ASSERT_EQ(p.shape(), (Shape{5, 3}));
  for (std::int64_t r = 0; r < 5; ++r) EXPECT_NEAR(get(p, {r, 0}) + get(p, {r, 1}) + get(p, {r, 2}), 1.0, 1e-5);
}

TEST_P(NnNetwork, RegressionAndBinaryLosses) {
  auto [x, labels] = blobs(256, 2);
  // y = 0.5 x0 - x2: a linear target that MSE and Huber both fit.
  Tensor target = Tensor::empty(Shape{256, 1}, DType::f32), bits = Tensor::empty(Shape{256, 1}, DType::f32);
  for (std::int64_t i = 0; i < 256; ++i) {
    target.data<float>()[i] = 0.5f * x.data<float>()[i * 4] - x.data<float>()[i * 4 + 2];
    bits.data<float>()[i] = labels.data<std::int64_t>()[i] == 0 ? 1.0f : 0.0f;
  }
  for (Loss loss : {Loss::MeanSquaredError, Loss::Huber}) {
    Network net = Network::with_input_size(4, dev()).add_layer(LayerBuilder::dense(1)).loss(loss).seed(4).build();
    const nn::History h = net.train(x, target, quiet(15, 16, 2e-2));
    EXPECT_LT(h.train_loss.back(), 0.05 * h.train_loss.front()) << nn::loss_name(loss);
  }
  Network binary = Network::with_input_size(4, dev())
                       .add_layer(LayerBuilder::dense(8).activation(Activation::Tanh))
                       .add_layer(LayerBuilder::dense(1).activation(Activation::Sigmoid))
                       .loss(Loss::BinaryCrossEntropy)
                       .build();
  const nn::History h = binary.train(x, bits, quiet(6));
  EXPECT_GT(h.train_metrics.at("accuracy").back(), 0.95);
  for (double p : values_of(binary.predict(x.slice(0, 0, 8)))) {
    EXPECT_GE(p, 0.0);
    EXPECT_LE(p, 1.0);
  }
}

TEST_P(NnNetwork, SmallCnnTrains) {
  // 8x8 images with a bright bar, horizontal (class 0) or vertical (class 1), plus noise.
  const std::int64_t n = 64;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<float> noise(0.0f, 0.3f);
  Tensor x = Tensor::empty(Shape{n, 1, 8, 8}, DType::f32), y = Tensor::empty(Shape{n}, DType::i64);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t cls = i % 2, at = static_cast<std::int64_t>(rng() % 8);
    y.data<std::int64_t>()[i] = cls;
    for (std::int64_t r = 0; r < 8; ++r)
      for (std::int64_t c = 0; c < 8; ++c)
        x.data<float>()[i * 64 + r * 8 + c] = noise(rng) + (((cls == 0 ? r : c) == at) ? 1.0f : 0.0f);
  }
  Network net = Network::with_input_shape({1, 8, 8}, dev())
                    .add_layer(LayerBuilder::conv2d_same(4, 3).activation(Activation::ReLU))
                    .add_layer(LayerBuilder::max_pool2d({2}))
                    .add_layer(LayerBuilder::avg_pool2d({2}))
                    .add_layer(LayerBuilder::dense(2).activation(Activation::Softmax))
                    .loss(Loss::CategoricalCrossEntropy)
                    .build();
  const nn::History h = net.train(x, y, quiet(12, 8, 2e-2));
  EXPECT_LT(h.train_loss.back(), 0.5 * h.train_loss.front());
  EXPECT_GE(h.train_metrics.at("accuracy").back(), 0.9);
}

TEST_P(NnNetwork, SchedulesClippingAndEarlyStopping) {
  auto [x, y] = blobs(128, 5);
  auto build = [&] {
    return Network::with_input_size(4, dev())
        .add_layer(LayerBuilder::dense(3).activation(Activation::Softmax))
        .loss(Loss::CategoricalCrossEntropy)
        .build();
  };
  TrainingConfig config = quiet(6);
  config.lr_schedule = "cosine";
  config.warmup_epochs = 2;
  config.gradient_clip_norm = 1.0;
  config.optimizer = "sgd";
  Network net = build();
  const nn::History h = net.train(x, y, config);
  const double lr = config.learning_rate;
  const std::vector<double> expected{lr / 2, lr, lr, lr * (1 + std::cos(M_PI / 4)) / 2, lr / 2,
                                     lr * (1 + std::cos(3 * M_PI / 4)) / 2};
  ASSERT_EQ(h.learning_rates.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(h.learning_rates[i], expected[i], 1e-15) << i;

  // Early stopping: with patience 1 and a min_delta no epoch can beat, training stops after epoch 2 and
  // puts back epoch 1's weights, the same weights as a run of one epoch.
  TrainingConfig patient = quiet(10);
  patient.early_stopping_patience = 1;
  patient.early_stopping_min_delta = 1e9;
  Network stopped_net = build();
  const nn::History stopped = stopped_net.train(x, y, patient);
  EXPECT_TRUE(stopped.stopped_early);
  EXPECT_EQ(stopped.epochs(), 2u);
  ASSERT_TRUE(stopped.best_epoch.has_value());
  EXPECT_EQ(*stopped.best_epoch, 1);
  Network one_epoch = build();
  one_epoch.train(x, y, quiet(1));
  EXPECT_EQ(values_of(stopped_net.predict(x)), values_of(one_epoch.predict(x)));
}

TEST_P(NnNetwork, BadInputIsRejectedBeforeTraining) {
  auto [x, y] = blobs(32, 6);
  Network net = Network::with_input_size(4, dev())
                    .add_layer(LayerBuilder::dense(3).activation(Activation::Softmax))
                    .loss(Loss::CategoricalCrossEntropy)
                    .build();
  std::vector<std::vector<double>> before;
  for (const auto& p : net.parameters()) before.push_back(values_of(p.value().to(Device::cpu())));
  EXPECT_THROW(net.train(accelera::zeros(Shape{32, 5}), y, quiet(1)), accelera::ShapeError);
  EXPECT_THROW(net.train(x, y.slice(0, 0, 31), quiet(1)), accelera::ShapeError);
  Tensor bad = y.clone();
  bad.data<std::int64_t>()[7] = 3;
  try {
    net.train(x, bad, quiet(1));
    ADD_FAILURE() << "no error";
  } catch (const accelera::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("label 3 is outside [0, 3)"), std::string::npos) << e.what();
  }
  TrainingConfig split = quiet(1);
  split.validation_split = 1.0;
  EXPECT_THROW(net.train(x, y, split), accelera::ValueError);
  TrainingConfig optimizer = quiet(1);
  optimizer.optimizer = "adagrad";
  EXPECT_THROW(net.train(x, y, optimizer), accelera::ValueError);
  EXPECT_THROW(net.train(x, y.astype(DType::f32), quiet(1)), accelera::DTypeError);  // float labels
  std::size_t i = 0;
  for (const auto& p : net.parameters()) EXPECT_EQ(values_of(p.value().to(Device::cpu())), before[i++]);

  EXPECT_THROW(LayerBuilder::dense(0), accelera::ValueError);
  EXPECT_THROW(LayerBuilder::dropout(1.0), accelera::ValueError);
  EXPECT_THROW(LayerBuilder::conv2d_same(3, 2), accelera::ValueError);
  EXPECT_THROW(Network::with_input_size(4).build(), accelera::ValueError);
  EXPECT_THROW(Network::with_input_size(4)
                   .add_layer(LayerBuilder::dense(2).activation(Activation::Softmax))
                   .loss(Loss::BinaryCrossEntropy)
                   .build(),
               accelera::ValueError);
  EXPECT_THROW(Network::with_input_size(4).add_layer(LayerBuilder::max_pool2d()).build(), accelera::ShapeError);
  EXPECT_THROW(Network::with_input_shape({1, 3, 3}).add_layer(LayerBuilder::max_pool2d({4})).add_layer(LayerBuilder::dense(2)).build(),
               accelera::ShapeError);
  EXPECT_THROW(Network::with_input_size(4).dtype(DType::f16), accelera::DTypeError);
  EXPECT_EQ(nn::activation_from_name("SiLU"), Activation::Swish);
  EXPECT_THROW(nn::activation_from_name("Mish"), accelera::ValueError);
}

// ---- files ----------------------------------------------------------------------------------------------------

TEST_P(NnNetwork, SaveAndLoadRoundTrip) {
  auto [x, y] = blobs(64, 7);
  Network net = Network::with_input_size(4, dev())
                    .add_layer(LayerBuilder::dense(5).activation(Activation::GELU))
                    .add_layer(LayerBuilder::layer_norm())
                    .add_layer(LayerBuilder::dense(3).activation(Activation::Softmax))
                    .loss(Loss::CategoricalCrossEntropy)
                    .dtype(DType::f64)
                    .build();
  net.train(x, y, quiet(2));
  const auto dir = scratch_dir("roundtrip");
  const std::string path = (dir / "model.safetensors").string();
  net.save(path);
  struct stat info{};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(info.st_mode & 0777, 0666u & ~mask) << "the saved file follows the umask";
  Network loaded = Network::load(path, dev());
  EXPECT_EQ(values_of(loaded.predict(x)), values_of(net.predict(x)));
  EXPECT_EQ(loaded.num_parameters(), net.num_parameters());
  Network on_cpu = Network::load(path);
  EXPECT_EQ(on_cpu.device(), Device::cpu());
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    EXPECT_EQ(entry.path().filename(), "model.safetensors") << "a temporary was left behind";

  // A save into a missing directory fails and creates nothing.
  EXPECT_THROW(net.save((dir / "missing" / "m.safetensors").string()), accelera::Error);
  EXPECT_FALSE(std::filesystem::exists(dir / "missing"));

  // Damaged files are named in the error.
  const std::string truncated = (dir / "truncated.safetensors").string();
  std::filesystem::copy_file(path, truncated);
  std::filesystem::resize_file(truncated, std::filesystem::file_size(path) - 9);
  EXPECT_THROW(Network::load(truncated), accelera::ValueError);
  const std::string other = (dir / "other.safetensors").string();
  nn::safetensors::save_file({{"w", accelera::ones(Shape{2})}}, other, {{"format", "something else"}});
  EXPECT_THROW(Network::load(other), accelera::ValueError);
  const std::string fewer = (dir / "fewer.safetensors").string();
  auto file = nn::safetensors::load_file(path);
  file.tensors.erase(file.tensors.begin());
  nn::safetensors::save_file(file.tensors, fewer, file.metadata);
  EXPECT_THROW(Network::load(fewer), accelera::ValueError);
  std::ofstream(dir / "garbage.safetensors") << "not a safetensors file at all";
  EXPECT_THROW(Network::load((dir / "garbage.safetensors").string()), accelera::ValueError);
  std::filesystem::remove_all(dir);
}

TEST_P(NnNetwork, LoadsNetworksPythonSaved) {
  // tests/data/nn (made by make_python_networks.py): a small CNN (conv2d, batch norm, both poolings, dense,
  // layer norm, dropout) and a recurrent network (LSTM returning sequences, GRU, dense), trained and saved
  // by Python's accelera.nn, each with a probe batch and Python's predictions for it.
  for (const std::string name : {"python_cnn", "python_rnn"}) {
    SCOPED_TRACE(name);
    const std::string data = ACCELERA_TEST_DATA_DIR "/nn/";
    Network net = Network::load(data + name + ".safetensors", dev());
    const auto io = nn::safetensors::load_file(data + name + "_io.safetensors");
    const Tensor& expected = io.tensors.at("expected");
    const Tensor got = net.predict(io.tensors.at("x"));
    ASSERT_EQ(got.shape(), expected.shape());
    const auto g = values_of(got), e = values_of(expected);
    for (std::size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], e[i], 2e-6) << i;
    // Saved again from C++, the file reads back to the same predictions.
    const auto dir = scratch_dir("python");
    net.save((dir / "again.safetensors").string());
    EXPECT_EQ(values_of(Network::load((dir / "again.safetensors").string(), dev()).predict(io.tensors.at("x"))), g);
    std::filesystem::remove_all(dir);
  }
}

INSTANTIATE_TEST_SUITE_P(AllDevices, NnNetwork, ::testing::ValuesIn(all_devices()), device_name);

// ---- data sets --------------------------------------------------------------------------------------------------

TEST(NnDatasets, FashionMnistFromDebiansPackage) {
  // dataset-fashion-mnist is installed by the test command (scripts/install-deps.sh).
  const nn::datasets::LabelledData data = nn::datasets::fashion_mnist();
  ASSERT_EQ(data.train.x.shape(), (Shape{60000, 784}));
  ASSERT_EQ(data.test.x.shape(), (Shape{10000, 784}));
  ASSERT_EQ(data.train.y.shape(), (Shape{60000}));
  // The set is balanced: 6,000 training and 1,000 test images of each class.
  for (const auto* split : {&data.train, &data.test}) {
    std::vector<std::int64_t> counts(10, 0);
    for (std::int64_t i = 0; i < split->y.numel(); ++i) ++counts.at(static_cast<std::size_t>(split->y.data<std::int64_t>()[i]));
    for (auto c : counts) EXPECT_EQ(c, split->y.numel() / 10);
  }
  const float* px = data.train.x.data<float>();
  float lo = 1, hi = 0;
  for (std::int64_t i = 0; i < data.train.x.numel(); ++i) lo = std::min(lo, px[i]), hi = std::max(hi, px[i]);
  EXPECT_EQ(lo, 0.0f);
  EXPECT_EQ(hi, 1.0f);
}

TEST(NnDatasets, MalformedFilesAreNamed) {
  const auto dir = scratch_dir("idx");
  auto write = [&](const std::string& name, std::vector<unsigned char> bytes) {
    std::ofstream(dir / name, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                        static_cast<std::streamsize>(bytes.size()));
  };
  try {
    nn::datasets::fashion_mnist(dir.string());
    ADD_FAILURE() << "no error";
  } catch (const accelera::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("dataset-fashion-mnist"), std::string::npos) << e.what();
  }
  // Two 28x28 images, but a payload one byte short.
  std::vector<unsigned char> images{0, 0, 8, 3, 0, 0, 0, 2, 0, 0, 0, 28, 0, 0, 0, 28};
  images.resize(images.size() + 2 * 784 - 1, 7);
  write("train-images-idx3-ubyte", images);
  write("train-labels-idx1-ubyte", {0, 0, 8, 1, 0, 0, 0, 2, 3, 4});
  try {
    nn::datasets::fashion_mnist(dir.string());
    ADD_FAILURE() << "no error";
  } catch (const accelera::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("train-images-idx3-ubyte: not a valid IDX file: payload"), std::string::npos)
        << e.what();
  }
  write("train-images-idx3-ubyte", {0, 0, 9, 3});  // not unsigned bytes
  EXPECT_THROW(nn::datasets::fashion_mnist(dir.string()), accelera::ValueError);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace acc_test
