#include "backends/register.hpp"

namespace accelera::detail {

void register_builtin_backends(BackendRegistration& registration) {
  register_cpu_backend(registration);
#ifdef ACCELERA_HAS_CUDA
  register_cuda_backend(registration);
#else
  registration.absent(DeviceKind::cuda, "built without CUDA support");
#endif
#ifdef ACCELERA_HAS_OPENCL
  register_opencl_backend(registration);
#else
  registration.absent(DeviceKind::opencl, "built without OpenCL support");
#endif
}

void for_each_compiled_backend(const std::function<void(DeviceKind)>& visit) {
  visit(DeviceKind::cpu);
#ifdef ACCELERA_HAS_CUDA
  visit(DeviceKind::cuda);
#endif
#ifdef ACCELERA_HAS_OPENCL
  visit(DeviceKind::opencl);
#endif
}

}  // namespace accelera::detail
