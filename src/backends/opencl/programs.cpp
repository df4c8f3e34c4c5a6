#include "backends/opencl/programs.hpp"

#include <vector>

#include "core/kernel_cache.hpp"
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

// The device's binary of a built program, or empty when the driver offers none.
std::string program_binary(cl_program program) {
  std::size_t size = 0;
  ACC_CL_CHECK(clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr),
               "querying a program binary size");
  std::string binary(size, '\0');
  unsigned char* data = reinterpret_cast<unsigned char*>(binary.data());
  if (size > 0) {
    ACC_CL_CHECK(clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof(data), &data, nullptr),
                 "reading a program binary");
  }
  return binary;
}

// A program from a cached binary, or nullptr when the driver rejects it (a stale entry: it is rebuilt).
cl_program program_from_binary(ClDevice& device, const std::string& binary, const std::string& options) {
  const auto* data = reinterpret_cast<const unsigned char*>(binary.data());
  const std::size_t size = binary.size();
  cl_int binary_status = CL_SUCCESS;
  cl_int status = CL_SUCCESS;
  cl_program program = clCreateProgramWithBinary(device.context, 1, &device.id, &size, &data, &binary_status, &status);
  if (status == CL_SUCCESS && binary_status == CL_SUCCESS) {
    status = clBuildProgram(program, 1, &device.id, options.c_str(), nullptr, nullptr);
    if (status == CL_SUCCESS) return program;
  }
  if (program != nullptr) clReleaseProgram(program);
  return nullptr;
}

}  // namespace

std::string program_cache_key(const ClDevice& device, const std::string& source, const std::string& options) {
  return fmt::format("opencl\n{}\n{}\n{}\n{}\n{}\n{}", device.platform_name, device.name, device.driver_version,
                     device.device_version, options, source);
}

cl_program build_program(ClDevice& device, const std::string& source, const std::string& options,
                         const std::string& what, BuildFailure on_failure) {
  const std::string key = program_cache_key(device, source, options);
  if (auto binary = detail::kernel_cache_load(key)) {
    if (cl_program program = program_from_binary(device, *binary, options)) {
      finish_queues_at_exit();
      return program;
    }
    detail::kernel_cache_discard(key, fmt::format("rejected by {}", device.name));
  }
  const char* text = source.c_str();
  const std::size_t length = source.size();
  cl_int status = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(device.context, 1, &text, &length, &status);
  ACC_CL_CHECK(status, "creating program " + what);
  ACC_LOG_DEBUG("building {} for {} with '{}'", what, device.name, options);
  status = clBuildProgram(program, 1, &device.id, options.c_str(), nullptr, nullptr);
  if (status != CL_SUCCESS) {
    const std::string log = build_log(program, device.id);
    clReleaseProgram(program);
    const std::string message = fmt::format("building {} for {} failed ({}) with options '{}'; build log:\n{}", what,
                                            device.name, status_name(status), options, log);
    if (on_failure == BuildFailure::user_error) throw ValueError(message);
    throw InternalError(message);
  }
  finish_queues_at_exit();
  const std::string binary = program_binary(program);
  if (!binary.empty()) detail::kernel_cache_store(key, binary);
  return program;
}

namespace {

cl_program build_embedded(ClDevice& device, std::string_view file, const std::string& options,
                          std::string_view prelude) {
  const std::string source = std::string(embedded_source("common")) + "\n" + std::string(prelude) + "\n" +
                             std::string(embedded_source(file));
  const std::string all_options = options + " -cl-std=CL1.2" + (device.fp64 ? " -DACC_FP64" : "");
  return build_program(device, source, all_options, std::string(file) + ".cl", BuildFailure::internal_error);
}

}  // namespace

Kernel make_kernel(ClDevice& device, std::string_view file, const std::string& options, std::string_view prelude) {
  // Programs are listed by this key (compiled_kernels): a prelude appears as its hash.
  const std::string key = std::string(file) + "|" + options +
                          (prelude.empty() ? "" : fmt::format("|prelude {:016x}", detail::fnv1a64(prelude)));
  cl_program program = nullptr;
  {
    std::lock_guard lock(device.programs_mutex);
    auto it = device.programs.find(key);
    if (it == device.programs.end()) it = device.programs.emplace(key, build_embedded(device, file, options, prelude)).first;
    program = it->second;
  }
  cl_int status = CL_SUCCESS;
  // Every kernel file defines one kernel named after the file.
  cl_kernel kernel = clCreateKernel(program, std::string(file).c_str(), &status);
  ACC_CL_CHECK(status, fmt::format("creating kernel {}", file));
  return Kernel(kernel);
}

const char* bits_type(std::size_t itemsize) {
  switch (itemsize) {
    case 1: return "uchar";
    case 2: return "ushort";
    case 4: return "uint";
    case 8: return "ulong";
    default: break;
  }
  ACC_ASSERT(false, "no OpenCL type moves {}-byte elements", itemsize);
}

std::string element_options(const ClDevice& device, DType dtype) {
  switch (dtype) {
    case DType::f32: return "-DT=float -DACC_F32";
    case DType::f64:
      ACC_CHECK(device.fp64, DTypeError, "{} has no float64 support (cl_khr_fp64)", device.name);
      return "-DT=double";
    case DType::i8: return "-DT=char -DUT=uint -DACC_INTEGER";
    case DType::i16: return "-DT=short -DUT=uint -DACC_INTEGER";
    case DType::i32: return "-DT=int -DUT=uint -DACC_INTEGER";
    case DType::i64: return "-DT=long -DUT=ulong -DACC_INTEGER";
    case DType::u8: return "-DT=uchar -DUT=uint -DACC_INTEGER -DACC_UNSIGNED";
    case DType::u16: return "-DT=ushort -DUT=uint -DACC_INTEGER -DACC_UNSIGNED";
    case DType::u32: return "-DT=uint -DUT=uint -DACC_INTEGER -DACC_UNSIGNED";
    case DType::u64: return "-DT=ulong -DUT=ulong -DACC_INTEGER -DACC_UNSIGNED";
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
