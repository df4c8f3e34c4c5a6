#pragma once
#include <nanobind/nanobind.h>

namespace accelera::python {
namespace nb = nanobind;

void bind_errors(nb::module_& m);
void bind_tensor(nb::module_& m);
void bind_ops(nb::module_& m);
void bind_nn(nb::module_& m);
void bind_devices(nb::module_& m);
void bind_cli(nb::module_& m);
void bind_kernels(nb::module_& m);
void bind_engine(nb::module_& m);
void bind_chunks(nb::module_& m);
void bind_op_table(nb::module_& m);
void bind_interrupt(nb::module_& m);
void bind_views(nb::module_& m);
void bind_random(nb::module_& m);
void bind_sort(nb::module_& m);
void bind_linalg(nb::module_& m);
void bind_transfers(nb::module_& m);

}  // namespace accelera::python
