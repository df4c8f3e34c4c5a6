#pragma once
// How backends enter the registry: each backend folder has one register.cpp that defines its
// register_<name>_backend(); register_all.cpp calls those compiled into this build.
#include <functional>
#include <memory>
#include <string>

#include "accelera/backend.hpp"

namespace accelera::detail {

struct BackendRegistration {
  void* registry = nullptr;
  // A backend with no device is recorded as absent with "no <kind> device found".
  void add(std::unique_ptr<Backend> backend);
  void absent(DeviceKind kind, std::string reason);
};

void register_builtin_backends(BackendRegistration& registration);
void for_each_compiled_backend(const std::function<void(DeviceKind)>& visit);

void register_cpu_backend(BackendRegistration& registration);
#ifdef ACCELERA_HAS_CUDA
void register_cuda_backend(BackendRegistration& registration);
#endif
#ifdef ACCELERA_HAS_OPENCL
void register_opencl_backend(BackendRegistration& registration);
#endif

}  // namespace accelera::detail
