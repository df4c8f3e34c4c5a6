#include "backends/opencl/opencl_backend.hpp"
#include "backends/register.hpp"

namespace accelera::detail {

void register_opencl_backend(BackendRegistration& registration) {
  auto backend = std::make_unique<opencl::OpenClBackend>();
  if (backend->device_count() == 0) {
    registration.absent(DeviceKind::opencl, backend->absent_reason());
    return;
  }
  registration.add(std::move(backend));
}

}  // namespace accelera::detail
