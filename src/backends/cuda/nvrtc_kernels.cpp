// User kernels compiled at run time by NVRTC (KernelManager::compile_kernel(name, source, "cuda")).
// The kernel named `name` is found through an NVRTC name expression, so it may be extern "C" or a C++
// function (its mangled name is looked up). Code is built for the device's architecture (a cubin), or as
// PTX for the newest architecture NVRTC knows when the device is newer (the driver compiles it on load),
// and cached on disk (Note [Kernel cache]) under a key of architecture, NVRTC version, options, name and
// source. Modules load through the runtime's library API (cudaLibraryLoadData), so libaccelera needs no
// link to the driver library and still loads where no driver is installed.
#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>
#include <sstream>

#include "backends/cuda/cuda_interface.hpp"
#include "core/kernel_cache.hpp"
#include "core/log.hpp"

namespace accelera::cuda {

namespace {

class Program {
 public:
  Program(const std::string& source, const std::string& name) {
    ACC_CUDA_CHECK(nvrtcCreateProgram(&m_program, source.c_str(), (name + ".cu").c_str(), 0, nullptr, nullptr),
                   "creating an NVRTC program for kernel '" + name + "'");
  }
  ~Program() { nvrtcDestroyProgram(&m_program); }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  nvrtcProgram get() const noexcept { return m_program; }

  std::string log() const {
    std::size_t size = 0;
    if (nvrtcGetProgramLogSize(m_program, &size) != NVRTC_SUCCESS || size == 0) return {};
    std::string text(size, '\0');
    if (nvrtcGetProgramLog(m_program, text.data()) != NVRTC_SUCCESS) return {};
    while (!text.empty() && text.back() == '\0') text.pop_back();
    return text;
  }

