#pragma once
// Note [Work stealing]
// The tiles of one plan, shared by several devices. Each device starts with a contiguous run of the plan's
// tiles (the plan orders them so that consecutive tiles share a panel: a device working down its own run
// keeps re-using the panel it already holds). A device whose run is empty steals the back half of the
// longest run left, so a thief also gets consecutive tiles, and the victim keeps the tiles next to what it
// holds. A slow device simply finishes fewer tiles: nothing is assigned by speed up front.
// A device that fails hands its unfinished tiles back (to the front of its own run, where any device may
// steal them). So that no tile is stranded, a device with nothing left waits while another still holds
// tiles, and leaves only when every tile is finished, or when the run is stopped (an error elsewhere,
// cancellation). A device holding tiles is never waiting, so the wait cannot deadlock.
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <vector>

namespace accelera::engine {

class TileScheduler {
 public:
  TileScheduler(std::size_t tiles, std::size_t devices);

  // The next tile for `device` (from its own run, else stolen); nullopt when none is free now.
  std::optional<std::size_t> take(std::size_t device);
  // `device` finished a tile it took.
  void finish(std::size_t device, std::size_t tile);
  // `device` hands back tiles it took and will not finish.
  void give_back(std::size_t device, const std::vector<std::size_t>& tiles);
  // Blocks until a tile is free (true) or none ever will be: all finished, or stopped (false).
  bool wait_for_work();
  // From now on take() returns nullopt and wait_for_work() false.
  void stop();
  bool stopped() const;
  // Tiles nobody finished (after every device has left): free ones and ones still held.
  std::vector<std::size_t> unfinished() const;
  std::int64_t stolen() const;

 private:
  bool any_free_locked() const;

  mutable std::mutex m_mutex;
  std::condition_variable m_changed;
  std::vector<std::deque<std::size_t>> m_runs;
  std::vector<std::vector<std::size_t>> m_held;  // per device: taken, not finished
  bool m_stopped = false;
  std::int64_t m_stolen = 0;
};

}  // namespace accelera::engine
