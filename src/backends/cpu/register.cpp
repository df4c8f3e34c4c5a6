#include "backends/cpu/cpu_backend.hpp"
#include "backends/register.hpp"

namespace accelera::detail {

void register_cpu_backend(BackendRegistration& registration) {
  registration.add(std::make_unique<cpu::CpuBackend>());
}

}  // namespace accelera::detail
