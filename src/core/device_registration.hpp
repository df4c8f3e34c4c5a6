#pragma once
// How a compiled backend enters the device registry: its device folder registers a factory when the
// library loads (ACC_REGISTER_DEVICE_KIND), and the registry calls it on first use, so that loading the
// library never initialises a GPU runtime. A kind with no factory is "built without X support".
#include <memory>
#include <string>

#include "accelera/core/device_interface.hpp"

namespace accelera::detail {

// Returns the kind's interface, or nullptr with `absent_reason` set when the kind cannot run here (no
// driver, no device). An interface with no device is recorded as "no <kind> device found".
using DeviceInterfaceFactory = std::unique_ptr<DeviceInterface> (*)(std::string& absent_reason);

bool register_device_kind(DeviceKind kind, DeviceInterfaceFactory factory);

}  // namespace accelera::detail

// ACC_REGISTER_DEVICE_KIND(DeviceKind::cuda, &make_cuda_interface);
#define ACC_REGISTER_DEVICE_KIND(kind, factory)                                        \
  [[maybe_unused]] static const bool acc_device_kind_registered_ = \
      ::accelera::detail::register_device_kind(kind, factory)
