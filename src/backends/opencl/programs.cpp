#include "backends/opencl/programs.hpp"

#include <vector>

#include "core/log.hpp"

namespace accelera::opencl {

namespace {

std::string build_log(cl_program program, cl_device_id device) {
  std::size_t size = 0;
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
  std::string log(size, '\0');
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  while (!log.empty() && log.back() == '\0') log.pop_back();
  return log;
}

cl_program build(ClDevice& device, std::string_view file, const std::string& options) {
  const std::string source = std::string(embedded_source("common")) + "\n" + std::string(embedded_source(file));
  const char* text = source.c_str();
  const std::size_t length = source.size();
  cl_int status = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(device.context, 1, &text, &length, &status);
  ACC_CL_CHECK(status, fmt::format("creating program {}.cl", file));
  const std::string all_options = options + " -cl-std=CL1.2" + (device.fp64 ? " -DACC_FP64" : "");
  ACC_LOG_DEBUG("building {}.cl for {} with {}", file, device.name, all_options);
  status = clBuildProgram(program, 1, &device.id, all_options.c_str(), nullptr, nullptr);
  if (status != CL_SUCCESS) {
    const std::string log = build_log(program, device.id);
    clReleaseProgram(program);
    throw InternalError(fmt::format("building {}.cl for {} failed ({}) with options '{}':\n{}", file, device.name,
                                    status_name(status), all_options, log));
  }
  return program;
}

}  // namespace

Kernel make_kernel(ClDevice& device, std::string_view file, const std::string& options) {
  const std::string key = std::string(file) + "|" + options;
  cl_program program = nullptr;
  {
    std::lock_guard lock(device.programs_mutex);
    auto it = device.programs.find(key);
    if (it == device.programs.end()) it = device.programs.emplace(key, build(device, file, options)).first;
    program = it->second;
  }
  cl_int status = CL_SUCCESS;
  // Every kernel file defines one kernel named after the file.
  cl_kernel kernel = clCreateKernel(program, std::string(file).c_str(), &status);
  ACC_CL_CHECK(status, fmt::format("creating kernel {}", file));
  return Kernel(kernel);
}

std::string element_options(const ClDevice& device, DType dtype) {
  switch (dtype) {
    case DType::f32: return "-DT=float";
    case DType::f64:
      ACC_CHECK(device.fp64, DTypeError, "{} has no float64 support (cl_khr_fp64)", device.name);
      return "-DT=double";
    case DType::i32: return "-DT=int -DUT=uint -DACC_INTEGER";
    case DType::i64: return "-DT=long -DUT=ulong -DACC_INTEGER";
    default: break;
  }
  throw DTypeError(fmt::format("{} is not computed on OpenCL devices", dtype_name(dtype)));
}

void launch(ClDevice& device, const Kernel& kernel, std::size_t global, std::size_t local, const char* what) {
  const std::size_t rounded = (global + local - 1) / local * local;
  ACC_CL_CHECK(clEnqueueNDRangeKernel(device.compute(), kernel.get(), 1, nullptr, &rounded, &local, 0, nullptr,
                                      nullptr),
               what);
}

}  // namespace accelera::opencl
