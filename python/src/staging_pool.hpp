#pragma once
// Pinned staging buffers kept for reuse by staged transfers (Note [Staged transfers]). Freeing an OpenCL
// staging buffer unmaps it on the device's upload queue and waits for that queue, so for every upload
// queued after it: a pipeline that freed one buffer per item would wait for its own prefetch. Buffers are
// also costly to pin. Up to kStagingPoolBytes are kept; a buffer beyond that is freed.
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "accelera/core/device_interface.hpp"

namespace accelera::python {

inline constexpr std::size_t kStagingPoolBytes = std::size_t{256} << 20;

class StagingPool {
 public:
  // Never destroyed: the backends may be torn down first at exit, and the process frees the memory then.
  static StagingPool& instance() {
    static auto* pool = new StagingPool;
    return *pool;
  }

  // The smallest kept buffer of device `index` holding `nbytes` without wasting more than half of itself,
  // else a new one from the device interface.
  std::unique_ptr<HostBuffer> acquire(DeviceInterface& api, int index, std::size_t nbytes) {
    {
      std::lock_guard lock(m_mutex);
      auto best = m_free.end();
      for (auto it = m_free.begin(); it != m_free.end(); ++it) {
        const std::size_t size = it->buffer->size();
        if (it->api != &api || it->index != index || size < nbytes || size / 2 > nbytes) continue;
        if (best == m_free.end() || size < best->buffer->size()) best = it;
      }
      if (best != m_free.end()) {
        std::unique_ptr<HostBuffer> buffer = std::move(best->buffer);
        m_bytes -= buffer->size();
        m_free.erase(best);
        return buffer;
      }
    }
    return api.allocate_host(index, nbytes);
  }

  // Takes back a buffer no copy uses any more.
  void release(DeviceInterface& api, int index, std::unique_ptr<HostBuffer> buffer) {
    {
      std::lock_guard lock(m_mutex);
      if (m_bytes + buffer->size() <= kStagingPoolBytes) {
        m_bytes += buffer->size();
        m_free.push_back({&api, index, std::move(buffer)});
        return;
      }
    }
    buffer.reset();  // outside the lock: freeing may wait for the device
  }

 private:
  struct Entry {
    DeviceInterface* api;
    int index;
    std::unique_ptr<HostBuffer> buffer;
  };
  std::mutex m_mutex;
  std::vector<Entry> m_free;
  std::size_t m_bytes = 0;
};

}  // namespace accelera::python
