// The training example of the RNN library's GPU guide, in accelera::nn's C++ names, on Fashion-MNIST
// (Debian's dataset-fashion-mnist; nothing is downloaded):
//
//   accelera_train_fashion_mnist [--device cpu|opencl:0|cuda:0] [--epochs 12] [--model mlp|cnn]
//                                [--batch 128] [--json]
//
// mlp: the builder-API MLP 784-256-128-10 (ReLU, softmax cross-entropy, Adam 1e-3), as bench_train.py's;
// cnn: two 3x3 convolution + 2x2 max-pool stages of 32 and 64 filters, dense 128, 10 classes, as
// `accelera train --model cnn`. Prints each epoch, the test accuracy and the median epoch time after the
// first; --json prints one JSON object instead (for bench_train.py's comparisons).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "accelera/core/error.hpp"
#include "accelera/nn.hpp"

using namespace accelera::nn;

int main(int argc, char** argv) {
  std::string device = "cpu", model = "mlp";
  std::int64_t epochs = 12, batch = 128;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << arg << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--device") device = next();
    else if (arg == "--epochs") epochs = std::stoll(next());
    else if (arg == "--batch") batch = std::stoll(next());
    else if (arg == "--model") model = next();
    else if (arg == "--json") json = true;
    else {
      std::cerr << "unknown argument " << arg << "\n";
      return 2;
    }
  }
  if (model != "mlp" && model != "cnn") {
    std::cerr << "--model is mlp or cnn, got " << model << "\n";
    return 2;
  }
  try {
    const datasets::LabelledData data = datasets::fashion_mnist();
    const accelera::Device where = accelera::Device::parse(device);
    NetworkBuilder builder = model == "cnn" ? Network::with_input_shape({1, 28, 28}, where)
                                                  .add_layer(LayerBuilder::conv2d_same(32, 3).activation(Activation::ReLU))
                                                  .add_layer(LayerBuilder::max_pool2d({2}))
                                                  .add_layer(LayerBuilder::conv2d_same(64, 3).activation(Activation::ReLU))
                                                  .add_layer(LayerBuilder::max_pool2d({2}))
                                                  .add_layer(LayerBuilder::dense(128).activation(Activation::ReLU))
                                            : Network::with_input_size(784, where)
                                                  .add_layer(LayerBuilder::dense(256).activation(Activation::ReLU))
                                                  .add_layer(LayerBuilder::dense(128).activation(Activation::ReLU));
    Network network = builder.add_layer(LayerBuilder::dense(10).activation(Activation::Softmax))
                          .loss(Loss::CategoricalCrossEntropy)
                          .build();
    TrainingConfig config;
    config.batch_size = batch;
    config.max_epochs = epochs;
    config.learning_rate = 1e-3;
    config.verbose = !json;
    const History history = network.train(data.train.x, data.train.y, config, &std::cout);
    const Evaluation test = network.evaluate(data.test.x, data.test.y);
    std::vector<double> warm(history.epoch_seconds.begin() + (history.epoch_seconds.size() > 1 ? 1 : 0),
                             history.epoch_seconds.end());
    std::sort(warm.begin(), warm.end());
    const double median = warm[warm.size() / 2];
    if (json) {
      std::string seconds;
      for (double t : history.epoch_seconds) seconds += (seconds.empty() ? "" : ", ") + std::to_string(t);
      std::printf("{\"device\": \"%s\", \"model\": \"%s\", \"test_accuracy\": %.6f, \"median_epoch_s\": %.6f, "
                  "\"epoch_seconds\": [%s]}\n", device.c_str(), model.c_str(), *test.accuracy, median, seconds.c_str());
    } else {
      std::printf("test accuracy %.2f%%, median epoch (after the first) %.3f s on %s\n", 100.0 * *test.accuracy,
                  median, device.c_str());
    }
  } catch (const accelera::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
