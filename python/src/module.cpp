#include "accelera/version.hpp"
#include "bindings.hpp"

NB_MODULE(_core, m) {
  using namespace accelera::python;
  m.doc() = "Accelera's C++ core";
  m.attr("__version__") = ACCELERA_VERSION;
  bind_errors(m);
  bind_tensor(m);
  bind_ops(m);
  bind_nn(m);
  bind_devices(m);
  bind_cli(m);
  bind_kernels(m);
  bind_engine(m);
  bind_chunks(m);
  bind_op_table(m);
  bind_interrupt(m);
  bind_views(m);
  bind_random(m);
  bind_sort(m);
  bind_linalg(m);
  bind_transfers(m);
}
