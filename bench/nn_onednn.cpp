// oneDNN anchors for bench/bench_nn.py: times one oneDNN CPU primitive on a float32 (rows, n) matrix and
// prints the best of `repeat` runs in seconds. Built by bench_nn.py when libdnnl-dev is installed:
//   c++ -O2 -std=c++17 bench/nn_onednn.cpp -ldnnl -o build/bench/nn_onednn
// Usage: nn_onednn gelu_erf|gelu_tanh|layer_norm|softmax ROWS N REPEAT
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

using namespace dnnl;

namespace {

memory filled(const memory::desc& md, const engine& eng, float lo, float hi) {
  memory m(md, eng);
  auto* p = static_cast<float*>(m.get_data_handle());
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (std::size_t i = 0; i < md.get_size() / sizeof(float); ++i) p[i] = dist(rng);
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s gelu_erf|gelu_tanh|layer_norm|softmax ROWS N REPEAT\n", argv[0]);
    return 2;
  }
  const std::string op = argv[1];
  const memory::dim rows = std::atoll(argv[2]), n = std::atoll(argv[3]);
  const int repeat = std::atoi(argv[4]);
  engine eng(engine::kind::cpu, 0);
  stream s(eng);
  const memory::desc md({rows, n}, memory::data_type::f32, memory::format_tag::ab);
  memory src = filled(md, eng, -4.0f, 4.0f), dst(md, eng);
  primitive prim;
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
  if (op == "gelu_erf" || op == "gelu_tanh") {
    const auto alg = op == "gelu_erf" ? algorithm::eltwise_gelu_erf : algorithm::eltwise_gelu_tanh;
    prim = eltwise_forward(eltwise_forward::primitive_desc(
        eltwise_forward::desc(prop_kind::forward_inference, alg, md, 0.0f, 0.0f), eng));
  } else if (op == "layer_norm") {
    // Training mode: mean and variance are outputs, as Accelera's layer_norm returns them.
    const auto pd = layer_normalization_forward::primitive_desc(
        layer_normalization_forward::desc(prop_kind::forward_training, md, 1e-5f,
                                          normalization_flags::use_scale | normalization_flags::use_shift),
        eng);
    const memory::desc vec({n}, memory::data_type::f32, memory::format_tag::a);
    args.emplace(DNNL_ARG_SCALE, filled(vec, eng, 0.5f, 2.0f));
    args.emplace(DNNL_ARG_SHIFT, filled(vec, eng, -1.0f, 1.0f));
    args.emplace(DNNL_ARG_MEAN, memory(pd.mean_desc(), eng));
    args.emplace(DNNL_ARG_VARIANCE, memory(pd.variance_desc(), eng));
    prim = layer_normalization_forward(pd);
  } else if (op == "softmax") {
    prim = softmax_forward(softmax_forward::primitive_desc(
        softmax_forward::desc(prop_kind::forward_inference, md, 1), eng));
  } else {
    std::fprintf(stderr, "unknown op %s\n", op.c_str());
    return 2;
  }
  double best = 1e30;
  for (int r = 0; r <= repeat; ++r) {  // run 0 is the warm-up
    const auto t0 = std::chrono::steady_clock::now();
    prim.execute(s, args);
    s.wait();
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0) best = std::min(best, t);
  }
  std::printf("%.9f\n", best);
  return 0;
}
