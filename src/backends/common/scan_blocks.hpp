#pragma once
// How the device backends split a scan (Note [Scans] in ops/scan.hpp): one work-item per (outer, block,
// inner column) runs sequentially along its block. Lines (outer * inner) that already fill the device scan
// whole; fewer lines are split into blocks, at most kMaxBlocks per line, so that the carry pass (one
// work-item per line, sequential over its blocks) stays short.
#include <algorithm>
#include <cstdint>

namespace accelera::backends {

struct ScanBlocks {
  std::int64_t blocks = 1;  // per line
  std::int64_t block = 0;   // rows per block (the last may be shorter)
};

inline ScanBlocks device_scan_blocks(std::int64_t outer, std::int64_t n, std::int64_t inner) {
  constexpr std::int64_t kTargetItems = 1 << 16, kMaxBlocks = 1024, kMinRows = 16;
  const std::int64_t lines = std::max<std::int64_t>(outer * inner, 1);
  ScanBlocks s{1, n};
  if (lines >= kTargetItems / 4 || n < 2 * kMinRows) return s;
  const std::int64_t wanted = std::min({(kTargetItems + lines - 1) / lines, n / kMinRows, kMaxBlocks});
  if (wanted <= 1) return s;
  s.block = (n + wanted - 1) / wanted;
  s.blocks = (n + s.block - 1) / s.block;
  return s;
}

}  // namespace accelera::backends
