#pragma once
namespace accelera::python {

// Raises (as the current Python error) the exception a signal handler raised while this thread's call was
// running, if there is one; returns whether there was.
bool restore_pending_interrupt();

}  // namespace accelera::python
