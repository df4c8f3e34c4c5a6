#pragma once
// Which ops run on which device kinds, in which dtypes: the kernel table as users see it (accelera info
// --ops, docs/ops.md). See Note [Kernel table] in src/core/kernel_table.hpp.
#include <string>
#include <string_view>
#include <vector>

#include "accelera/core/device.hpp"
#include "accelera/core/dtype.hpp"
#include "accelera/core/export.hpp"

namespace accelera {

struct OpKernelInfo {
  std::string op;
  DeviceKind kind = DeviceKind::cpu;
  std::vector<DType> dtypes;  // in DType order
};

// Every registered kernel, sorted by op name, then device kind.
ACC_API std::vector<OpKernelInfo> op_table();
// Whether `op` runs on `device` in `dtype` (false for an absent device).
ACC_API bool supports(const Device& device, std::string_view op, DType dtype);

}  // namespace accelera
