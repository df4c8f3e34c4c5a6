#include "accelera/core/interrupt.hpp"

#include <atomic>

#include "accelera/core/error.hpp"

namespace accelera {

namespace {
std::atomic<InterruptCheck> g_check{nullptr};
}  // namespace

InterruptCheck set_interrupt_check(InterruptCheck check) { return g_check.exchange(check); }

void throw_if_interrupted(std::string_view what) {
  const InterruptCheck check = g_check.load(std::memory_order_relaxed);
  if (check != nullptr && check()) throw InterruptedError(fmt::format("{} interrupted", what));
}

}  // namespace accelera
