// Which instruction set the vectorised CPU kernels run on, the ACCELERA_CPU_TARGET override, and the
// choice between cached and streaming stores.
//
// Note [SIMD dispatch]: every kernel file in this folder includes hwy/foreach_target.h, which compiles its
// code once per Highway target in HWY_TARGETS (x86: the baseline fallback, SSE4, AVX2 and AVX-512 (AVX3);
// Arm: NEON and SVE/SVE2; see src/CMakeLists.txt), each with that target's instructions enabled by
// function attributes, so the build itself needs no -march. HWY_EXPORT gathers the versions in a table
// and HWY_DYNAMIC_DISPATCH calls the best one among those that hwy::SupportedTargets() reports. That set
// is the CPU's, unless select_target() (or ACCELERA_CPU_TARGET, applied before the first kernel runs)
// narrowed it with hwy::SetSupportedTargetsForTest to one target and those below it — so that every
// compiled path can be tested and timed on one machine. A target the CPU lacks is never chosen: asking for
// "avx512" on an AVX2-only machine runs AVX2.
//
// Note [Streaming stores]: an ordinary store first reads the output line into the cache (a read for
// ownership), so a one-in, one-out kernel moves three bytes for every two it needs, and an output much
// larger than the caches is evicted again anyway. Non-temporal stores write whole lines straight to
// memory. On the Sapphire Rapids VM of docs/benchmarks.md, a 64 MiB read-and-write loop ran at 22 GiB/s
// with ordinary stores and 56 GiB/s with streaming ones (memcpy: 42 GiB/s); the crossover for the GELU
// kernel was near 1 MiB of output. Below kStreamingBytes the output stays in cache for the op that reads
// it next.
#include <hwy/highway.h>
#include <hwy/targets.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

#include <fmt/format.h>

#include "accelera/core/error.hpp"
#include "backends/cpu/simd/simd_kernels.hpp"

namespace accelera::cpu::simd {

namespace {

constexpr std::int64_t kStreamingBytes = std::int64_t{4} << 20;

struct TargetName {
  std::int64_t bit;
  const char* name;
};

// Best first; "scalar" is Highway's portable fallback (HWY_EMU128 or HWY_SCALAR, whichever is built).
constexpr TargetName kTargetNames[] = {
#if HWY_ARCH_X86
    {HWY_AVX3_DL, "avx512_dl"}, {HWY_AVX3, "avx512"},   {HWY_AVX2, "avx2"}, {HWY_SSE4, "sse4"}, {HWY_SSSE3, "ssse3"},
#elif HWY_ARCH_ARM
    {HWY_SVE2_128, "sve2_128"}, {HWY_SVE_256, "sve_256"}, {HWY_SVE2, "sve2"}, {HWY_SVE, "sve"}, {HWY_NEON, "neon"},
#endif
    {HWY_EMU128, "scalar"},     {HWY_SCALAR, "scalar"},
};

// Other spellings people use for the same targets.
constexpr std::pair<const char*, const char*> kAliases[] = {
    {"avx3", "avx512"}, {"avx-512", "avx512"}, {"emu128", "scalar"}, {"none", "scalar"}};

const char* name_of(std::int64_t bit) {
  for (const auto& t : kTargetNames) {
    if (t.bit == bit) return t.name;
  }
  return hwy::TargetName(bit);
}

std::vector<std::string> names_of(std::int64_t targets) {
  std::vector<std::string> names;
  for (std::int64_t rest = targets; rest != 0; rest &= rest - 1) names.emplace_back(name_of(rest & -rest));
  return names;
}

// What the CPU supports, read before any restriction is installed.
std::int64_t cpu_targets() {
  static const std::int64_t targets = hwy::SupportedTargets();
  return targets;
}

std::mutex g_select_mutex;
std::atomic<bool> g_selected{false};

void apply(std::string_view requested) {
  std::string name(requested);
  for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& [alias, canonical] : kAliases) {
    if (name == alias) name = canonical;
  }
  const std::int64_t cpu = cpu_targets();
  if (name == "best") {
    hwy::SetSupportedTargetsForTest(0);  // back to the CPU's own set
    return;
  }
  for (const auto& t : kTargetNames) {
    if (name == t.name && (HWY_TARGETS & t.bit) != 0) {
      // This target and every one below it (a larger bit is a lesser target).
      const std::int64_t allowed = cpu & ~(t.bit - 1);
      hwy::SetSupportedTargetsForTest(allowed != 0 ? allowed : t.bit);
      return;
    }
  }
  throw ValueError(fmt::format("ACCELERA_CPU_TARGET='{}' is not a CPU target of this build; valid choices: best, {}",
                               requested, fmt::join(compiled_target_names(), ", ")));
}

}  // namespace

void select_target(std::string_view name) {
  std::lock_guard lock(g_select_mutex);
  apply(name);
  g_selected.store(true, std::memory_order_release);
}

void ensure_target_selected() {
  if (g_selected.load(std::memory_order_acquire)) return;
  std::lock_guard lock(g_select_mutex);
  if (g_selected.load(std::memory_order_relaxed)) return;
  const char* value = std::getenv("ACCELERA_CPU_TARGET");
  if (value != nullptr && *value != '\0') apply(value);  // throws on a bad name, and again on the next call
  g_selected.store(true, std::memory_order_release);
}

std::vector<std::string> compiled_target_names() { return names_of(HWY_TARGETS); }

std::vector<std::string> supported_target_names() { return names_of(cpu_targets() & HWY_TARGETS); }

std::string active_target_name() {
  ensure_target_selected();
  const std::int64_t usable = hwy::SupportedTargets() & HWY_TARGETS;
  return name_of(usable & -usable);
}

Store store_for(std::int64_t output_bytes) {
  return output_bytes >= kStreamingBytes ? Store::streaming : Store::cached;
}

}  // namespace accelera::cpu::simd
