// `accelera info --ops`: which ops run on which device kinds, in which dtypes (the kernel table), as text
// or as the Markdown of docs/ops.md.
#include <fmt/format.h>

#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "accelera/accelera.hpp"
#include "commands.hpp"

namespace accelera::cli {

namespace {

constexpr DeviceKind kKinds[] = {DeviceKind::cpu, DeviceKind::opencl, DeviceKind::cuda};

std::string dtype_list(const std::vector<DType>& dtypes, const char* separator, bool short_names) {
  static constexpr std::pair<DType, const char*> kShort[] = {
      {DType::f32, "f32"}, {DType::f64, "f64"}, {DType::f16, "f16"}, {DType::bf16, "bf16"}, {DType::i8, "i8"},
      {DType::i16, "i16"}, {DType::i32, "i32"}, {DType::i64, "i64"}, {DType::u8, "u8"},     {DType::u16, "u16"},
      {DType::u32, "u32"}, {DType::u64, "u64"}, {DType::boolean, "bool"}};
  std::string out;
  for (DType d : dtypes) {
    std::string name(dtype_name(d));
    for (const auto& [dtype, abbreviation] : kShort) {
      if (short_names && dtype == d) name = abbreviation;
    }
    out += (out.empty() ? "" : separator) + name;
  }
  return out;
}

}  // namespace

int run_info_ops(bool markdown) {
  std::map<std::string, std::map<DeviceKind, std::vector<DType>>> ops;
  for (const OpKernelInfo& entry : op_table()) ops[entry.op][entry.kind] = entry.dtypes;
  if (markdown) {
    fmt::print("# Ops\n\n");
    fmt::print("Which ops run on which device kinds, in which dtypes: the kernel table of this build, printed by\n"
               "`accelera info --ops --markdown` (a build with every backend). An op a device does not run in a\n"
               "dtype raises `NotSupportedError` naming the op, the device and the dtype. float16 and bfloat16\n"
               "compute in float32 where they run.\n\n");
    fmt::print("| op | cpu | opencl | cuda |\n| --- | --- | --- | --- |\n");
    for (const auto& [op, kinds] : ops) {
      std::string line = "| `" + op + "` |";
      for (DeviceKind kind : kKinds) {
        const auto it = kinds.find(kind);
        line += " " + (it == kinds.end() ? std::string("-") : dtype_list(it->second, ", ", false)) + " |";
      }
      fmt::print("{}\n", line);
    }
    return 0;
  }
  fmt::print("ops and the dtypes they compute, per device kind (-: not implemented there):\n");
  fmt::print("  {:<22} {:<30} {:<30} {}\n", "op", "cpu", "opencl", "cuda");
  for (const auto& [op, kinds] : ops) {
    std::string line = fmt::format("  {:<22}", op);
    for (DeviceKind kind : kKinds) {
      const auto it = kinds.find(kind);
      line += fmt::format(" {:<30}", it == kinds.end() ? std::string("-") : dtype_list(it->second, " ", true));
    }
    line.erase(line.find_last_not_of(' ') + 1);
    fmt::print("{}\n", line);
  }
  for (DeviceKind kind : {DeviceKind::opencl, DeviceKind::cuda}) {
    if (const auto why = backend_absent_reason(kind); !why.empty()) fmt::print("  {}: {}\n", device_kind_name(kind), why);
  }
  return 0;
}

}  // namespace accelera::cli
