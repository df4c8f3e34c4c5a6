// CUDA-specific behaviour on cuda:0 (label `gpu`; every test skips, saying why, where no CUDA device
// answers): plain device memory through the caching allocator, record-stream semantics of asynchronous
// copies, NVRTC kernels and their disk cache, the TF32 switch, float16/bfloat16 accuracy.
#include <cstdlib>
#include <filesystem>

#include <unistd.h>

#include "accelera/ops.hpp"
#include "core/kernel_cache.hpp"
#include "helpers.hpp"

#ifdef ACCELERA_TEST_CUDA
#include <cuda_runtime_api.h>
#endif

namespace acc_test {
namespace {

using accelera::KernelArg;
using accelera::LaunchSize;

const Device kCuda{accelera::DeviceKind::cuda, 0};

class CudaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_compiled()) GTEST_SKIP() << "built without CUDA support";
    if (const std::string why = device_absence(kCuda); !why.empty()) GTEST_SKIP() << why;
  }
  std::mt19937_64 rng{11};
};

using CudaMemory = CudaTest;
using CudaKernels = CudaTest;
using CudaMatmul = CudaTest;
using CudaHalfOps = CudaTest;

TEST_F(CudaMemory, DeviceInfoIsReal) {
  const auto info = accelera::device_interface(kCuda).device_info(0);
  EXPECT_EQ(info.vendor, "NVIDIA");
  EXPECT_NE(info.name.find("compute capability"), std::string::npos) << info.name;
  EXPECT_GT(info.total_memory, 0);
  EXPECT_GT(info.free_memory, 0);
  EXPECT_LE(info.free_memory, info.total_memory);
  EXPECT_GT(info.compute_units, 0);
  EXPECT_TRUE(info.is_accelerator);
  EXPECT_EQ(accelera::default_device(), kCuda);
}

TEST_F(CudaMemory, BlocksArePlainDeviceMemoryReusedByTheCache) {
  auto& alloc = accelera::allocator_for(kCuda);
  alloc.empty_cache();
  const auto before = alloc.stats();
  void* first = nullptr;
  {
    Tensor t = Tensor::empty(Shape{1 << 20}, DType::f32, kCuda);
    first = t.data_ptr();
#ifdef ACCELERA_TEST_CUDA
    cudaPointerAttributes attributes{};
    ASSERT_EQ(cudaPointerGetAttributes(&attributes, first), cudaSuccess);
    EXPECT_EQ(attributes.type, cudaMemoryTypeDevice);  // never managed memory
    EXPECT_EQ(attributes.device, 0);
#endif
  }
  Tensor again = Tensor::empty(Shape{1 << 20}, DType::f32, kCuda);
  EXPECT_EQ(again.data_ptr(), first);
  EXPECT_EQ(alloc.stats().cache_hits, before.cache_hits + 1);
  alloc.fail_nth_allocation(1);
  EXPECT_THROW(Tensor::empty(Shape{7}, DType::f32, kCuda), accelera::OutOfMemoryError);
  const auto budget = alloc.budget();
  alloc.set_budget(1 << 20);
  EXPECT_THROW(Tensor::empty(Shape{1 << 20}, DType::f64, kCuda), accelera::OutOfMemoryError);
  alloc.set_budget(budget);
  again = Tensor();
  alloc.empty_cache();
  EXPECT_EQ(alloc.stats().reserved_bytes, before.reserved_bytes);
}

// Note [CUDA memory and streams]: a tensor freed while an asynchronous copy may still read it stays
// allocated until a later call sees that copy finished.
TEST_F(CudaMemory, AsyncCopyKeepsItsTensorUntilTheStreamIsDone) {
  auto& backend = accelera::device_interface(kCuda);
  auto& alloc = accelera::allocator_for(kCuda);
  const std::int64_t n = 1 << 22;
  auto staging = backend.allocate_host(0, n * sizeof(float));
  EXPECT_TRUE(staging->pinned());
  const auto baseline = alloc.stats().current_bytes;
  Tensor t = accelera::full(Shape{n}, 3.0, DType::f32, kCuda);
  const auto held = alloc.stats().current_bytes;
  backend.copy_to_host_async(staging->data(), t, accelera::Stream::download);
  t = Tensor();
  EXPECT_EQ(alloc.stats().current_bytes, held);  // still in use by the copy
  backend.synchronize_stream(0, accelera::Stream::download);
  EXPECT_EQ(alloc.stats().current_bytes, baseline);
  EXPECT_EQ(static_cast<const float*>(staging->data())[n - 1], 3.0f);
}

