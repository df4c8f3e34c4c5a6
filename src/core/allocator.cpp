#include "accelera/core/allocator.hpp"

#include <algorithm>
#include <bit>

#include "accelera/core/error.hpp"
#include "core/log.hpp"

namespace accelera {

namespace {
constexpr std::size_t kSmallGranule = 512;          // small blocks: multiples of 512 B
constexpr std::size_t kLargeThreshold = 1u << 20;   // from 1 MiB on: 8 classes per power of two

std::string format_bytes(std::int64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (bytes >= (1LL << 30)) return fmt::format("{:.2f} GiB", b / (1LL << 30));
  if (bytes >= (1LL << 20)) return fmt::format("{:.2f} MiB", b / (1LL << 20));
  if (bytes >= (1LL << 10)) return fmt::format("{:.2f} KiB", b / (1LL << 10));
  return fmt::format("{} B", bytes);
}
}  // namespace

CachingAllocator::CachingAllocator(Device device, RawAllocator& raw, std::int64_t budget_bytes)
    : m_device(device), m_raw(raw), m_budget(budget_bytes) {
  ACC_ASSERT(budget_bytes > 0, "allocator for {} created with budget {}", device.str(), budget_bytes);
  m_stats.budget_bytes = budget_bytes;
}

CachingAllocator::~CachingAllocator() {
  std::lock_guard lock(m_mutex);
  flush_cache_locked();
}

// Rounding to classes makes freed blocks reusable by later requests of similar size; the coarser large
// classes waste at most 12.5% and keep the number of distinct classes small.
std::size_t CachingAllocator::round_size(std::size_t nbytes) noexcept {
  if (nbytes < kLargeThreshold) {
    return std::max<std::size_t>(kSmallGranule, (nbytes + kSmallGranule - 1) / kSmallGranule * kSmallGranule);
  }
  const std::size_t power = std::bit_floor(nbytes);
  const std::size_t step = power / 8;
  return (nbytes + step - 1) / step * step;
}

void* CachingAllocator::allocate(std::size_t nbytes) {
  std::lock_guard lock(m_mutex);
  if (m_fail_countdown > 0 && --m_fail_countdown == 0) {
    ++m_stats.num_ooms;
    throw OutOfMemoryError(fmt::format("out of memory on {}: injected failure of a {} allocation (test switch)",
                                       m_device.str(), format_bytes(static_cast<std::int64_t>(nbytes))));
  }
  ACC_CHECK(nbytes <= (std::size_t{1} << 62), ValueError, "allocation of {} bytes on {} is beyond any device",
            nbytes, m_device.str());
  return allocate_locked(round_size(nbytes), nbytes);
}

void* CachingAllocator::allocate_locked(std::size_t size, std::size_t requested) {
  const auto ssize = static_cast<std::int64_t>(size);
  if (auto it = m_free_blocks.find(size); it != m_free_blocks.end() && !it->second.empty()) {
    void* ptr = it->second.back();
    it->second.pop_back();
    m_stats.cached_bytes -= ssize;
    ++m_stats.cache_hits;
    m_live_sizes.emplace(ptr, size);
    m_stats.current_bytes += ssize;
    m_stats.peak_bytes = std::max(m_stats.peak_bytes, m_stats.current_bytes);
    ++m_stats.num_allocs;
    return ptr;
  }
  if (m_stats.reserved_bytes + ssize > m_budget) {
    flush_cache_locked();
    if (m_stats.reserved_bytes + ssize > m_budget) throw_oom_locked(requested, "the memory budget is exhausted");
  }
  void* ptr = m_raw.raw_allocate(size);
  if (ptr == nullptr) {
    ACC_LOG_INFO("allocator {}: device allocation of {} failed; flushing the cache and retrying once",
                    m_device.str(), format_bytes(ssize));
    flush_cache_locked();
    ptr = m_raw.raw_allocate(size);
    if (ptr == nullptr) throw_oom_locked(requested, "the device has no memory left");
  }
  m_live_sizes.emplace(ptr, size);
  m_stats.reserved_bytes += ssize;
  m_stats.current_bytes += ssize;
  m_stats.peak_bytes = std::max(m_stats.peak_bytes, m_stats.current_bytes);
  ++m_stats.num_allocs;
  return ptr;
}

void CachingAllocator::deallocate(void* ptr) noexcept {
  if (ptr == nullptr) return;
  std::lock_guard lock(m_mutex);
  const auto it = m_live_sizes.find(ptr);
  if (it == m_live_sizes.end()) {
    ACC_LOG_ERROR("allocator {}: free of unknown block {}", m_device.str(), ptr);
    return;
  }
  const std::size_t size = it->second;
  m_live_sizes.erase(it);
  m_free_blocks[size].push_back(ptr);
  m_stats.current_bytes -= static_cast<std::int64_t>(size);
  m_stats.cached_bytes += static_cast<std::int64_t>(size);
  ++m_stats.num_frees;
}

void CachingAllocator::flush_cache_locked() noexcept {
  if (m_stats.cached_bytes == 0) return;
  for (auto& [size, blocks] : m_free_blocks) {
    for (void* ptr : blocks) m_raw.raw_free(ptr, size);
    m_stats.reserved_bytes -= static_cast<std::int64_t>(size * blocks.size());
  }
  m_free_blocks.clear();
  m_stats.cached_bytes = 0;
  ++m_stats.cache_flushes;
}

void CachingAllocator::throw_oom_locked(std::size_t requested, const char* why) {
  ++m_stats.num_ooms;
  const std::int64_t free_in_budget = std::max<std::int64_t>(0, m_budget - m_stats.reserved_bytes);
  throw OutOfMemoryError(fmt::format(
      "out of memory on {}: cannot allocate {} ({}); {} in use by tensors, {} budget, {} free within the budget",
      m_device.str(), format_bytes(static_cast<std::int64_t>(requested)), why, format_bytes(m_stats.current_bytes),
      format_bytes(m_budget), format_bytes(free_in_budget)));
}

MemoryStats CachingAllocator::stats() const {
  std::lock_guard lock(m_mutex);
  MemoryStats s = m_stats;
  s.budget_bytes = m_budget;
  return s;
}

void CachingAllocator::reset_peak() {
  std::lock_guard lock(m_mutex);
  m_stats.peak_bytes = m_stats.current_bytes;
}

void CachingAllocator::empty_cache() {
  std::lock_guard lock(m_mutex);
  flush_cache_locked();
}

void CachingAllocator::set_budget(std::int64_t budget_bytes) {
  ACC_CHECK(budget_bytes > 0, ValueError, "memory budget for {} must be positive, got {}", m_device.str(),
            budget_bytes);
  std::lock_guard lock(m_mutex);
  m_budget = budget_bytes;
  if (m_stats.reserved_bytes > m_budget) flush_cache_locked();
}

std::int64_t CachingAllocator::budget() const {
  std::lock_guard lock(m_mutex);
  return m_budget;
}

void CachingAllocator::fail_nth_allocation(std::int64_t n) {
  ACC_CHECK(n >= 0, ValueError, "fail_nth_allocation expects n >= 0, got {}", n);
  std::lock_guard lock(m_mutex);
  m_fail_countdown = n;
}

}  // namespace accelera
