// Ctrl-C during long calls: the interrupt check (accelera/core/interrupt.hpp) runs Python's signal handlers
// between the steps of a long call, which runs without the GIL; when a handler raises (KeyboardInterrupt),
// the call stops with InterruptedError and the handler's exception is what Python sees.
#include <Python.h>
#include <cxxabi.h>
#include <unistd.h>

#include "accelera/core/interrupt.hpp"
#include "bindings.hpp"
#include "interrupt.hpp"

namespace accelera::python {

namespace {

// The exception a signal handler raised during this thread's running call, until it is raised in Python.
struct PendingException {
  PyObject* type = nullptr;
  PyObject* value = nullptr;
  PyObject* traceback = nullptr;
};
thread_local PendingException t_pending;

bool python_signal_raised() {
  PyGILState_STATE state;
  try {
    state = PyGILState_Ensure();
  } catch (abi::__forced_unwind&) {  // the interpreter is exiting: Note [Releasing the GIL]
    nanobind::set_leak_warnings(false);
    for (;;) pause();
  }
  bool raised = false;
  if (PyErr_CheckSignals() != 0) {  // runs the handlers (main thread only; elsewhere nothing is pending)
    PyErr_Fetch(&t_pending.type, &t_pending.value, &t_pending.traceback);
    raised = true;
  }
  PyGILState_Release(state);
  return raised;
}

}  // namespace

bool restore_pending_interrupt() {
  if (t_pending.type == nullptr) return false;
  PyErr_Restore(t_pending.type, t_pending.value, t_pending.traceback);
  t_pending = {};
  return true;
}

void bind_interrupt(nb::module_&) { set_interrupt_check(&python_signal_raised); }

}  // namespace accelera::python
