// The kernel table as Python sees it: accelera.op_table() and accelera.supports().
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "accelera/accelera.hpp"
#include "bindings.hpp"

namespace accelera::python {

void bind_op_table(nb::module_& m) {
  m.def("_op_table", []() {
    nb::list out;
    for (const OpKernelInfo& entry : op_table()) {
      nb::dict d;
      d["op"] = entry.op;
      d["device_kind"] = std::string(device_kind_name(entry.kind));
      nb::list dtypes;
      for (DType dt : entry.dtypes) dtypes.append(std::string(dtype_name(dt)));
      d["dtypes"] = dtypes;
      out.append(d);
    }
    return out;
  });
  m.def(
      "_supports",
      [](const std::string& device, const std::string& op, const std::string& dtype) {
        return supports(Device::parse(device), op, dtype_from_name(dtype));
      },
      nb::arg("device"), nb::arg("op"), nb::arg("dtype"));
}

}  // namespace accelera::python
