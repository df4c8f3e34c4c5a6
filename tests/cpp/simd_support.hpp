#pragma once
// Shared by the suites of the vectorised CPU kernels (backends/cpu/simd/): every Highway target the CPU
// supports, ulp distances, and buffers poisoned with nan and fenced by guard elements.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "accelera/core/error.hpp"
#include "backends/cpu/simd/simd_kernels.hpp"

namespace acc_test::simd {

namespace ks = accelera::cpu::simd;

// Runs body(target name) once per target this CPU supports, dispatching to that target only; restores the
// default choice afterwards.
template <typename Body>
void for_each_target(Body&& body) {
  for (const std::string& name : ks::supported_target_names()) {
    ks::select_target(name);
    ASSERT_EQ(ks::active_target_name(), name);
    SCOPED_TRACE("target " + name);
    body(name);
  }
  ks::select_target("best");
}

// |got - want| in units of the last place of `want` rounded to T; subnormal results in the smallest
// subnormal step.
template <typename T>
double ulp_error(T got, double want) {
  if (std::isnan(want) || std::isinf(want)) return got == want || (std::isnan(got) && std::isnan(want)) ? 0 : 1e30;
  const double aw = std::fabs(want);
  if (aw < std::numeric_limits<T>::min()) return std::fabs(got - want) / std::numeric_limits<T>::denorm_min();
  const T rounded = static_cast<T>(aw);
  const double ulp = static_cast<double>(std::nextafter(rounded, std::numeric_limits<T>::infinity()) - rounded);
  return std::fabs(static_cast<double>(got) - want) / ulp;
}

// An output of n elements at `offset` elements past a 64-byte boundary (so that heads before the first
// aligned vector are exercised), filled with nan, with guard elements on both sides.
template <typename T>
class Poisoned {
 public:
  static constexpr std::size_t kGuard = 32;
  Poisoned(std::size_t n, std::size_t offset)
      : m_storage(n + 2 * kGuard + 16, std::numeric_limits<T>::quiet_NaN()), m_n(n) {
    const auto addr = reinterpret_cast<std::uintptr_t>(m_storage.data() + kGuard);
    const std::size_t to_line = (64 - addr % 64) % 64 / sizeof(T);
    m_begin = kGuard + to_line + offset;
    for (auto& v : m_storage) v = kGuardValue;
    for (std::size_t i = 0; i < n; ++i) m_storage[m_begin + i] = std::numeric_limits<T>::quiet_NaN();
  }
  T* data() { return m_storage.data() + m_begin; }
  T operator[](std::size_t i) const { return m_storage[m_begin + i]; }
  // The guards are untouched: nothing was written outside [0, n).
  bool guards_intact() const {
    for (std::size_t i = 0; i < m_storage.size(); ++i) {
      if ((i < m_begin || i >= m_begin + m_n) && m_storage[i] != kGuardValue) return false;
    }
    return true;
  }

 private:
  static constexpr T kGuardValue = T(-12345);
  std::vector<T> m_storage;
  std::size_t m_n, m_begin = 0;
};

// Inputs at the same misalignment as the outputs they go with.
template <typename T>
Poisoned<T> random_input(std::size_t n, std::size_t offset, std::mt19937_64& rng, double lo, double hi) {
  Poisoned<T> p(n, offset);
  std::uniform_real_distribution<double> dist(lo, hi);
  for (std::size_t i = 0; i < n; ++i) p.data()[i] = static_cast<T>(dist(rng));
  return p;
}

// Lengths with every kind of tail for 1- to 16-lane vectors, primes, odd row widths.
inline const std::vector<std::size_t> kLengths = {1,  2,  3,  5,  7,  8,   13,  15,   16,
                                                  17, 31, 33, 61, 64, 127, 257, 1021, 4099};

}  // namespace acc_test::simd
