#pragma once
// Every OpenCL status is checked: a failure becomes a typed error naming the call and the status.
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <string>

#include "accelera/core/error.hpp"

namespace accelera::opencl {

const char* status_name(cl_int status) noexcept;
[[noreturn]] void throw_cl_error(cl_int status, const char* call, const std::string& context);

}  // namespace accelera::opencl

// ACC_CL_CHECK(clCall(...), "what it was doing") — throws DeviceError (OutOfMemoryError for allocation
// failures) with the call, the status name and the context.
#define ACC_CL_CHECK(expr, context)                                                         \
  do {                                                                                      \
    const cl_int acc_cl_status_ = (expr);                                                   \
    if (acc_cl_status_ != CL_SUCCESS) [[unlikely]] {                                        \
      ::accelera::opencl::throw_cl_error(acc_cl_status_, #expr, (context));                 \
    }                                                                                       \
  } while (0)
