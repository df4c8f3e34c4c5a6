#include "backends/cuda/cuda_backend.hpp"
#include "backends/register.hpp"

namespace accelera::detail {

void register_cuda_backend(BackendRegistration& registration) {
  std::unique_ptr<cuda::CudaBackend> backend;
  try {
    backend = std::make_unique<cuda::CudaBackend>();
  } catch (const Error& e) {
    // A device that answers the count but fails its first queries: absent, with the reason, not a crash.
    registration.absent(DeviceKind::cuda, fmt::format("CUDA devices could not be initialised: {}", e.what()));
    return;
  }
  if (backend->device_count() == 0) {
    registration.absent(DeviceKind::cuda, backend->absent_reason());
    return;
  }
  registration.add(std::move(backend));
}

}  // namespace accelera::detail
