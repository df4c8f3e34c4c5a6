#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include "accelera/core/device.hpp"
#include "accelera/core/export.hpp"

namespace accelera {

// Every environment variable Accelera reads, read and validated in one place on first use.
struct Config {
  double memory_threshold = 0.8;              // ACCELERA_MEMORY_THRESHOLD: fraction of a device's memory
  std::string log_level = "warn";             // ACCELERA_LOG_LEVEL: trace|debug|info|warn|error|critical|off
  std::int64_t min_chunk_size = 1;            // ACCELERA_MIN_CHUNK_SIZE
  std::int64_t max_chunk_size = 0;            // ACCELERA_MAX_CHUNK_SIZE (0: no limit)
  bool enable_prefetch = true;                // ACCELERA_ENABLE_PREFETCH
  std::optional<int> num_threads;             // ACCELERA_NUM_THREADS (default: OpenMP's choice)
  std::string kernel_cache_dir;               // ACCELERA_KERNEL_CACHE (default: ~/.cache/accelera/kernels)
  bool allow_tf32 = false;                    // ACCELERA_ALLOW_TF32 (see allow_tf32())
  std::optional<Device> device;               // ACCELERA_DEVICE: default_device() ("auto" or unset: the best)
};

// Throws ValueError naming the variable when one holds a malformed value.
ACC_API const Config& config();
// Re-reads the environment (tests and long-lived processes that change it).
ACC_API void reload_config();

// Note [TF32]: on NVIDIA GPUs from Ampere on, float32 matmul may use TF32 tensor cores: inputs rounded to a
// 10-bit mantissa (about 1e-3 relative error per product), accumulation in float32, several times faster.
// Off by default, so float32 matmul gives float32 accuracy everywhere; turn it on with
// set_allow_tf32(true) or ACCELERA_ALLOW_TF32=1. The setter wins over the environment. Other dtypes and
// backends are unaffected.
ACC_API bool allow_tf32();
ACC_API void set_allow_tf32(bool allow);

// Changes the library's log level at run time; throws ValueError for an unknown level name.
ACC_API void set_log_level(const std::string& level);

}  // namespace accelera
