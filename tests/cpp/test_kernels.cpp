// The on-disk kernel cache (Note [Kernel cache]) and user kernels through KernelManager.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <sys/stat.h>

#include "accelera/core/config.hpp"
#include "accelera/kernel.hpp"
#include "accelera/ops.hpp"
#include "core/kernel_cache.hpp"
#include "helpers.hpp"

namespace acc_test {
namespace {

namespace fs = std::filesystem;
using accelera::KernelArg;
using accelera::KernelManager;
using accelera::LaunchSize;
using accelera::detail::kernel_cache_load;
using accelera::detail::kernel_cache_path;
using accelera::kernel_cache_stats;
using accelera::detail::kernel_cache_store;

// Points ACCELERA_KERNEL_CACHE at a fresh folder for one test and restores the environment after.
class CacheDir {
 public:
  CacheDir() : m_path(fs::temp_directory_path() / ("accelera-cache-test-" + std::to_string(::getpid()))) {
    fs::remove_all(m_path);
    if (const char* old = std::getenv("ACCELERA_KERNEL_CACHE")) m_old = old;
    ::setenv("ACCELERA_KERNEL_CACHE", m_path.c_str(), 1);
    accelera::reload_config();
  }
  ~CacheDir() {
    if (m_old) {
      ::setenv("ACCELERA_KERNEL_CACHE", m_old->c_str(), 1);
    } else {
      ::unsetenv("ACCELERA_KERNEL_CACHE");
    }
    accelera::reload_config();
    fs::remove_all(m_path);
  }
  const fs::path& path() const { return m_path; }

 private:
  fs::path m_path;
  std::optional<std::string> m_old;
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

TEST(KernelCache, StoreThenLoadRoundTrips) {
  CacheDir dir;
  const auto before = kernel_cache_stats();
  EXPECT_FALSE(kernel_cache_load("key one"));
  kernel_cache_store("key one", std::string("binary\0payload\n", 15));
  const auto loaded = kernel_cache_load("key one");
  ASSERT_TRUE(loaded);
  EXPECT_EQ(*loaded, std::string("binary\0payload\n", 15));
  const auto after = kernel_cache_stats();
  EXPECT_EQ(after.hits - before.hits, 1);
  EXPECT_EQ(after.misses - before.misses, 1);
  EXPECT_EQ(after.stores - before.stores, 1);
  EXPECT_TRUE(fs::exists(kernel_cache_path("key one")));
  EXPECT_EQ(fs::path(kernel_cache_path("key one")).parent_path(), dir.path());
}

TEST(KernelCache, CorruptPayloadIsRejectedAndRemoved) {
  CacheDir dir;
  kernel_cache_store("k", "0123456789");
  const fs::path file = kernel_cache_path("k");
  std::string bytes = read_file(file);
  bytes.back() ^= 0x01;  // one flipped bit in the payload
  write_file(file, bytes);
  const auto before = kernel_cache_stats();
  EXPECT_FALSE(kernel_cache_load("k"));
  EXPECT_EQ(kernel_cache_stats().rejected - before.rejected, 1);
  EXPECT_FALSE(fs::exists(file));
}

TEST(KernelCache, TruncatedEntryIsRejected) {
  CacheDir dir;
  kernel_cache_store("k", std::string(1000, 'x'));
  const fs::path file = kernel_cache_path("k");
  write_file(file, read_file(file).substr(0, 500));
  EXPECT_FALSE(kernel_cache_load("k"));
  EXPECT_FALSE(fs::exists(file));
}

TEST(KernelCache, EntryForAnotherKeyIsRejected) {
  CacheDir dir;
  kernel_cache_store("source version 1", "payload");
  // A stale entry under the new key's file name (as after a hash collision).
  fs::rename(kernel_cache_path("source version 1"), kernel_cache_path("source version 2"));
  const auto before = kernel_cache_stats();
  EXPECT_FALSE(kernel_cache_load("source version 2"));
  EXPECT_EQ(kernel_cache_stats().rejected - before.rejected, 1);
}

TEST(KernelCache, GarbageFileIsRejected) {
  CacheDir dir;
  fs::create_directories(dir.path());
  write_file(kernel_cache_path("k"), "not a cache entry at all");
  EXPECT_FALSE(kernel_cache_load("k"));
}

// An entry that is a link (to /dev/zero: read forever), a FIFO (an open that blocks) or a file with junk
// appended: rejected at once, removed (the link itself, not its target), rebuilt by the caller.
TEST(KernelCache, LinksFifosAndJunkAreRejectedWithoutReadingThem) {
  CacheDir dir;
  kernel_cache_store("k", "payload");  // creates the folder
  const fs::path file = kernel_cache_path("k");
  const auto rejected_before = kernel_cache_stats().rejected;

  fs::remove(file);
  fs::create_symlink("/dev/zero", file);
  EXPECT_FALSE(kernel_cache_load("k"));
  EXPECT_FALSE(fs::exists(fs::symlink_status(file)));
  EXPECT_TRUE(fs::exists("/dev/zero"));

  ASSERT_EQ(::mkfifo(file.c_str(), 0600), 0);
  EXPECT_FALSE(kernel_cache_load("k"));  // returns at once: nothing ever writes into the FIFO
  EXPECT_FALSE(fs::exists(fs::symlink_status(file)));

  kernel_cache_store("k", "payload");
  write_file(file, read_file(file) + "junk");
  EXPECT_FALSE(kernel_cache_load("k"));
  EXPECT_EQ(kernel_cache_stats().rejected, rejected_before + 3);
  kernel_cache_store("k", "payload");
  EXPECT_EQ(kernel_cache_load("k").value_or(""), "payload");
}

TEST(KernelCache, OffDisablesIt) {
  CacheDir dir;
  ::setenv("ACCELERA_KERNEL_CACHE", "off", 1);
  accelera::reload_config();
  kernel_cache_store("k", "payload");
  EXPECT_FALSE(kernel_cache_load("k"));
  EXPECT_FALSE(fs::exists(dir.path()));
}

TEST(KernelManagerTest, CpuHasNoRuntimeCompiler) {
  EXPECT_THROW(accelera::device_interface(Device::cpu()).compile_kernel(0, "k", "", ""), accelera::NotSupportedError);
  KernelManager manager;
  EXPECT_THROW(manager.compile_kernel("k", "", "metal"), accelera::ValueError);
  EXPECT_THROW(manager.compile_kernel("", "", "opencl"), accelera::ValueError);
  EXPECT_THROW(manager.get("never compiled"), accelera::ValueError);
}

bool has_opencl() {
  for (const auto& info : accelera::devices()) {
    if (info.device.kind == accelera::DeviceKind::opencl) return true;
  }
  return false;
}

constexpr const char* kAxpySource = R"(
__kernel void axpy(__global float* y, __global const float* x, float a, long n) {
  const long i = get_global_id(0);
  if (i < n) y[i] += a * x[i];
}
)";

class OpenClKernelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!has_opencl()) GTEST_SKIP() << "no OpenCL device: " << "the OpenCL user-kernel tests need one";
  }
};

