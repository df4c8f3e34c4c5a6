#include "accelera/core/device.hpp"

#include <charconv>

#include "accelera/core/error.hpp"

namespace accelera {

std::string_view device_kind_name(DeviceKind kind) noexcept {
  switch (kind) {
    case DeviceKind::cpu: return "cpu";
    case DeviceKind::cuda: return "cuda";
    case DeviceKind::opencl: return "opencl";
  }
  return "unknown";
}

Device Device::parse(std::string_view text) {
  const auto bad = [&]() {
    return ValueError(fmt::format(
        "invalid device string '{}': expected 'cpu', 'cuda', 'cuda:N', 'opencl' or 'opencl:N' with N >= 0", text));
  };
  const auto colon = text.find(':');
  const std::string_view kind_text = text.substr(0, colon);
  Device device;
  if (kind_text == "cpu") {
    device.kind = DeviceKind::cpu;
  } else if (kind_text == "cuda") {
    device.kind = DeviceKind::cuda;
  } else if (kind_text == "opencl") {
    device.kind = DeviceKind::opencl;
  } else {
    throw bad();
  }
  if (colon == std::string_view::npos) return device;
  const std::string_view index_text = text.substr(colon + 1);
  if (index_text.empty() || index_text.size() > 6) throw bad();
  const auto [end, ec] = std::from_chars(index_text.data(), index_text.data() + index_text.size(), device.index);
  if (ec != std::errc() || end != index_text.data() + index_text.size() || device.index < 0) throw bad();
  return device;
}

std::string Device::str() const {
  if (kind == DeviceKind::cpu && index == 0) return "cpu";
  return fmt::format("{}:{}", device_kind_name(kind), index);
}

}  // namespace accelera
