// The kernel table (Note [Kernel table]): a missing (op, device, dtype) names all three; a second
// registration of a pair, or a signature registered under a taken name, is refused.
#include "core/kernel_table.hpp"

#include <string>

#include "helpers.hpp"

namespace acc_test {
namespace {

using accelera::DeviceKind;
using accelera::DTypeSet;
using accelera::NotSupportedError;
using accelera::OpSchema;

int g_calls = 0;
void count_call(const Tensor&) { ++g_calls; }

// An op only this test registers: float64 on the CPU, nothing elsewhere.
inline constexpr OpSchema<void(const Tensor&)> test_op{"kernel_table_test_op"};
[[maybe_unused]] const bool registered =
    accelera::register_kernel(test_op, DeviceKind::cpu, DTypeSet{DType::f64}, &count_call);

std::string not_supported_message(const Device& device, DType dtype) {
  try {
    accelera::kernel_for(test_op, device, dtype);
  } catch (const NotSupportedError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no NotSupportedError for " << device.str() << " " << accelera::dtype_name(dtype);
  return {};
}

TEST(KernelTable, FindsARegisteredKernel) {
  g_calls = 0;
  accelera::kernel_for(test_op, Device::cpu(), DType::f64)(Tensor());
  EXPECT_EQ(g_calls, 1);
  EXPECT_TRUE(accelera::supports(Device::cpu(), "kernel_table_test_op", DType::f64));
  EXPECT_FALSE(accelera::supports(Device::cpu(), "kernel_table_test_op", DType::f32));
  EXPECT_FALSE(accelera::supports(Device::cpu(), "no_such_op", DType::f64));
}

TEST(KernelTable, AMissingDtypeNamesTheOpTheDeviceAndTheDtypes) {
  const std::string msg = not_supported_message(Device::cpu(), DType::f32);
  for (const char* part : {"kernel_table_test_op", "float32", "cpu", "float64"}) {
    EXPECT_NE(msg.find(part), std::string::npos) << part << " missing from: " << msg;
  }
}

TEST(KernelTable, AMissingDeviceKindNamesTheOpAndTheDevice) {
  for (const Device& device : all_devices()) {
    if (device.is_cpu()) continue;
    const std::string msg = not_supported_message(device, DType::f64);
    EXPECT_NE(msg.find("kernel_table_test_op"), std::string::npos) << msg;
    EXPECT_NE(msg.find(device.str()), std::string::npos) << msg;
  }
}

TEST(KernelTable, AnAbsentDeviceIsADeviceError) {
  for (DeviceKind kind : {DeviceKind::cuda, DeviceKind::opencl}) {
    if (accelera::backend_absent_reason(kind).empty()) continue;
    EXPECT_THROW(accelera::kernel_for(test_op, Device{kind, 0}, DType::f64), accelera::DeviceError);
  }
}

TEST(KernelTable, RefusesASecondRegistrationAndAForeignSignature) {
  EXPECT_THROW(accelera::register_kernel(test_op, DeviceKind::cpu, DTypeSet{DType::f32}, &count_call),
               accelera::InternalError);
  static constexpr OpSchema<void(const Tensor&, double)> impostor{"kernel_table_test_op"};
  EXPECT_THROW(accelera::register_kernel(impostor, DeviceKind::opencl, DTypeSet{DType::f64},
                                         +[](const Tensor&, double) {}),
               accelera::InternalError);
}

TEST(KernelTable, EveryRegisteredOpComputesFloat32OnTheCpuUnlessItIsIntegerOnly) {
  for (const auto& entry : accelera::op_table()) {
    if (entry.kind != DeviceKind::cpu || entry.op == "kernel_table_test_op") continue;
    const bool f32 = std::find(entry.dtypes.begin(), entry.dtypes.end(), DType::f32) != entry.dtypes.end();
    // Integer-only ops (the shifts, random_integers), and the bitwise and logical functions of integers and bools.
    const bool integer_or_bool_only = std::none_of(entry.dtypes.begin(), entry.dtypes.end(), accelera::is_floating);
    EXPECT_TRUE(f32 || integer_or_bool_only) << entry.op;
  }
}

}  // namespace
}  // namespace acc_test