TEST_F(CudaMemory, PeerOrStagedCopiesBetweenDevices) {
  const int count = accelera::device_interface(kCuda).device_count();
  if (count < 2) GTEST_SKIP() << "one CUDA device: no device-to-device copy to test";
  const Device cuda1{accelera::DeviceKind::cuda, 1};
  const Tensor host = random_tensor(Shape{257, 33}, DType::f64, rng);
  const Tensor moved = host.to(kCuda).T().to(cuda1).to(Device::cpu());
  EXPECT_EQ(storage_bytes(moved.contiguous()), storage_bytes(host.T().contiguous()));
}

const char* kScaleSource = R"(
extern "C" __global__ void scale(float* out, const float* x, float a, long long n) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i];
}
template <typename T>
__global__ void twice(T* p, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = p[i] * T(2);
}
)";

TEST_F(CudaKernels, CompileLaunchAndCache) {
  const auto dir = std::filesystem::temp_directory_path() / ("accelera-cuda-cache-" + std::to_string(::getpid()));
  ::setenv("ACCELERA_KERNEL_CACHE", dir.c_str(), 1);
  accelera::reload_config();
  const auto stats0 = accelera::kernel_cache_stats();
  accelera::KernelManager manager(kCuda);
  auto kernel = manager.compile_kernel("scale", kScaleSource, "cuda");
  EXPECT_EQ(kernel->device(), kCuda);
  EXPECT_EQ(accelera::kernel_cache_stats().stores, stats0.stores + 1);
  const std::int64_t n = 1000;
  const Tensor x = random_tensor(Shape{n}, DType::f32, rng).to(kCuda);
  const Tensor out = accelera::zeros(Shape{n}, DType::f32, kCuda);
  const KernelArg args[] = {out, x, 2.5f, std::int64_t{n}};
  kernel->launch(args, LaunchSize{n}, LaunchSize{128});
  const auto got = values_of(out.to(Device::cpu())), want = values_of(x.to(Device::cpu()));
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i], 2.5 * static_cast<float>(want[i])) << i;

  // A second manager finds the binary on disk; a C++ template instance is found by its name too.
  accelera::KernelManager other(kCuda);
  other.compile_kernel("scale", kScaleSource, "cuda");
  EXPECT_EQ(accelera::kernel_cache_stats().hits, stats0.hits + 1);
  auto twice = other.compile_kernel("twice<float>", kScaleSource, "cuda");
  const KernelArg twice_args[] = {out, std::int32_t{10}};
  twice->launch(twice_args, LaunchSize{10}, LaunchSize{32});
  EXPECT_EQ(values_of(out.to(Device::cpu()))[9], 5.0 * static_cast<float>(want[9]));
  ::unsetenv("ACCELERA_KERNEL_CACHE");
  accelera::reload_config();
  std::filesystem::remove_all(dir);
}

TEST_F(CudaKernels, BadSourceAndBadArgumentsAreValueErrors) {
  accelera::KernelManager manager(kCuda);
  try {
    manager.compile_kernel("broken", "extern \"C\" __global__ void broken(float* p) { p[0] = undefined_name; }",
                           "cuda");
    ADD_FAILURE() << "no error for a kernel that does not compile";
  } catch (const accelera::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("undefined_name"), std::string::npos) << e.what();  // the log
  }
  auto kernel = manager.compile_kernel("scale", kScaleSource, "cuda");
  const Tensor x = accelera::ones(Shape{4, 4}, DType::f32, kCuda);
  const KernelArg too_few[] = {x, x};
  EXPECT_THROW(kernel->launch(too_few, LaunchSize{16}, LaunchSize{16}), accelera::ValueError);
  const KernelArg wrong_size[] = {x, x, 1.0f, std::int32_t{16}};  // n is a long long
  EXPECT_THROW(kernel->launch(wrong_size, LaunchSize{16}, LaunchSize{16}), accelera::ValueError);
  const KernelArg strided[] = {x.T(), x, 1.0f, std::int64_t{16}};
  EXPECT_THROW(kernel->launch(strided, LaunchSize{16}, LaunchSize{16}), accelera::ValueError);
  const KernelArg on_cpu[] = {accelera::ones(Shape{16}), x, 1.0f, std::int64_t{16}};
  EXPECT_THROW(kernel->launch(on_cpu, LaunchSize{16}, LaunchSize{16}), accelera::ValueError);
  const KernelArg fine[] = {x, x, 1.0f, std::int64_t{16}};
  EXPECT_THROW(kernel->launch(fine, LaunchSize{16}, LaunchSize{2048}), accelera::ValueError);  // block too big
}

