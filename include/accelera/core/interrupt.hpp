#pragma once
// Stopping long calls on request. A front end (the Python module, the command line) installs a check that
// says whether the user asked to stop (Ctrl-C); long calls ask it between steps — the out-of-core engine
// after every tile and K step — and stop with InterruptedError, keeping the call's guarantees: every buffer
// freed, nothing in flight, a caller's `out` holding the tiles finished so far.
#include <string_view>

#include "accelera/core/export.hpp"

namespace accelera {

// Returns true when the running call should stop. It runs on the calling thread and may be slow-ish (it may
// take the Python GIL): it is asked between steps of at least milliseconds, never per element.
using InterruptCheck = bool (*)();

// Installs the check (nullptr: calls are never interrupted). Returns the previous one.
ACC_API InterruptCheck set_interrupt_check(InterruptCheck check);
// Throws InterruptedError naming `what` when the installed check asks to stop.
ACC_API void throw_if_interrupted(std::string_view what);

}  // namespace accelera
