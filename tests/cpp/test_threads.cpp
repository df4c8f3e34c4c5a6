// Eight host threads using one device at once, on every device (cuda:0 carries the label `gpu` and skips,
// saying why, where no CUDA device answers): element-wise ops and a reduction, matmul, a fused op
// (linear_gelu), a MatrixEngine whose small budget makes it stream, and, where the device compiles kernels
// at run time, a user kernel built and launched through one shared KernelManager. Every result is checked
// against the CPU backend in float64. The device's queues or streams, BLAS handles, caching allocator and
// kernel cache are shared between the threads. The ThreadSanitizer job (scripts/test-tsan.sh) runs it.
#include <latch>
#include <thread>

#include "accelera/engine.hpp"
#include "accelera/kernel.hpp"
#include "accelera/nn_ops.hpp"
#include "helpers.hpp"

namespace acc_test {
namespace {

using accelera::KernelArg;
using accelera::LaunchSize;

const char* kCudaAxpy = R"(
extern "C" __global__ void axpy(double* out, const double* x, const double* y, double a, long long n) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}
)";

const char* kOpenClAxpy = R"(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void axpy(__global double* out, __global const double* x, __global const double* y, double a, long n) {
  const long i = get_global_id(0);
  if (i < n) out[i] = a * x[i] + y[i];
}
)";

class Threads : public ::testing::TestWithParam<Device> {
 protected:
  void SetUp() override {
    if (const std::string why = device_absence(GetParam()); !why.empty()) GTEST_SKIP() << why;
  }
};

// "" when `got` (any device) matches `want` (on the CPU) within tol; else what differs.
std::string mismatch(const char* what, const Tensor& got, const Tensor& want, Tol tol) {
  const Ref ref{want.shape(), values_of(want), {}};
  const auto ok = matches(got.to(Device::cpu()), ref, tol);
  return ok ? std::string() : std::string(what) + ": " + ok.message();
}

// One thread's work: each op on the device against the same op on the CPU. Shapes differ per thread, so the
// threads allocate, free and reuse blocks of many sizes at once.
std::string run_thread(int t, const Device& device, accelera::KernelManager& manager) {
  std::mt19937_64 rng(100 + static_cast<unsigned>(t));
  const Tol tol{1e-12, 1e-12};
  for (int round = 0; round < 3; ++round) {
    const std::int64_t m = 61 + 17 * t + round, k = 97 + 5 * t, n = 45 + 11 * round;
    const Tensor a = random_tensor(Shape{m, k}, DType::f64, rng), b = random_tensor(Shape{k, n}, DType::f64, rng);
    const Tensor c = random_tensor(Shape{m, k}, DType::f64, rng), bias = random_tensor(Shape{n}, DType::f64, rng);
    const Tensor da = a.to(device), db = b.to(device), dc = c.to(device);

    // Element-wise ops and a reduction.
    const auto elementwise = [](const Tensor& x, const Tensor& y) {
      return accelera::add(accelera::multiply(x, y), accelera::exp(accelera::tanh(y)));
    };
    if (auto e = mismatch("element-wise", elementwise(da, dc), elementwise(a, c), tol); !e.empty()) return e;
    if (auto e = mismatch("sum", accelera::sum(dc, axes({0})), accelera::sum(c, axes({0})), tol); !e.empty()) {
      return e;
    }
    // matmul (cuBLAS) and a fused op (cuBLAS GEMM + GELU pass for float64).
    if (auto e = mismatch("matmul", accelera::matmul(da, db), accelera::matmul(a, b), tol); !e.empty()) return e;
    const Tensor w = b.T().contiguous();  // (n, k)
    if (auto e = mismatch("linear_gelu", accelera::linear_gelu(da, w.to(device), bias.to(device)),
                          accelera::linear_gelu(a, w, bias), tol);
        !e.empty()) {
      return e;
    }

    // The engine, streaming host matrices through the device under a small budget.
    accelera::EngineOptions options;
    options.device = device;
    options.memory_budget = 48 * 1024;
    options.chunking_strategy = accelera::ChunkingStrategy::tile;
    options.enable_progress = false;
    accelera::MatrixEngine engine(options);
    if (auto e = mismatch("MatrixEngine", engine.matmul(a, b), accelera::matmul(a, b), tol); !e.empty()) return e;
    if (!engine.last_run().streamed) return "MatrixEngine: the budget did not make it stream";

    // A user kernel: every thread builds it (one build, then the manager's copy) and launches it.
    if (device.is_cpu()) continue;  // the CPU compiles no kernels at run time
    const bool cuda = device.kind == accelera::DeviceKind::cuda;
    auto axpy = manager.compile_kernel("axpy", cuda ? kCudaAxpy : kOpenClAxpy, cuda ? "cuda" : "opencl");
    const Tensor out = accelera::zeros(Shape{m, k}, DType::f64, device);
    const double alpha = 0.5 + t;
    const KernelArg args[] = {out, da, dc, alpha, std::int64_t{m * k}};
    axpy->launch(args, LaunchSize{m * k}, LaunchSize{128});
    const Tensor want = accelera::add(accelera::multiply(a, accelera::full(Shape{1}, alpha, DType::f64)), c);
    if (auto e = mismatch("user kernel", out, want, tol); !e.empty()) return e;
  }
  return {};
}

TEST_P(Threads, EightThreadsShareOneDevice) {
  constexpr int kThreads = 8;
  const Device device = GetParam();
  accelera::KernelManager manager(device);
  std::vector<std::string> failures(kThreads);
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      try {
        failures[static_cast<std::size_t>(t)] = run_thread(t, device, manager);
      } catch (const accelera::Error& e) {
        failures[static_cast<std::size_t>(t)] = std::string("raised: ") + e.what();
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[static_cast<std::size_t>(t)], "") << "thread " << t;
  EXPECT_NO_THROW(accelera::device_interface(device).synchronize(device.index));
}

INSTANTIATE_TEST_SUITE_P(Devices, Threads, ::testing::ValuesIn(with_cuda_placeholder(all_devices())), device_name);

}  // namespace
}  // namespace acc_test
