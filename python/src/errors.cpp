// Python exception classes for the C++ error hierarchy: each derives from accelera.Error and from the
// built-in exception a Python user would catch (ValueError, TypeError, ...).
#include <exception>

#include "accelera/core/error.hpp"
#include "bindings.hpp"
#include "interrupt.hpp"

namespace accelera::python {

namespace {

struct ErrorTypes {
  PyObject* error = nullptr;
  PyObject* argument = nullptr;
  PyObject* shape = nullptr;
  PyObject* linalg = nullptr;
  PyObject* dtype = nullptr;
  PyObject* device = nullptr;
  PyObject* oom = nullptr;
  PyObject* not_supported = nullptr;
  PyObject* internal = nullptr;
  PyObject* cancelled = nullptr;
  PyObject* index = nullptr;
};
ErrorTypes g_types;

PyObject* make_type(nb::module_& m, const char* name, std::initializer_list<PyObject*> bases, const char* doc) {
  PyObject* tuple = PyTuple_New(static_cast<Py_ssize_t>(bases.size()));
  Py_ssize_t i = 0;
  for (PyObject* b : bases) {
    Py_INCREF(b);
    PyTuple_SET_ITEM(tuple, i++, b);
  }
  const std::string qualified = std::string("accelera.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, tuple, nullptr);
  Py_DECREF(tuple);
  if (type == nullptr) throw nb::python_error();
  m.attr(name) = nb::handle(type);
  return type;
}

}  // namespace

void bind_errors(nb::module_& m) {
  g_types.error = make_type(m, "Error", {PyExc_Exception}, "Root of every error Accelera raises.");
  g_types.argument = make_type(m, "ArgumentError", {g_types.error, PyExc_ValueError},
                               "A bad value: a device string, a size, an axis.");
  g_types.shape =
      make_type(m, "ShapeError", {g_types.argument}, "Shapes that do not fit together (a ValueError).");
  g_types.linalg = make_type(m, "LinAlgError", {g_types.argument},
                             "A matrix a factorisation cannot take: singular, not positive definite, or no "
                             "convergence (a ValueError, as numpy.linalg.LinAlgError).");
  g_types.dtype = make_type(m, "DTypeError", {g_types.error, PyExc_TypeError},
                            "A dtype that is not stored, or not computed by this op (a TypeError).");
  g_types.device = make_type(m, "DeviceError", {g_types.error, PyExc_RuntimeError},
                             "A device that is missing, not built in, or failed (a RuntimeError).");
  g_types.oom = make_type(m, "OutOfMemoryError", {g_types.error, PyExc_MemoryError},
                          "A device cannot satisfy an allocation within its budget (a MemoryError).");
  g_types.not_supported = make_type(m, "NotSupportedError", {g_types.error, PyExc_NotImplementedError},
                                    "A valid request this build does not implement (a NotImplementedError).");
  g_types.internal = make_type(m, "InternalError", {g_types.error, PyExc_RuntimeError},
                               "A broken invariant inside Accelera: please report it.");

  make_type(m, "OutOfRangeError", {g_types.error, PyExc_OverflowError},
            "A value outside what its dtype holds (an OverflowError), e.g. 2**40 as int32.");
  g_types.index = make_type(m, "IndexOutOfBoundsError", {g_types.error, PyExc_IndexError},
                            "An index outside the extent it indexes (an IndexError).");
  g_types.cancelled = make_type(m, "CancelledError", {g_types.error},
                                "A long call stopped by its progress callback; nothing it allocated is kept.");

  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const LinAlgError& e) {
      PyErr_SetString(g_types.linalg, e.what());
    } catch (const ShapeError& e) {
      PyErr_SetString(g_types.shape, e.what());
    } catch (const ValueError& e) {
      PyErr_SetString(g_types.argument, e.what());
    } catch (const DTypeError& e) {
      PyErr_SetString(g_types.dtype, e.what());
    } catch (const DeviceError& e) {
      PyErr_SetString(g_types.device, e.what());
    } catch (const OutOfMemoryError& e) {
      PyErr_SetString(g_types.oom, e.what());
    } catch (const NotSupportedError& e) {
      PyErr_SetString(g_types.not_supported, e.what());
    } catch (const InterruptedError& e) {
      // Ctrl-C: Python sees the KeyboardInterrupt its handler raised (interrupt.cpp).
      if (!restore_pending_interrupt()) PyErr_SetString(g_types.cancelled, e.what());
    } catch (const CancelledError& e) {
      PyErr_SetString(g_types.cancelled, e.what());
    } catch (const IndexError& e) {
      PyErr_SetString(g_types.index, e.what());
    } catch (const InternalError& e) {
      PyErr_SetString(g_types.internal, e.what());
    } catch (const Error& e) {
      PyErr_SetString(g_types.error, e.what());
    }
  });
}

}  // namespace accelera::python
