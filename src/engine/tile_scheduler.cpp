#include "engine/tile_scheduler.hpp"

#include <algorithm>

#include "accelera/core/error.hpp"

namespace accelera::engine {

TileScheduler::TileScheduler(std::size_t tiles, std::size_t devices) : m_runs(devices), m_held(devices) {
  ACC_ASSERT(devices > 0, "a scheduler needs a device");
  // Contiguous runs of near-equal length, the first runs one longer when the tiles do not divide evenly.
  std::size_t next = 0;
  for (std::size_t d = 0; d < devices; ++d) {
    const std::size_t count = tiles / devices + (d < tiles % devices ? 1 : 0);
    for (std::size_t i = 0; i < count; ++i) m_runs[d].push_back(next++);
  }
}

std::optional<std::size_t> TileScheduler::take(std::size_t device) {
  std::lock_guard lock(m_mutex);
  if (m_stopped) return std::nullopt;
  auto& own = m_runs[device];
  if (own.empty()) {
    auto victim = std::max_element(m_runs.begin(), m_runs.end(),
                                   [](const auto& x, const auto& y) { return x.size() < y.size(); });
    if (victim->empty()) return std::nullopt;
    // The back half (at least one tile), in order.
    const std::size_t count = (victim->size() + 1) / 2;
    own.assign(victim->end() - static_cast<std::ptrdiff_t>(count), victim->end());
    victim->erase(victim->end() - static_cast<std::ptrdiff_t>(count), victim->end());
    m_stolen += static_cast<std::int64_t>(count);
  }
  const std::size_t tile = own.front();
  own.pop_front();
  m_held[device].push_back(tile);
  return tile;
}

void TileScheduler::finish(std::size_t device, std::size_t tile) {
  std::lock_guard lock(m_mutex);
  auto& held = m_held[device];
  const auto it = std::find(held.begin(), held.end(), tile);
  ACC_ASSERT(it != held.end(), "tile {} finished by a device that did not take it", tile);
  held.erase(it);
  if (held.empty()) m_changed.notify_all();
}

void TileScheduler::give_back(std::size_t device, const std::vector<std::size_t>& tiles) {
  std::lock_guard lock(m_mutex);
  auto& held = m_held[device];
  auto& own = m_runs[device];
  for (auto t = tiles.rbegin(); t != tiles.rend(); ++t) {
    const auto it = std::find(held.begin(), held.end(), *t);
    ACC_ASSERT(it != held.end(), "tile {} handed back by a device that did not take it", *t);
    held.erase(it);
    own.push_front(*t);
  }
  m_changed.notify_all();
}

bool TileScheduler::any_free_locked() const {
  return std::any_of(m_runs.begin(), m_runs.end(), [](const auto& run) { return !run.empty(); });
}

bool TileScheduler::wait_for_work() {
  std::unique_lock lock(m_mutex);
  m_changed.wait(lock, [&] {
    const bool held = std::any_of(m_held.begin(), m_held.end(), [](const auto& h) { return !h.empty(); });
    return m_stopped || any_free_locked() || !held;
  });
  return !m_stopped && any_free_locked();
}

void TileScheduler::stop() {
  std::lock_guard lock(m_mutex);
  m_stopped = true;
  m_changed.notify_all();
}

bool TileScheduler::stopped() const {
  std::lock_guard lock(m_mutex);
  return m_stopped;
}

std::vector<std::size_t> TileScheduler::unfinished() const {
  std::lock_guard lock(m_mutex);
  std::vector<std::size_t> left;
  for (const auto& run : m_runs) left.insert(left.end(), run.begin(), run.end());
  for (const auto& held : m_held) left.insert(left.end(), held.begin(), held.end());
  std::sort(left.begin(), left.end());
  return left;
}

std::int64_t TileScheduler::stolen() const {
  std::lock_guard lock(m_mutex);
  return m_stolen;
}

}  // namespace accelera::engine
