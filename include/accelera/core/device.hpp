#pragma once
#include <string>
#include <string_view>
#include "accelera/core/export.hpp"

namespace accelera {

enum class DeviceKind { cpu, cuda, opencl };

ACC_API std::string_view device_kind_name(DeviceKind kind) noexcept;

// A device named by kind and index: "cpu", "cuda", "cuda:1", "opencl:0".
struct ACC_API Device {
  DeviceKind kind = DeviceKind::cpu;
  int index = 0;

  // Throws ValueError for anything that is not "<kind>" or "<kind>:<index>".
  static Device parse(std::string_view text);
  static Device cpu() noexcept { return {}; }
  std::string str() const;
  bool is_cpu() const noexcept { return kind == DeviceKind::cpu; }

  friend bool operator==(const Device&, const Device&) = default;
};

}  // namespace accelera
