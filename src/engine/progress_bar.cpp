#include "engine/progress_bar.hpp"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

namespace accelera::engine {

ProgressBar::ProgressBar(std::string label, std::int64_t total, bool enabled)
    : m_label(std::move(label)),
      m_total(total),
      m_enabled(enabled && isatty(STDERR_FILENO) == 1),
      m_start(std::chrono::steady_clock::now()),
      m_last_draw(m_start) {}

ProgressBar::~ProgressBar() {
  if (m_drawn) std::fputc('\n', stderr);
}

double ProgressBar::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
}

void ProgressBar::update(std::int64_t done, std::int64_t bytes_moved) {
  if (!m_enabled) return;
  const auto now = std::chrono::steady_clock::now();
  if (std::chrono::duration<double>(now - m_start).count() < 0.5) return;
  if (m_drawn && done < m_total && std::chrono::duration<double>(now - m_last_draw).count() < 0.1) return;
  m_last_draw = now;
  draw(done, bytes_moved);
}

void ProgressBar::draw(std::int64_t done, std::int64_t bytes_moved) {
  constexpr int width = 30;
  const double fraction = m_total > 0 ? static_cast<double>(done) / static_cast<double>(m_total) : 1.0;
  const int filled = static_cast<int>(fraction * width);
  const double elapsed = seconds();
  const double eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0;
  const std::string bar = std::string(static_cast<std::size_t>(filled), '#') + std::string(static_cast<std::size_t>(width - filled), '.');
  std::fprintf(stderr, "\r%s [%s] %3.0f%%  %lld/%lld tiles  %.2f GB moved  %.1fs elapsed  ETA %.1fs ",
               m_label.c_str(), bar.c_str(), 100 * fraction, static_cast<long long>(done),
               static_cast<long long>(m_total), static_cast<double>(bytes_moved) / 1e9, elapsed, eta);
  std::fflush(stderr);
  m_drawn = true;
}

}  // namespace accelera::engine
