#pragma once
// A one-line progress bar on stderr for long engine calls: drawn only when stderr is a terminal, first after
// half a second (short calls print nothing), redrawn at most ten times a second, closed with a newline.
#include <chrono>
#include <cstdint>
#include <string>

namespace accelera::engine {

class ProgressBar {
 public:
  ProgressBar(std::string label, std::int64_t total, bool enabled);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void update(std::int64_t done, std::int64_t bytes_moved);
  double seconds() const;

 private:
  void draw(std::int64_t done, std::int64_t bytes_moved);

  std::string m_label;
  std::int64_t m_total;
  bool m_enabled;
  bool m_drawn = false;
  std::chrono::steady_clock::time_point m_start, m_last_draw;
};

}  // namespace accelera::engine