TEST_F(OpenClKernelTest, CompilesLaunchesAndCachesAKernel) {
  CacheDir dir;
  const Device device{accelera::DeviceKind::opencl, 0};
  std::mt19937_64 rng(3);
  constexpr std::int64_t n = 1009;
  Tensor x = random_tensor(Shape({n}), DType::f32, rng);
  Tensor y = random_tensor(Shape({n}), DType::f32, rng);
  KernelManager manager(device);
  const auto before = kernel_cache_stats();
  auto kernel = manager.compile_kernel("axpy", kAxpySource, "opencl");
  EXPECT_EQ(kernel_cache_stats().stores - before.stores, 1);
  EXPECT_EQ(kernel->name(), "axpy");
  EXPECT_EQ(kernel->device(), device);
  EXPECT_EQ(manager.compiled_kernels(), std::vector<std::string>{"axpy"});

  Tensor dy = y.to(device);
  const std::vector<KernelArg> args = {dy, x.to(device), 2.5f, std::int64_t{n}};
  manager.launch("axpy", args, LaunchSize{n}, LaunchSize{64});
  Tensor result = dy.to(Device::cpu());
  for (std::int64_t i = 0; i < n; ++i) {
    const double ref = static_cast<double>(get(y, {i})) + 2.5 * get(x, {i});
    ASSERT_NEAR(get(result, {i}), ref, 1e-5) << "at " << i;
  }

  // A second build of the same source comes from the disk cache; a changed source does not.
  const auto mid = kernel_cache_stats();
  manager.compile_kernel("axpy", kAxpySource, "opencl");
  EXPECT_EQ(kernel_cache_stats().hits - mid.hits, 1);
  manager.compile_kernel("axpy", std::string(kAxpySource) + "\n// changed\n", "opencl");
  EXPECT_EQ(kernel_cache_stats().hits - mid.hits, 1);
  EXPECT_EQ(kernel_cache_stats().stores - mid.stores, 1);
}

