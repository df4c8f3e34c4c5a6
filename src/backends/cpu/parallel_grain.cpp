// The element-wise parallel grain, measured once per process (Note [Parallel grain] in
// accelera/cpu_features.hpp).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <vector>

#include "accelera/core/error.hpp"
#include "accelera/cpu_features.hpp"
#include "backends/common/strided_loop.hpp"

namespace accelera {

namespace {

using Clock = std::chrono::steady_clock;

double microseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

CpuParallelGrain measure() {
  CpuParallelGrain g;
  g.threads = omp_get_max_threads();
  // The workers' wake-up: empty regions back to back, as consecutive ops run them. The first one also
  // creates the threads and is not counted.
  std::vector<double> wakes;
  for (int i = 0; i < 8; ++i) {
    const auto start = Clock::now();
#pragma omp parallel
    { asm volatile("" ::: "memory"); }
    if (i > 0) wakes.push_back(microseconds_since(start));
  }
  g.wake_microseconds = median(wakes);
  // One thread's rate on out = a * b + c over operands beyond the caches of small machines (1 MiB each),
  // after a first pass that faults the pages in.
  constexpr std::size_t n = 1 << 18;
  std::vector<float> a(n, 1.0f), b(n, 0.5f), out(n, 0.0f);
  std::vector<double> times;
  for (int pass = 0; pass < 6; ++pass) {
    const auto start = Clock::now();
    float* o = out.data();
    for (std::size_t i = 0; i < n; ++i) o[i] = a[i] * b[i] + o[i];
    asm volatile("" : : "r"(o) : "memory");
    if (pass > 0) times.push_back(microseconds_since(start));
  }
  g.elements_per_microsecond = static_cast<double>(n) / std::max(median(times), 1e-3);
  // Split across T threads, n elements take wake + n / (T rate) instead of n / rate: it pays from
  // n = wake rate T / (T - 1).
  constexpr std::int64_t lo = 1 << 14, hi = 1 << 20;
  if (const char* forced = std::getenv("ACCELERA_PARALLEL_GRAIN"); forced != nullptr) {
    char* end = nullptr;
    const long long value = std::strtoll(forced, &end, 10);
    ACC_CHECK(end != forced && *end == '\0' && value >= 1, ValueError,
              "ACCELERA_PARALLEL_GRAIN must be a positive number of elements, got '{}'", forced);
    g.elements = value;
  } else if (g.threads <= 1) {
    g.elements = hi;
  } else {
    const double pays = g.wake_microseconds * g.elements_per_microsecond * g.threads / (g.threads - 1);
    g.elements = std::clamp(static_cast<std::int64_t>(pays), lo, hi);
  }
  return g;
}

}  // namespace

CpuParallelGrain cpu_parallel_grain() {
  static const CpuParallelGrain grain = measure();
  return grain;
}

namespace backends {

std::int64_t elementwise_parallel_grain() {
  static const std::int64_t elements = cpu_parallel_grain().elements;
  return elements;
}

}  // namespace backends
}  // namespace accelera
