#include "backends/register.hpp"

namespace accelera::detail {

void register_builtin_backends(BackendRegistration& registration) {
  register_cpu_backend(registration);
  registration.absent(DeviceKind::cuda, "built without CUDA support");
  registration.absent(DeviceKind::opencl, "built without OpenCL support");
}

void for_each_compiled_backend(const std::function<void(DeviceKind)>& visit) { visit(DeviceKind::cpu); }

}  // namespace accelera::detail
