// KernelManager and compiled user kernels.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "accelera/accelera.hpp"
#include "bindings.hpp"
#include "release_gil.hpp"

namespace accelera::python {

namespace {

// Python ints are passed as C `int` (int32) and floats as C `float`, the types user kernels declare most;
// NumPy scalars keep their exact type (np.int64 -> long, np.float64 -> double).
KernelArg to_kernel_arg(nb::handle value, std::size_t index) {
  if (nb::isinstance<Tensor>(value)) return nb::cast<Tensor>(value);
  if (nb::isinstance<nb::bool_>(value)) {
    throw ValueError(fmt::format("kernel argument {}: pass a bool as an int", index));
  }
  if (nb::hasattr(value, "dtype") && nb::hasattr(value, "item") && nb::hasattr(value, "shape") &&
      nb::len(nb::object(value.attr("shape"))) == 0) {
    const std::string dt = nb::cast<std::string>(value.attr("dtype").attr("name"));
    if (dt == "int32") return nb::cast<std::int32_t>(value.attr("item")());
    if (dt == "int64") return nb::cast<std::int64_t>(value.attr("item")());
    if (dt == "float32") return nb::cast<float>(value.attr("item")());
    if (dt == "float64") return nb::cast<double>(value.attr("item")());
    throw DTypeError(fmt::format("kernel argument {}: scalars of dtype {} are not passed to kernels "
                                 "(use int32, int64, float32 or float64)", index, dt));
  }
  if (nb::isinstance<nb::int_>(value)) {
    const auto v = nb::cast<std::int64_t>(value);
    ACC_CHECK(v >= INT32_MIN && v <= INT32_MAX, ValueError,
              "kernel argument {}: {} does not fit a C int; pass numpy.int64({}) for a long", index, v, v);
    return static_cast<std::int32_t>(v);
  }
  if (nb::isinstance<nb::float_>(value)) return nb::cast<float>(value);
  throw ValueError(fmt::format("kernel argument {}: expected an accelera Tensor on the kernel's device or a "
                               "scalar, got {}", index, nb::cast<std::string>(nb::repr(value.type()))));
}

LaunchSize to_size(nb::handle value, const char* what) {
  if (value.is_none()) return LaunchSize{0, 0, 0};
  if (nb::isinstance<nb::int_>(value)) return LaunchSize{nb::cast<std::int64_t>(value), 1, 1};
  const auto dims = nb::cast<std::vector<std::int64_t>>(value);
  ACC_CHECK(!dims.empty() && dims.size() <= 3, ValueError, "{} must be an int or 1 to 3 ints", what);
  LaunchSize size;
  size.x = dims[0];
  if (dims.size() > 1) size.y = dims[1];
  if (dims.size() > 2) size.z = dims[2];
  return size;
}

void launch(CompiledKernel& kernel, nb::sequence args, nb::handle global_size, nb::handle local_size) {
  ACC_CHECK(!global_size.is_none(), ValueError, "global_size is required");
  std::vector<KernelArg> converted;
  std::size_t i = 0;
  for (nb::handle a : args) converted.push_back(to_kernel_arg(a, i++));
  const LaunchSize global = to_size(global_size, "global_size");
  LaunchSize local = to_size(local_size, "local_size");
  if (!local_size.is_none() && nb::isinstance<nb::int_>(local_size)) {
    // A 1-D local size goes with a global size of any rank: the other dimensions get 1.
    local.y = 1;
    local.z = 1;
  }
  ReleaseGil release;
  kernel.launch(converted, global, local);
}

}  // namespace

void bind_kernels(nb::module_& m) {
  nb::class_<CompiledKernel>(m, "CompiledKernel", "A user kernel built for one device.")
      .def_prop_ro("name", &CompiledKernel::name)
      .def_prop_ro("device", [](const CompiledKernel& k) { return k.device().str(); })
      .def("launch", &launch, nb::arg("args"), nb::arg("global_size"), nb::arg("local_size") = nb::none(),
           "Enqueue the kernel on its device. global_size counts work-items (threads) per dimension and is "
           "rounded up to a multiple of local_size (None: the driver chooses on OpenCL, 256 on CUDA).")
      .def("__repr__",
           [](const CompiledKernel& k) { return fmt::format("CompiledKernel('{}', {})", k.name(), k.device().str()); });

  nb::class_<KernelManager>(m, "KernelManager",
                            "Compiles user kernels at run time (OpenCL C, CUDA C++ through NVRTC), cached on "
                            "disk under ACCELERA_KERNEL_CACHE.")
      .def(
          "__init__",
          [](KernelManager* self, std::optional<std::string> device) {
            std::optional<Device> d;
            if (device) d = Device::parse(*device);
            new (self) KernelManager(d);
          },
          nb::arg("device") = nb::none())
      .def(
          "compile_kernel",
          [](KernelManager& self, const std::string& name, const std::string& source, const std::string& backend,
             const std::string& options) {
            ReleaseGil release;
            return self.compile_kernel(name, source, backend, options);
          },
          nb::arg("name"), nb::arg("source"), nb::arg("backend"), nb::arg("options") = "",
          "Build `source` for the backend ('opencl' or 'cuda') and return the kernel `name` in it. A compile "
          "error raises ArgumentError carrying the compiler's log.")
      .def(
          "launch",
          [](KernelManager& self, const std::string& name, nb::sequence args, nb::handle global_size,
             nb::handle local_size) { launch(*self.get(name), args, global_size, local_size); },
          nb::arg("name"), nb::arg("args"), nb::arg("global_size"), nb::arg("local_size") = nb::none())
      .def("get", &KernelManager::get, nb::arg("name"))
      .def_prop_ro("compiled_kernels", &KernelManager::compiled_kernels);

  m.def("_kernel_cache_stats", []() {
    const auto s = kernel_cache_stats();
    nb::dict d;
    d["hits"] = s.hits;
    d["misses"] = s.misses;
    d["rejected"] = s.rejected;
    d["stores"] = s.stores;
    d["store_failures"] = s.store_failures;
    return d;
  });
}

}  // namespace accelera::python
