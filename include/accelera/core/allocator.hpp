#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "accelera/core/device.hpp"
#include "accelera/core/export.hpp"

namespace accelera {

// Statistics of one device's allocator; bytes are counted after size-class rounding.
struct MemoryStats {
  std::int64_t current_bytes = 0;   // held by live tensors
  std::int64_t peak_bytes = 0;      // high-water mark of current_bytes
  std::int64_t reserved_bytes = 0;  // current_bytes + cached free blocks: what the device really holds
  std::int64_t cached_bytes = 0;    // free blocks kept for reuse
  std::int64_t budget_bytes = 0;    // reserved_bytes never exceeds this
  std::int64_t num_allocs = 0;      // allocate() calls that succeeded
  std::int64_t num_frees = 0;
  std::int64_t cache_hits = 0;      // allocations served from a cached block
  std::int64_t cache_flushes = 0;   // times the cache was emptied to make room
  std::int64_t num_ooms = 0;        // OutOfMemoryError raised
};

// The raw memory of one device, as a backend provides it.
class ACC_API RawAllocator {
 public:
  virtual ~RawAllocator() = default;
  // Returns nullptr when the device has no memory left; throws DeviceError on other failures.
  virtual void* raw_allocate(std::size_t nbytes) = 0;
  virtual void raw_free(void* ptr, std::size_t nbytes) noexcept = 0;
};

// A caching allocator for one device: sizes are rounded to classes, freed blocks are kept and reused,
// total reservation stays within a budget. On exhaustion it flushes the cache and retries once, then
// throws OutOfMemoryError naming the device, the request and what is in use and free.
// Thread-safe.
class ACC_API CachingAllocator {
 public:
  CachingAllocator(Device device, RawAllocator& raw, std::int64_t budget_bytes);
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // nbytes == 0 still returns a unique, valid block of the smallest class.
  void* allocate(std::size_t nbytes);
  void deallocate(void* ptr) noexcept;

  MemoryStats stats() const;
  void reset_peak();
  // Returns every cached block to the device.
  void empty_cache();
  // Throws ValueError for a non-positive budget.
  void set_budget(std::int64_t budget_bytes);
  std::int64_t budget() const;
  // Test switch: the nth allocate() call from now (1 = the next) throws OutOfMemoryError; 0 disarms.
  void fail_nth_allocation(std::int64_t n);

  Device device() const noexcept { return m_device; }
  static std::size_t round_size(std::size_t nbytes) noexcept;

 private:
  void* allocate_locked(std::size_t size, std::size_t requested);
  void flush_cache_locked() noexcept;
  [[noreturn]] void throw_oom_locked(std::size_t requested, const char* why);

  const Device m_device;
  RawAllocator& m_raw;
  mutable std::mutex m_mutex;
  std::int64_t m_budget;
  std::int64_t m_fail_countdown = 0;
  MemoryStats m_stats;
  std::map<std::size_t, std::vector<void*>> m_free_blocks;  // by size class
  std::unordered_map<void*, std::size_t> m_live_sizes;      // block -> size class
};

// The allocator of a device; throws DeviceError if the device does not exist.
ACC_API CachingAllocator& allocator_for(const Device& device);

}  // namespace accelera
