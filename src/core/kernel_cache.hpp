#pragma once
// Note [Kernel cache]
// Built kernels (OpenCL program binaries, CUDA cubins) are kept on disk under config().kernel_cache_dir
// (ACCELERA_KERNEL_CACHE; "off" disables it), one file per entry, named by a hash of the entry's key. The key
// is everything the binary depends on: device, driver and compiler versions, build options and the full
// source. A file holds a magic line, the whole key, the payload length and a checksum of the payload; a
// file whose key differs (a hash collision or stale entry), whose length or checksum is wrong (a torn or
// corrupt write) is reported as a miss, counted, removed and rebuilt by the caller. Entries are written to
// a temporary file and renamed into place, so concurrent processes never read a partial entry. A cache
// that cannot be written is logged and counted, never fatal: the kernel was built and is used.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "accelera/kernel.hpp"  // KernelCacheStats

namespace accelera::detail {

// The cache file that holds `key` (whether or not it exists); empty when the cache is off.
std::string kernel_cache_path(std::string_view key);
std::optional<std::string> kernel_cache_load(std::string_view key);
void kernel_cache_store(std::string_view key, std::string_view payload);
// Removes an entry that loaded fine but that the driver rejected (e.g. after a driver update that kept its
// version string); counted as rejected.
void kernel_cache_discard(std::string_view key, std::string_view why);
// 64-bit FNV-1a, used for file names and payload checksums.
std::uint64_t fnv1a64(std::string_view bytes) noexcept;

}  // namespace accelera::detail