TEST_F(OpenClKernelTest, CorruptCacheEntryIsRebuilt) {
  CacheDir dir;
  KernelManager manager;
  manager.compile_kernel("axpy", kAxpySource, "opencl");
  ASSERT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator{}), 1);
  const fs::path entry = fs::directory_iterator(dir.path())->path();
  std::string bytes = read_file(entry);
  bytes[bytes.size() / 2] ^= 0x40;
  write_file(entry, bytes);
  const auto before = kernel_cache_stats();
  auto kernel = manager.compile_kernel("axpy", kAxpySource, "opencl");
  EXPECT_EQ(kernel_cache_stats().rejected - before.rejected, 1);
  EXPECT_EQ(kernel_cache_stats().stores - before.stores, 1);
  // The rebuilt kernel works.
  Tensor y = accelera::full(Shape({5}), 1.0, DType::f32, kernel->device());
  Tensor x = accelera::full(Shape({5}), 2.0, DType::f32, kernel->device());
  const std::vector<KernelArg> args = {y, x, 3.0f, std::int64_t{5}};
  kernel->launch(args, LaunchSize{5}, LaunchSize{0, 0, 0});
  EXPECT_EQ(values_of(y.to(Device::cpu())), std::vector<double>(5, 7.0));
}

TEST_F(OpenClKernelTest, CompileErrorCarriesTheBuildLog) {
  KernelManager manager;
  try {
    manager.compile_kernel("broken", "__kernel void broken(__global float* y) { y[0] = undeclared_name; }",
                           "opencl");
    FAIL() << "a kernel with a compile error was accepted";
  } catch (const accelera::ValueError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("undeclared_name"), std::string::npos) << what;
    EXPECT_NE(what.find("CL_BUILD_PROGRAM_FAILURE"), std::string::npos) << what;
  }
  EXPECT_TRUE(manager.compiled_kernels().empty());
  EXPECT_THROW(manager.compile_kernel("missing", kAxpySource, "opencl"), accelera::ValueError);
}

TEST_F(OpenClKernelTest, BadLaunchArgumentsAreTypedErrors) {
  KernelManager manager;
  auto kernel = manager.compile_kernel("axpy", kAxpySource, "opencl");
  const Device device = kernel->device();
  Tensor y = accelera::zeros(Shape({4, 4}), DType::f32, device);
  Tensor x = accelera::zeros(Shape({16}), DType::f32, device);
  const std::vector<KernelArg> too_few = {y, x};
  EXPECT_THROW(kernel->launch(too_few, LaunchSize{16}, LaunchSize{0, 0, 0}), accelera::ValueError);
  const std::vector<KernelArg> wrong_scalar = {y, x, 2.0, std::int64_t{16}};  // double where float is declared
  EXPECT_THROW(kernel->launch(wrong_scalar, LaunchSize{16}, LaunchSize{0, 0, 0}), accelera::ValueError);
  const std::vector<KernelArg> strided = {y.T(), x, 2.0f, std::int64_t{16}};
  EXPECT_THROW(kernel->launch(strided, LaunchSize{16}, LaunchSize{0, 0, 0}), accelera::ValueError);
  const std::vector<KernelArg> host = {accelera::zeros(Shape({16}), DType::f32), x, 2.0f, std::int64_t{16}};
  EXPECT_THROW(kernel->launch(host, LaunchSize{16}, LaunchSize{0, 0, 0}), accelera::DeviceError);
  const std::vector<KernelArg> ok = {y, x, 2.0f, std::int64_t{16}};
  EXPECT_THROW(kernel->launch(ok, LaunchSize{0}, LaunchSize{0, 0, 0}), accelera::ValueError);
}

TEST_F(OpenClKernelTest, ViewArgumentsStartAtTheirFirstElement) {
  KernelManager manager;
  auto kernel = manager.compile_kernel("axpy", kAxpySource, "opencl");
  const Device device = kernel->device();
  // A row of a matrix whose byte offset is a multiple of the device's base alignment (4096 bytes covers it).
  Tensor y = accelera::zeros(Shape({3, 1024}), DType::f32, device);
  Tensor x = accelera::full(Shape({1024}), 1.0, DType::f32, device);
  const std::vector<KernelArg> args = {y.select(0, 1), x, 1.0f, std::int64_t{1024}};
  kernel->launch(args, LaunchSize{1024}, LaunchSize{0, 0, 0});
  const auto values = values_of(y.to(Device::cpu()));
  EXPECT_EQ(std::count(values.begin(), values.end(), 1.0), 1024);
  EXPECT_EQ(values[1024], 1.0);
  EXPECT_EQ(values[1023], 0.0);
}

}  // namespace
}  // namespace acc_test
