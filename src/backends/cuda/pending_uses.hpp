#pragma once
// The bookkeeping of Note [CUDA memory and streams] (cuda_interface.hpp): what asynchronous copies keep
// alive until the events after them complete, and which host addresses are pinned staging blocks. Free of
// CUDA headers (the event type is a template parameter), so it is tested where no GPU is.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace accelera::cuda {

// The answer of an event query. `failed`: the device reported an error, so the work before the event will
// never run (the next synchronising call reports the error).
enum class EventState { pending, done, failed };

// Blocks (device storages, pinned staging blocks) kept alive until an event recorded after the work that
// uses them has completed. Thread-safe.
template <typename EventT>
class PendingUses {
 public:
  struct Use {
    EventT done{};
    std::vector<std::shared_ptr<const void>> kept;
  };

  void add(EventT done, std::vector<std::shared_ptr<const void>> kept) {
    std::lock_guard lock(m_mutex);
    m_uses.push_back(Use{done, std::move(kept)});
  }

  // Removes and returns the uses whose event `state_of` (EventT -> EventState) reports done or failed. A
  // use whose event is still pending stays, whoever added it and whenever: a caller that has just
  // synchronised its streams must still not release a use another thread added after that. The caller
  // releases the events and drops what the uses keep outside this lock (freeing takes the allocator's).
  template <typename Query>
  std::vector<Use> take_finished(Query&& state_of) {
    std::vector<Use> finished;
    std::lock_guard lock(m_mutex);
    auto keep = m_uses.begin();
    for (auto it = m_uses.begin(); it != m_uses.end(); ++it) {
      if (state_of(it->done) == EventState::pending) {
        if (keep != it) *keep = std::move(*it);
        ++keep;
      } else {
        finished.push_back(std::move(*it));
      }
    }
    m_uses.erase(keep, m_uses.end());
    return finished;
  }

  std::size_t size() const {
    std::lock_guard lock(m_mutex);
    return m_uses.size();
  }

 private:
  mutable std::mutex m_mutex;
  std::vector<Use> m_uses;
};

// The live pinned staging blocks by address range, so that an asynchronous copy from or to an address
// inside one can keep the block out of the pool until the copy has completed: host staging memory gets
// the record-stream treatment device memory gets. Thread-safe.
class StagingBlocks {
 public:
  // `block` owns [data, data + size) and returns it to the pool when its last reference goes.
  void add(const void* data, std::size_t size, const std::shared_ptr<const void>& block) {
    std::lock_guard lock(m_mutex);
    m_blocks.insert_or_assign(address(data), Entry{address(data) + size, block});
  }

  // Forgets the block starting at `data` (its buffer is being freed); copies that hold it keep it alive.
  void remove(const void* data) noexcept {
    std::lock_guard lock(m_mutex);
    m_blocks.erase(address(data));
  }

  // The live block whose range holds `ptr`; null for any other host memory.
  std::shared_ptr<const void> find(const void* ptr) const {
    const std::uintptr_t p = address(ptr);
    std::lock_guard lock(m_mutex);
    auto it = m_blocks.upper_bound(p);
    if (it == m_blocks.begin()) return nullptr;
    --it;
    return p < it->second.end ? it->second.block.lock() : nullptr;
  }

 private:
  struct Entry {
    std::uintptr_t end = 0;
    std::weak_ptr<const void> block;
  };
  static std::uintptr_t address(const void* p) noexcept { return reinterpret_cast<std::uintptr_t>(p); }

  mutable std::mutex m_mutex;
  std::map<std::uintptr_t, Entry> m_blocks;  // by start address
};

}  // namespace accelera::cuda
