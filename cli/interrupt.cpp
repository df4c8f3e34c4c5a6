#include "interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "accelera/core/error.hpp"

// Note [Interrupted runs]
// An output is written to a hidden temporary beside its final path and renamed into place only after
// success (Note [Safe outputs] in output_file.hpp), so no signal can leave a partial file at the final
// path. What remains is to remove the temporary and to stop soon:
//
// - The first SIGINT, SIGTERM or SIGHUP is recorded, and the handler removes every registered temporary at
//   once (unlink is async-signal-safe; the mapping stays valid until the process drops it). A SIGKILL that
//   follows before the run stops therefore finds nothing to leave behind.
// - The run polls the record: the engine's progress callback returns false at the next tile (the engine
//   throws CancelledError), the output refuses to commit, the command returns 128 + the signal.
// - A run that cannot poll (an in-core product has no tiles; a long msync) is ended by the grace timer:
//   `grace_seconds` after the first signal, SIGALRM's handler calls _exit(128 + signal). A second signal
//   does the same at once.
// - Commit claims the temporary before renaming it; a signal that finds it claimed leaves it, and the rename
//   completes: a run whose output is in place has succeeded, and exits 0. A claim that finds the temporary
//   removed fails, and the run reports the signal. So an exit status of 0 means a complete output at the
//   final path, and any other status means the final path was not touched.
// - The temporaries' slot states are lock-free atomics, so the handler may run on any thread (OpenMP and
//   BLAS workers included) at any moment. Registration stores the slot and then reads the signal record;
//   the handler stores the record and then scans the slots: with sequentially consistent atomics at least
//   one of them sees the other, so a temporary created as a signal arrives is removed by one of the two.
//
// A SIGKILL (which no handler sees) arriving before the first signal can leave a temporary named
// .c.npy.XXXXXX, which nothing loads by mistake; a later successful run does not reuse its name.

namespace accelera::cli {

namespace {

enum SlotState : int { kFree, kReserved, kWritten, kClaimed, kRemoved };

struct TemporarySlot {
  std::atomic<int> state{kFree};
  char path[4096] = {};
};

static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs lock-free atomics");

constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};
std::array<TemporarySlot, 8> g_slots;
std::atomic<int> g_signal{0};
std::atomic<unsigned> g_grace_seconds{2};
std::atomic<bool> g_installed{false};
std::array<struct sigaction, kSignals.size()> g_previous{};
struct sigaction g_previous_alarm {};

// Async-signal-safe: atomics, unlink.
void remove_temporaries() noexcept {
  for (auto& slot : g_slots) {
    int expected = kWritten;
    if (slot.state.compare_exchange_strong(expected, kRemoved)) ::unlink(slot.path);
  }
}

void write_stderr(const char* text) noexcept {
  // Nothing can be done in a signal handler about a failed write to stderr.
  static_cast<void>(!::write(STDERR_FILENO, text, std::strlen(text)));
}

const char* literal_name(int signal) noexcept {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "a signal";
  }
}

[[noreturn]] void exit_now(int signal) noexcept {
  remove_temporaries();
  write_stderr("accelera: ");
  write_stderr(literal_name(signal));
  write_stderr(": exiting without finishing the run; no output was written\n");
  ::_exit(128 + signal);
}

extern "C" void on_interrupt(int signal) {
  const int saved_errno = errno;  // unlink may set it under code that is about to read its own
  int expected = 0;
  const bool first = g_signal.compare_exchange_strong(expected, signal);
  remove_temporaries();
  if (!first) exit_now(expected);
  ::alarm(g_grace_seconds.load());
  errno = saved_errno;
}

extern "C" void on_grace_expired(int) { exit_now(g_signal.load()); }

}  // namespace

InterruptGuard::InterruptGuard(unsigned grace_seconds) {
  ACC_ASSERT(!g_installed.exchange(true), "one InterruptGuard at a time");
  g_signal.store(0);
  g_grace_seconds.store(grace_seconds);
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (const int s : kSignals) sigaddset(&action.sa_mask, s);
  for (std::size_t i = 0; i < kSignals.size(); ++i) {
    ACC_ASSERT(::sigaction(kSignals[i], &action, &g_previous[i]) == 0, "sigaction: {}", std::strerror(errno));
  }
  struct sigaction alarm_action = action;
  alarm_action.sa_handler = on_grace_expired;
  ACC_ASSERT(::sigaction(SIGALRM, &alarm_action, &g_previous_alarm) == 0, "sigaction: {}", std::strerror(errno));
}

InterruptGuard::~InterruptGuard() {
  ::alarm(0);
  ::sigaction(SIGALRM, &g_previous_alarm, nullptr);
  for (std::size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &g_previous[i], nullptr);
  g_signal.store(0);  // a signal is the business of the run that received it
  g_installed.store(false);
}

int pending_interrupt() noexcept { return g_signal.load(); }

std::string signal_name(int signal) {
  const char* name = literal_name(signal);
  return std::strcmp(name, "a signal") == 0 ? fmt::format("signal {}", signal) : std::string(name);
}

void throw_if_interrupted() {
  const int signal = pending_interrupt();
  if (signal != 0) throw CancelledError(fmt::format("interrupted by {}", signal_name(signal)));
}

namespace detail {

int register_temporary(const std::string& path) {
  ACC_CHECK(path.size() < sizeof(TemporarySlot::path), ValueError, "the path {} is too long", path);
  for (std::size_t i = 0; i < g_slots.size(); ++i) {
    int expected = kFree;
    if (!g_slots[i].state.compare_exchange_strong(expected, kReserved)) continue;
    std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
    g_slots[i].state.store(kWritten);  // from here the handler removes it
    const int slot = static_cast<int>(i);
    if (pending_interrupt() != 0) {
      discard_temporary(slot);
      throw_if_interrupted();
    }
    return slot;
  }
  throw ValueError(fmt::format("too many outputs written at once ({} at most)", g_slots.size()));
}

bool claim_temporary(int slot) noexcept {
  int expected = kWritten;
  return g_slots[static_cast<std::size_t>(slot)].state.compare_exchange_strong(expected, kClaimed);
}

void unclaim_temporary(int slot) noexcept { g_slots[static_cast<std::size_t>(slot)].state.store(kWritten); }

void release_temporary(int slot) noexcept { g_slots[static_cast<std::size_t>(slot)].state.store(kFree); }

void discard_temporary(int slot) noexcept {
  auto& entry = g_slots[static_cast<std::size_t>(slot)];
  // Claim it first so that the handler leaves it; if the handler has removed it already, only forget it.
  int expected = kWritten;
  if (entry.state.compare_exchange_strong(expected, kClaimed) || expected == kClaimed) ::unlink(entry.path);
  entry.state.store(kFree);
}

}  // namespace detail

}  // namespace accelera::cli