 private:
  nvrtcProgram m_program = nullptr;
};

struct Target {
  std::string option;  // --gpu-architecture=sm_90 or compute_90
  bool cubin = true;
};

Target target_for(const CudaDevice& d) {
  int count = 0;
  ACC_CUDA_CHECK(nvrtcGetNumSupportedArchs(&count), "listing NVRTC architectures");
  std::vector<int> archs(static_cast<std::size_t>(count));
  ACC_CUDA_CHECK(nvrtcGetSupportedArchs(archs.data()), "listing NVRTC architectures");
  const int cc = d.cc_major * 10 + d.cc_minor;
  if (std::ranges::find(archs, cc) != archs.end()) return {fmt::format("--gpu-architecture=sm_{}", cc), true};
  int best = 0;
  for (int a : archs) best = (a <= cc && a > best) ? a : best;
  ACC_CHECK(best > 0, NotSupportedError, "NVRTC cannot build for {} (compute capability {}.{})", d.name, d.cc_major,
            d.cc_minor);
  return {fmt::format("--gpu-architecture=compute_{}", best), false};
}

std::vector<std::string> split_options(const std::string& options) {
  std::istringstream in(options);
  std::vector<std::string> out;
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

struct Built {
  std::string lowered_name;
  std::string image;  // cubin, or NUL-terminated PTX
};

Built build(const CudaDevice& d, const Target& target, const std::string& name, const std::string& source,
            const std::string& options) {
  Program program(source, name);
  // The address of the kernel: valid for extern "C" functions and C++ names (templates instances too).
  const std::string expression = "&" + name;
  ACC_CUDA_CHECK(nvrtcAddNameExpression(program.get(), expression.c_str()), "naming kernel '" + name + "'");
  std::vector<std::string> words = split_options(options);
  words.push_back(target.option);
  const bool has_std = std::ranges::any_of(words, [](const std::string& w) { return w.find("-std") != std::string::npos; });
  if (!has_std) words.emplace_back("--std=c++17");
  std::vector<const char*> argv;
  for (const auto& w : words) argv.push_back(w.c_str());
  const nvrtcResult status = nvrtcCompileProgram(program.get(), static_cast<int>(argv.size()), argv.data());
  if (status == NVRTC_ERROR_COMPILATION || status == NVRTC_ERROR_INVALID_OPTION ||
      status == NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID) {
    throw ValueError(fmt::format("compiling CUDA kernel '{}' for cuda:{} failed ({}) with options '{}':\n{}", name,
                                 d.index, nvrtcGetErrorString(status), fmt::join(words, " "), program.log()));
  }
  ACC_CUDA_CHECK(status, "compiling kernel '" + name + "'");
  const char* lowered = nullptr;
  const nvrtcResult found = nvrtcGetLoweredName(program.get(), expression.c_str(), &lowered);
  ACC_CHECK(found == NVRTC_SUCCESS, ValueError, "kernel '{}' is not a __global__ function of its source ({})", name,
            nvrtcGetErrorString(found));
  Built built{lowered, {}};
  std::size_t size = 0;
  if (target.cubin) {
    ACC_CUDA_CHECK(nvrtcGetCUBINSize(program.get(), &size), "reading a cubin");
    built.image.resize(size);
    ACC_CUDA_CHECK(nvrtcGetCUBIN(program.get(), built.image.data()), "reading a cubin");
  } else {
    ACC_CUDA_CHECK(nvrtcGetPTXSize(program.get(), &size), "reading PTX");  // includes the final NUL
    built.image.resize(size);
    ACC_CUDA_CHECK(nvrtcGetPTX(program.get(), built.image.data()), "reading PTX");
  }
  return built;
}

// Its module stays loaded until every launch of it has run: an event recorded after each launch is waited
// for before cudaLibraryUnload (unloading code that queued launches still need is undefined behaviour).
class NvrtcKernel final : public CompiledKernel {
 public:
  NvrtcKernel(std::string name, int index, const Built& built) : m_name(std::move(name)), m_index(index) {
    DeviceGuard guard(index);
    ACC_CUDA_CHECK(cudaEventCreateWithFlags(&m_last_launch, cudaEventDisableTiming),
                   "creating the launch event of kernel '" + m_name + "'");
    cudaError_t status =
        cudaLibraryLoadData(&m_library, built.image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
    if (status == cudaSuccess) status = cudaLibraryGetKernel(&m_kernel, m_library, built.lowered_name.c_str());
    if (status != cudaSuccess) {
      release();  // no launch yet: nothing to wait for
      ACC_CUDA_CHECK(status, "loading kernel '" + m_name + "' from its module");
    }
    // Parameter sizes, to check every launch's arguments: the query fails past the last parameter.
    for (std::size_t i = 0; i < 4096; ++i) {
      std::size_t offset = 0, size = 0;
      if (clear_error(cudaFuncGetParamInfo(reinterpret_cast<const void*>(m_kernel), i, &offset, &size)) !=
          cudaSuccess) {
        break;
      }
      m_param_sizes.push_back(size);
    }
  }
  ~NvrtcKernel() override {
    // An event never recorded counts as complete, so a kernel never launched does not wait.
    log_failure(cudaEventSynchronize(m_last_launch), "waiting for the last launch of a user kernel");
    release();
  }
  NvrtcKernel(const NvrtcKernel&) = delete;
  NvrtcKernel& operator=(const NvrtcKernel&) = delete;

  const std::string& name() const noexcept override { return m_name; }
  Device device() const noexcept override { return Device{DeviceKind::cuda, m_index}; }
  void launch(std::span<const KernelArg> args, LaunchSize global, LaunchSize local) override;

 private:
  void release() noexcept {
    if (m_library != nullptr) log_failure(cudaLibraryUnload(m_library), "unloading a user kernel's module");
    log_failure(cudaEventDestroy(m_last_launch), "cudaEventDestroy");
  }

  std::string m_name;
  int m_index;
  cudaLibrary_t m_library = nullptr;
  cudaKernel_t m_kernel = nullptr;
  std::vector<std::size_t> m_param_sizes;
  std::mutex m_launch_mutex;  // a launch and its event record as one step: the event follows every launch
  cudaEvent_t m_last_launch = nullptr;
};


std::string arg_type(const KernelArg& arg) {
  return std::visit(
      [](const auto& v) -> std::string {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, Tensor>) return "tensor (a device pointer)";
        else if constexpr (std::is_same_v<V, std::int32_t>) return "int32";
        else if constexpr (std::is_same_v<V, std::int64_t>) return "int64";
        else if constexpr (std::is_same_v<V, float>) return "float32";
        else return "float64";
      },
      arg);
}

void NvrtcKernel::launch(std::span<const KernelArg> args, LaunchSize global, LaunchSize local) {
  ACC_CHECK(args.size() == m_param_sizes.size(), ValueError, "kernel '{}' takes {} arguments, {} given", m_name,
            m_param_sizes.size(), args.size());
  const Device dev = device();
  std::vector<std::array<std::byte, 8>> values(args.size());
  std::vector<void*> pointers(args.size());
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::size_t size = std::visit(
        [&](const auto& v) -> std::size_t {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, Tensor>) {
            ACC_CHECK(v.defined(), ValueError, "kernel '{}': argument {} is an undefined tensor", m_name, i);
            ACC_CHECK(v.device() == dev, ValueError, "kernel '{}': argument {} is on {}, the kernel runs on {}", m_name,
                      i, v.device().str(), dev.str());
            ACC_CHECK(v.is_contiguous(), ValueError, "kernel '{}': argument {} is not contiguous (use .contiguous())",
                      m_name, i);
            void* ptr = v.data_ptr();
            std::memcpy(values[i].data(), &ptr, sizeof(ptr));
            return sizeof(ptr);
          } else {
            std::memcpy(values[i].data(), &v, sizeof(V));
            return sizeof(V);
          }
        },
        args[i]);
    ACC_CHECK(size == m_param_sizes[i], ValueError,
              "kernel '{}': argument {} is a {} ({} bytes) but the kernel's parameter takes {} bytes", m_name, i,
              arg_type(args[i]), size, m_param_sizes[i]);
    pointers[i] = values[i].data();
  }
  // A local size of all zeros lets the backend choose (see accelera/kernel.hpp): 256 threads in x.
  const bool chosen = local.x == 0 && local.y == 0 && local.z == 0;
  const std::int64_t g[3] = {global.x, global.y, global.z};
  const std::int64_t l[3] = {chosen ? 256 : local.x, chosen ? 1 : local.y, chosen ? 1 : local.z};
  std::int64_t grid[3];
  for (int i = 0; i < 3; ++i) {
    ACC_CHECK(g[i] >= 0 && l[i] >= 1, ValueError, "kernel '{}': global sizes must be >= 0 and local sizes >= 1, got "
              "global ({}, {}, {}) local ({}, {}, {})", m_name, g[0], g[1], g[2], l[0], l[1], l[2]);
    grid[i] = (g[i] + l[i] - 1) / l[i];
  }
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0) return;
  ACC_CHECK(l[0] * l[1] * l[2] <= 1024 && l[0] <= 1024 && l[1] <= 1024 && l[2] <= 64, ValueError,
            "kernel '{}': a block of ({}, {}, {}) threads exceeds CUDA's limits (1024 threads, z <= 64)", m_name, l[0],
            l[1], l[2]);
  ACC_CHECK(grid[0] <= 0x7fffffff && grid[1] <= 65535 && grid[2] <= 65535, ValueError,
            "kernel '{}': a grid of ({}, {}, {}) blocks exceeds CUDA's limits", m_name, grid[0], grid[1], grid[2]);
  const dim3 blocks(static_cast<unsigned>(grid[0]), static_cast<unsigned>(grid[1]), static_cast<unsigned>(grid[2]));
  const dim3 threads(static_cast<unsigned>(l[0]), static_cast<unsigned>(l[1]), static_cast<unsigned>(l[2]));
  const CudaDevice& d = cuda_device(dev);
  DeviceGuard guard(m_index);
  std::lock_guard lock(m_launch_mutex);
  ACC_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(m_kernel), blocks, threads, pointers.data(), 0,
                                  d.compute()),
                 "launching kernel '" + m_name + "'");
  ACC_CUDA_CHECK(cudaEventRecord(m_last_launch, d.compute()), "recording the launch of kernel '" + m_name + "'");
}

}  // namespace

std::shared_ptr<CompiledKernel> CudaInterface::compile_kernel(int index, const std::string& name,
                                                            const std::string& source, const std::string& options) {
  const CudaDevice& d = ready(index);
  const Target target = target_for(d);
  int major = 0, minor = 0;
  ACC_CUDA_CHECK(nvrtcVersion(&major, &minor), "querying the NVRTC version");
  const std::string key = fmt::format("cuda nvrtc {}.{}\n{}\n{}\n{}\n{}", major, minor, target.option, options, name,
                                      source);
  Built built;
  if (auto cached = detail::kernel_cache_load(key); cached && cached->find('\n') != std::string::npos) {
    const auto newline = cached->find('\n');
    built = {cached->substr(0, newline), cached->substr(newline + 1)};
    ACC_LOG_DEBUG("kernel '{}' for cuda:{} loaded from the kernel cache", name, index);
  } else {
    built = build(d, target, name, source, options);
    detail::kernel_cache_store(key, built.lowered_name + "\n" + built.image);
  }
  return std::make_shared<NvrtcKernel>(name, index, built);
}

}  // namespace accelera::cuda
