#pragma once
// SIGINT, SIGTERM and SIGHUP during a command: stop at the next tile, remove the temporaries of unfinished
// outputs, exit with 128 + the signal (Note [Interrupted runs] in interrupt.cpp).
#include <string>

namespace accelera::cli {

// Installs the handlers for its lifetime and restores the previous ones after (the Python console script
// runs the command inside the interpreter, whose own SIGINT handler must come back).
class InterruptGuard {
 public:
  // A run still going `grace_seconds` after the first signal exits at once (its temporaries already
  // removed); so does a second signal.
  explicit InterruptGuard(unsigned grace_seconds = 2);
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
};

// The first signal received since the guard was installed, or 0.
int pending_interrupt() noexcept;
// Throws CancelledError naming the signal if one was received.
void throw_if_interrupted();
// "SIGINT", "SIGTERM", "SIGHUP", or "signal N".
std::string signal_name(int signal);

// Temporary files the signal handler removes, so that a run killed at any point leaves no partial output.
// OutputFile is their one user; each function is safe against the handler running at any moment.
namespace detail {
// Records `path` (a file that now exists) and returns its slot; throws ValueError when all slots are taken
// or the path is too long. If a signal came before the record was made, removes the file and throws
// CancelledError.
int register_temporary(const std::string& path);
// Claims the temporary for its rename into place: false when a signal has removed it already. After a
// successful claim the handler leaves it alone.
bool claim_temporary(int slot) noexcept;
// Gives a claimed temporary back (its rename failed): the handler may remove it again.
void unclaim_temporary(int slot) noexcept;
// Forgets a temporary that has been renamed into place.
void release_temporary(int slot) noexcept;
// Removes the temporary unless the handler did, and forgets it.
void discard_temporary(int slot) noexcept;
}  // namespace detail

}  // namespace accelera::cli
