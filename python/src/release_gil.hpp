#pragma once
// Note [Releasing the GIL]
// Long calls release the GIL so that other Python threads run meanwhile. When the interpreter exits while a
// daemon thread is inside such a call, Python (3.11, 3.12) ends that thread the moment it tries to take the
// GIL back, with pthread_exit: a forced unwind. Unwinding out of a destructor (noexcept) or through
// nanobind's dispatcher (which catches everything to turn it into a Python error) terminates the whole
// process ("terminate called without an active exception"). So the GIL is taken back here, where the
// forced unwind is caught and the thread, which has nothing left to return to, sleeps until the process
// ends — what Python 3.14 itself does with such threads. Catching the unwind without rethrowing is only
// allowed because the handler never exits. The parked thread still holds its call's arguments, so
// nanobind's report of objects alive at exit would be noise then, and is turned off.
#include <Python.h>
#include <cxxabi.h>
#include <nanobind/nanobind.h>
#include <unistd.h>

namespace accelera::python {

class ReleaseGil {
 public:
  ReleaseGil() : m_state(PyEval_SaveThread()) {}
  ~ReleaseGil() {
    try {
      PyEval_RestoreThread(m_state);
    } catch (abi::__forced_unwind&) {  // the interpreter is exiting: see the Note
      nanobind::set_leak_warnings(false);
      for (;;) pause();
    }
  }
  ReleaseGil(const ReleaseGil&) = delete;
  ReleaseGil& operator=(const ReleaseGil&) = delete;

 private:
  PyThreadState* m_state;
};

}  // namespace accelera::python
