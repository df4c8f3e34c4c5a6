#include <algorithm>

#include "accelera/core/registry.hpp"
#include "accelera/core/error.hpp"
#include "accelera/kernel.hpp"

namespace accelera {

namespace {

DeviceKind kind_of_backend(std::string_view backend) {
  if (backend == "opencl") return DeviceKind::opencl;
  if (backend == "cuda") return DeviceKind::cuda;
  throw ValueError(fmt::format("compile_kernel: backend must be \"opencl\" or \"cuda\", got \"{}\"", backend));
}

}  // namespace

KernelManager::KernelManager(std::optional<Device> device) : m_device(device) {}

std::shared_ptr<CompiledKernel> KernelManager::compile_kernel(const std::string& name, const std::string& source,
                                                              std::string_view backend, const std::string& options) {
  ACC_CHECK(!name.empty(), ValueError, "compile_kernel: the kernel name is empty");
  const DeviceKind kind = kind_of_backend(backend);
  const Device device = (m_device && m_device->kind == kind) ? *m_device : Device{kind, 0};
  // device_interface says "built without X support" or "no X device found".
  std::shared_ptr<CompiledKernel> kernel =
      device_interface(device).compile_kernel(device.index, name, source, options);
  std::lock_guard lock(m_mutex);
  m_kernels[name] = kernel;
  return kernel;
}

std::shared_ptr<CompiledKernel> KernelManager::get(const std::string& name) const {
  std::lock_guard lock(m_mutex);
  auto it = m_kernels.find(name);
  ACC_CHECK(it != m_kernels.end(), ValueError, "no kernel named '{}' has been compiled by this KernelManager",
            name);
  return it->second;
}

void KernelManager::launch(const std::string& name, std::span<const KernelArg> args, LaunchSize global,
                           LaunchSize local) {
  get(name)->launch(args, global, local);
}

std::vector<std::string> KernelManager::compiled_kernels() const {
  std::lock_guard lock(m_mutex);
  std::vector<std::string> names;
  for (const auto& [name, kernel] : m_kernels) names.push_back(name);
  return names;
}

}  // namespace accelera
