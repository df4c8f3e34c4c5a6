// accelera._core.Tensor: shape, dtype and device, views, basic indexing, copies and DLPack.
// Operators and NumPy-style conveniences are added by the Python package (accelera/_tensor.py).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "accelera/accelera.hpp"
#include "bindings.hpp"
#include "release_gil.hpp"
#include "dlpack.hpp"

namespace accelera::python {

namespace {

nb::tuple shape_tuple(const Tensor& t) {
  nb::list dims;
  for (auto d : t.shape().dims()) dims.append(d);
  return nb::tuple(dims);
}

std::int64_t as_index(nb::handle h, const char* what) {
  if (!PyIndex_Check(h.ptr()) || PyBool_Check(h.ptr())) {
    throw DTypeError(fmt::format("{} must be an integer, not {}", what, nb::type_name(h.type()).c_str()));
  }
  const Py_ssize_t v = PyNumber_AsSsize_t(h.ptr(), PyExc_OverflowError);
  if (v == -1 && PyErr_Occurred()) {
    // Translate Python's error into our typed one (the pending error is cleared before formatting).
    const bool overflow = PyErr_ExceptionMatches(PyExc_OverflowError) != 0;
    PyErr_Clear();
    if (overflow) throw ValueError(fmt::format("{} {} does not fit in 64 bits", what, nb::str(h).c_str()));
    throw DTypeError(fmt::format("{} must be an integer, not {}", what, nb::type_name(h.type()).c_str()));
  }
  return v;
}

std::vector<std::int64_t> as_dims(nb::handle h, const char* what) {
  std::vector<std::int64_t> dims;
  if (PyIndex_Check(h.ptr())) {
    dims.push_back(as_index(h, what));
    return dims;
  }
  if (!PySequence_Check(h.ptr())) {
    throw DTypeError(fmt::format("{} must be an integer or a sequence of integers", what));
  }
  for (nb::handle item : nb::iter(h)) dims.push_back(as_index(item, what));
  return dims;
}

// An integer index: Python and NumPy integers, and 0-d integer arrays (as in NumPy). Other sequences
// would be advanced (gather) indexing.
bool is_integer_index(nb::handle item) {
  if (!PyIndex_Check(item.ptr())) return false;
  if (!PySequence_Check(item.ptr())) return true;
  return nb::hasattr(item, "ndim") && nb::cast<long>(item.attr("ndim")) == 0;
}

// Basic indexing: integers, slices, Ellipsis and None (new axis), alone or in a tuple.
Tensor getitem(const Tensor& t, nb::handle key) {
  std::vector<nb::handle> items;
  if (PyTuple_Check(key.ptr())) {
    for (nb::handle item : nb::borrow<nb::tuple>(key)) items.push_back(item);
  } else {
    items.push_back(key);
  }
  std::int64_t consumed = 0, ellipses = 0;
  for (nb::handle item : items) {
    if (item.is_none()) continue;
    if (item.ptr() == Py_Ellipsis) {
      ++ellipses;
      continue;
    }
    if (!PySlice_Check(item.ptr()) && !is_integer_index(item)) {
      throw nb::index_error(fmt::format("only integers, slices (:), ellipsis (...), None and integer or boolean "
                                        "arrays are valid indices, not {}",
                                        nb::type_name(item.type()).c_str())
                                .c_str());
    }
    ++consumed;
  }
  // IndexError, as NumPy and the standard raise for these.
  if (ellipses > 1) throw nb::index_error("an index can only have a single ellipsis ('...')");
  if (consumed > t.ndim()) {
    throw nb::index_error(
        fmt::format("too many indices for a tensor of rank {}: {} were given", t.ndim(), consumed).c_str());
  }
  Tensor out = t;
  std::int64_t axis = 0;
  for (nb::handle item : items) {
    if (item.is_none()) {
      out = out.unsqueeze(axis++);
    } else if (item.ptr() == Py_Ellipsis) {
      axis += t.ndim() - consumed;
    } else if (PySlice_Check(item.ptr())) {
      Py_ssize_t start = 0, stop = 0, step = 0;
      if (PySlice_Unpack(item.ptr(), &start, &stop, &step) < 0) throw nb::python_error();
      out = out.slice(axis++, start, stop, step);
    } else {
      const std::int64_t index = as_index(item, "index");
      const std::int64_t extent = out.shape()[axis];
      if (index < -extent || index >= extent) {
        throw nb::index_error(
            fmt::format("index {} is out of bounds for axis {} with size {}", index, axis, extent).c_str());
      }
      out = out.select(axis, index);
    }
  }
  return out;
}

// Note [DLPack streams] (CUDA): the consumer names its stream; it must not read the tensor before the
// kernels that write it, queued on our compute stream, have run. None means the legacy default stream, -1
// asks for no ordering. Devices whose queues other libraries cannot see (OpenCL) finish their work first.
void order_for_consumer(const Tensor& t, nb::handle stream) {
  if (t.device().is_cpu()) return;
  std::int64_t handle = 1;
  if (!stream.is_none()) {
    ACC_CHECK(nb::isinstance<nb::int_>(stream), ValueError, "__dlpack__: stream must be an integer or None");
    handle = nb::cast<std::int64_t>(stream);
  }
  if (handle == -1) return;
  ACC_CHECK(handle > 0, ValueError, "__dlpack__: stream {} is not a stream handle", handle);
  ReleaseGil unlocked;
  device_interface(t.device()).order_before_foreign_stream(t.device().index, Stream::compute,
                                                           static_cast<std::uintptr_t>(handle));
}

nb::object dlpack(const Tensor& t, nb::handle stream, nb::handle max_version, nb::handle dl_device,
                  nb::handle copy) {
  ACC_CHECK(stream.is_none() || t.device().kind != DeviceKind::cpu, ValueError,
            "__dlpack__: stream must be None for a cpu tensor");
  if (!dl_device.is_none()) {
    const auto requested = nb::cast<std::pair<int, int>>(dl_device);
    const DLDevice own = dlpack_device_of(t);
    // The DLPack Python specification asks for BufferError when the export cannot be done.
    if (requested.first != own.device_type || requested.second != own.device_id) {
      throw nb::buffer_error(fmt::format("__dlpack__: export to device ({}, {}) is not supported; the tensor "
                                         "lives on {}",
                                         requested.first, requested.second, t.device().str())
                                 .c_str());
    }
  }
  const bool must_copy = !copy.is_none() && nb::cast<bool>(copy);
  const Tensor source = must_copy ? t.clone() : t;
  order_for_consumer(source, stream);
  bool versioned = false;
  if (!max_version.is_none()) versioned = nb::cast<std::pair<int, int>>(max_version).first >= 1;
  if (!versioned && is_read_only_export(source)) {
    throw nb::buffer_error("__dlpack__: this tensor is read-only (borrowed from a read-only producer, or a "
                           "broadcast view); the legacy DLPack protocol cannot say so: ask for max_version=(1, 0)");
  }
  PyObject* capsule = to_dlpack_capsule(source, versioned, must_copy);
  if (capsule == nullptr) throw nb::python_error();
  return nb::steal(capsule);
}

}  // namespace

void bind_tensor(nb::module_& m) {
  // dynamic_attr: accelera.autograd keeps a tensor's gradient state (requires_grad, grad, the node that
  // made it) on the Python object, so tensors that never take part in autograd pay nothing for it.
  nb::class_<Tensor>(m, "Tensor", "An n-dimensional array on one device (see accelera.asarray).",
                     nb::dynamic_attr())
      .def_prop_ro("shape", &shape_tuple)
      .def_prop_ro("_dtype", [](const Tensor& t) { return std::string(dtype_name(t.dtype())); })
      .def_prop_ro("device", [](const Tensor& t) { return t.device().str(); })
      .def_prop_ro("ndim", &Tensor::ndim)
      .def_prop_ro("size", &Tensor::numel)
      .def_prop_ro("itemsize", &Tensor::itemsize)
      .def_prop_ro("nbytes", &Tensor::nbytes)
      .def_prop_ro("T", &Tensor::T)
      .def("__len__",
           [](const Tensor& t) {
             ACC_CHECK(t.ndim() > 0, DTypeError, "len() of a 0-d tensor");
             return t.shape()[0];
           })
      .def("is_contiguous", &Tensor::is_contiguous)
      .def("contiguous", &Tensor::contiguous)
      .def("clone", &Tensor::clone)
      .def("_astype", [](const Tensor& t, const std::string& name) { return t.astype(dtype_from_name(name)); })
      .def("_to", [](const Tensor& t, const std::string& device) { return t.to(Device::parse(device)); },
           nb::arg("device"), nb::call_guard<ReleaseGil>())
      .def("transpose",
           [](const Tensor& t, nb::args axes) {
             if (axes.size() == 0) return t.T();
             const auto dims = axes.size() == 1 ? as_dims(axes[0], "axes") : as_dims(axes, "axes");
             return t.permute(dims);
           })
      .def("reshape",
           [](const Tensor& t, nb::args dims) {
             return t.reshape(dims.size() == 1 ? as_dims(dims[0], "shape") : as_dims(dims, "shape"));
           })
      .def("__getitem__", &getitem, nb::arg("key").none())
      .def("shares_memory", &Tensor::shares_storage_with)
      .def("__dlpack__", &dlpack, nb::kw_only(), nb::arg("stream") = nb::none(),
           nb::arg("max_version") = nb::none(), nb::arg("dl_device") = nb::none(), nb::arg("copy") = nb::none())
      .def("__dlpack_device__",
           [](const Tensor& t) {
             const DLDevice d = dlpack_device_of(t);
             return std::make_pair(d.device_type, d.device_id);
           })
      .def("__repr__", &Tensor::str);

  m.def("_from_dlpack_capsule", [](nb::handle capsule) { return from_dlpack_capsule(capsule.ptr()); });
  // PyTorch tensors that share Accelera's memory through DLPack are freed by PyTorch at interpreter exit,
  // after this module's objects are gone; nanobind would report them as leaks.
  m.def("_quiet_exit_report", []() { nb::set_leak_warnings(false); });
  m.def(
      "_dlpack_stream",
      [](const std::string& device) {
        const Device d = Device::parse(device);
        return static_cast<std::uint64_t>(device_interface(d).native_stream(d.index, Stream::compute));
      },
      nb::arg("device"));
  m.def(
      "_full",
      [](nb::handle shape, double value, const std::string& dtype, const std::string& device) {
        return full(Shape(as_dims(shape, "shape")), value, dtype_from_name(dtype), Device::parse(device));
      },
      nb::arg("shape"), nb::arg("value"), nb::arg("dtype"), nb::arg("device"));
  m.def(
      "_full_complex",
      [](nb::handle shape, double real, double imag, const std::string& dtype, const std::string& device) {
        return full(Shape(as_dims(shape, "shape")), std::complex<double>(real, imag), dtype_from_name(dtype),
                    Device::parse(device));
      },
      nb::arg("shape"), nb::arg("real"), nb::arg("imag"), nb::arg("dtype"), nb::arg("device"));
  m.def(
      "_expand_copy",
      [](const Tensor& scalar, nb::handle shape) {
        return scalar.broadcast_to(Shape(as_dims(shape, "shape"))).clone();
      },
      nb::arg("scalar"), nb::arg("shape"));
  m.def(
      "_empty",
      [](nb::handle shape, const std::string& dtype, const std::string& device) {
        return Tensor::empty(Shape(as_dims(shape, "shape")), dtype_from_name(dtype), Device::parse(device));
      },
      nb::arg("shape"), nb::arg("dtype"), nb::arg("device"));
}

}  // namespace accelera::python