// Largest |got - ref| / (sum over k of |a||b|) of a matmul against float64 on the CPU.
double matmul_error(const Tensor& a, const Tensor& b, DType dtype) {
  const Tensor got = accelera::matmul(a.astype(dtype).to(kCuda), b.astype(dtype).to(kCuda)).to(Device::cpu());
  const Tensor a64 = a.astype(dtype).astype(DType::f64), b64 = b.astype(dtype).astype(DType::f64);
  const auto ref = values_of(accelera::matmul(a64, b64));
  const auto abs = [](const Tensor& t) { return accelera::add(accelera::relu(t), accelera::relu(accelera::neg(t))); };
  const auto scale = values_of(accelera::matmul(abs(a64), abs(b64)));
  const auto g = values_of(got);
  double worst = 0;
  for (std::size_t i = 0; i < g.size(); ++i) worst = std::max(worst, std::abs(g[i] - ref[i]) / scale[i]);
  return worst;
}

TEST_F(CudaMatmul, Tf32IsOffByDefaultAndSwitchable) {
  ASSERT_FALSE(accelera::allow_tf32());
  const Tensor a = random_tensor(Shape{256, 1024}, DType::f32, rng);
  const Tensor b = random_tensor(Shape{1024, 192}, DType::f32, rng);
  const double exact = matmul_error(a, b, DType::f32);
  EXPECT_LT(exact, 1e-6);  // float32 accumulation error, far below TF32's
  accelera::set_allow_tf32(true);
  const double tf32 = matmul_error(a, b, DType::f32);
  accelera::set_allow_tf32(false);
  EXPECT_LT(tf32, 2e-3);  // inputs rounded to 10-bit mantissas
  const auto info = accelera::device_interface(kCuda).device_info(0);
  if (info.name.find("compute capability 7.") == std::string::npos) {
    EXPECT_GT(tf32, 1e-5) << "TF32 allowed but float32 accuracy kept: the switch had no effect";
  }
}

TEST_F(CudaMatmul, HalfFormatsAccumulateInFloat32) {
  // Errors relative to sum |a||b|: one rounding of the result gives about 1e-5 (float16) and 3e-4
  // (bfloat16) here; accumulating in the narrow format would give ten times more.
  for (const auto& [dtype, bound] : {std::pair{DType::f16, 1e-4}, std::pair{DType::bf16, 1e-3}}) {
    const Tensor a = random_tensor(Shape{3, 64, 4096}, DType::f32, rng);
    const Tensor b = random_tensor(Shape{4096, 48}, DType::f32, rng);
    const Tensor got = accelera::matmul(a.astype(dtype).to(kCuda), b.astype(dtype).to(kCuda));
    EXPECT_EQ(got.dtype(), dtype);
    EXPECT_LT(matmul_error(a, b, dtype), bound) << accelera::dtype_name(dtype);
  }
}

TEST_F(CudaHalfOps, ElementwiseAndReductionsInHalfFormats) {
  for (DType dtype : {DType::f16, DType::bf16}) {
    const double eps = dtype == DType::f16 ? 0x1p-10 : 0x1p-7;
    const Tensor x = random_tensor(Shape{129, 67}, DType::f32, rng, -2, 2).astype(dtype);
    const Tensor y = random_tensor(Shape{67}, DType::f32, rng, 0.5, 2).astype(dtype);
    const Tensor dx = x.to(kCuda), dy = y.to(kCuda);
    const Tensor x64 = x.astype(DType::f64), y64 = y.astype(DType::f64);
    const std::pair<Tensor, Tensor> cases[] = {
        {accelera::add(dx, dy), accelera::add(x64, y64)},
        {accelera::divide(dx.T(), dy.unsqueeze(1)), accelera::divide(x64.T(), y64.unsqueeze(1))},
        {accelera::exp(dx), accelera::exp(x64)},
        {accelera::tanh(dx), accelera::tanh(x64)},
        {accelera::sum(dx, axes({0})), accelera::sum(x64, axes({0}))},
        {accelera::max(dx, axes({1})), accelera::max(x64, axes({1}))},
    };
    for (const auto& [got, want] : cases) {
      ASSERT_EQ(got.dtype(), dtype);
      const auto g = values_of(got.to(Device::cpu())), w = values_of(want);
      ASSERT_EQ(g.size(), w.size());
      for (std::size_t i = 0; i < g.size(); ++i) ASSERT_NEAR(g[i], w[i], eps * (std::abs(w[i]) + 1e-3)) << i;
    }
  }
}

}  // namespace
}  // namespace acc_test
