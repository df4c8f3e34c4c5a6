// accelera._dist: accelera::dist for Python (accelera.distributed), a module of its own so that only
// programs that use it load MPI. Communicators come from mpi4py as Fortran handles (Comm.py2f()), which
// every MPI converts back with MPI_Comm_f2c: no build-time dependency on mpi4py's headers.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include "accelera/core/device.hpp"
#include "accelera/core/error.hpp"
#include "accelera/dist_matrix.hpp"

namespace nb = nanobind;

namespace {

using accelera::dist::DistributedMatrix;
using accelera::dist::ProcessGrid;

template <class T>
using HostMatrix = nb::ndarray<T, nb::numpy, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

nb::dict stats_dict(const accelera::dist::GemmStats& s) {
  nb::dict d;
  d["device"] = s.device;
  d["panels"] = s.panels;
  d["bytes_broadcast"] = s.bytes_broadcast;
  d["seconds"] = s.seconds;
  d["broadcast_seconds"] = s.broadcast_seconds;
  d["compute_seconds"] = s.compute_seconds;
  d["c_resident"] = s.c_resident;
  d["overlapped"] = s.overlapped;
  d["redistributed"] = s.redistributed;
  d["redistribute_seconds"] = s.redistribute_seconds;
  d["schedule"] = s.schedule;
  d["reduce_seconds"] = s.reduce_seconds;
  return d;
}

template <class T>
void bind_matrix(nb::module_& m, const char* name) {
  using Matrix = DistributedMatrix<T>;
  nb::class_<Matrix>(m, name)
      .def(nb::init<ProcessGrid, std::int64_t, std::int64_t, std::int64_t, std::int64_t>(), nb::arg("grid"),
           nb::arg("m"), nb::arg("n"), nb::arg("mb"), nb::arg("nb"), nb::call_guard<nb::gil_scoped_release>())
      .def_static(
          "scatter",
          [](const ProcessGrid& grid, std::optional<HostMatrix<T>> global, std::int64_t m, std::int64_t n,
             std::int64_t mb, std::int64_t nb_, int root) {
            const T* data = global ? global->data() : nullptr;
            nb::gil_scoped_release release;
            return Matrix::scatter(grid, data, m, n, mb, nb_, root);
          },
          nb::arg("grid"), nb::arg("global").none(), nb::arg("m"), nb::arg("n"), nb::arg("mb"), nb::arg("nb"),
          nb::arg("root"))
      .def(
          "gather_into",
          [](const Matrix& self, std::optional<HostMatrix<T>> out, int root) {
            T* data = out ? out->data() : nullptr;
            nb::gil_scoped_release release;
            self.gather(data, root);
          },
          nb::arg("out").none(), nb::arg("root"))
      .def(
          "local",
          [](nb::handle self_handle) {
            Matrix& self = nb::cast<Matrix&>(self_handle);
            const std::size_t shape[2] = {static_cast<std::size_t>(self.local_rows()),
                                          static_cast<std::size_t>(self.local_cols())};
            const std::int64_t strides[2] = {1, self.leading_dimension()};
            // A view of the local blocks, column-major; it keeps the matrix alive.
            return nb::ndarray<nb::numpy, T, nb::ndim<2>>(self.local_data(), 2, shape, self_handle, strides);
          })
      .def_prop_ro("rows", &Matrix::rows)
      .def_prop_ro("cols", &Matrix::cols)
      .def_prop_ro("row_block", &Matrix::row_block)
      .def_prop_ro("col_block", &Matrix::col_block)
      .def_prop_ro("descriptor",
                   [](const Matrix& self) {
                     const auto d = self.descriptor();
                     return nb::make_tuple(d.dtype, d.context, d.m, d.n, d.mb, d.nb, d.rsrc, d.csrc, d.lld);
                   })
      .def(
          "matmul",
          [](const Matrix& a, const Matrix& b, std::optional<std::string> device, std::optional<bool> overlap,
             std::optional<std::string> schedule) {
            accelera::dist::GemmOptions options;
            if (device) options.device = accelera::Device::parse(*device);
            using accelera::dist::Schedule;
            if (schedule) {
              if (*schedule != "summa" && *schedule != "split_k")
                throw accelera::ValueError("schedule must be 'summa' or 'split_k', got '" + *schedule + "'");
              options.schedule = *schedule == "summa" ? Schedule::summa : Schedule::split_k;
            }
            using accelera::dist::Overlap;
            options.overlap = !overlap ? Overlap::automatic : *overlap ? Overlap::always : Overlap::never;
            accelera::dist::GemmStats stats;
            std::optional<Matrix> c;
            {
              nb::gil_scoped_release release;
              c.emplace(accelera::dist::matmul(a, b, options, &stats));
            }
            return nb::make_tuple(std::move(*c), stats_dict(stats));
          },
          nb::arg("b"), nb::arg("device").none(), nb::arg("overlap").none(), nb::arg("schedule").none());
}

}  // namespace

NB_MODULE(_dist, m) {
  m.doc() = "accelera::dist (MPI): process grids and block-cyclic distributed matrices";
  nb::class_<ProcessGrid>(m, "ProcessGrid")
      .def_static(
          "of_fortran_comm",
          [](std::int64_t handle, int nprow, int npcol) {
            return ProcessGrid::of(MPI_Comm_f2c(static_cast<MPI_Fint>(handle)), nprow, npcol);
          },
          nb::arg("handle"), nb::arg("nprow"), nb::arg("npcol"))
      .def_ro("nprow", &ProcessGrid::nprow)
      .def_ro("npcol", &ProcessGrid::npcol)
      .def_ro("myrow", &ProcessGrid::myrow)
      .def_ro("mycol", &ProcessGrid::mycol);
  bind_matrix<double>(m, "Matrix64");
  bind_matrix<float>(m, "Matrix32");
  m.def("local_extent", &accelera::dist::local_extent, nb::arg("n"), nb::arg("nb"), nb::arg("iproc"), nb::arg("isrc"),
        nb::arg("nprocs"));
}
