// ChunkStream (accelera.chunking.ChunkIterator wraps this one).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "accelera/chunk_stream.hpp"
#include "bindings.hpp"
#include "release_gil.hpp"

namespace accelera::python {

using ChunkTuple = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>;  // row0, rows, col0, cols

void bind_chunks(nb::module_& m) {
  nb::class_<ChunkStream>(m, "_ChunkStream")
      .def(
          "__init__",
          [](ChunkStream* self, const Tensor& source, const std::vector<ChunkTuple>& chunks, const std::string& device,
             bool prefetch, std::optional<Tensor> out) {
            std::vector<ChunkRegion> regions;
            regions.reserve(chunks.size());
            for (const auto& [row0, rows, col0, cols] : chunks) regions.push_back({row0, rows, col0, cols});
            new (self) ChunkStream(source, std::move(regions), Device::parse(device), prefetch, std::move(out));
          },
          nb::arg("source"), nb::arg("chunks"), nb::arg("device"), nb::arg("prefetch"), nb::arg("out").none())
      .def("next", [](ChunkStream& s) { return s.next(); }, nb::call_guard<ReleaseGil>())
      .def("write", [](ChunkStream& s, const Tensor& result) { s.write(result); }, nb::call_guard<ReleaseGil>())
      .def("finish", [](ChunkStream& s) { s.finish(); }, nb::call_guard<ReleaseGil>())
      .def_prop_ro("index", [](const ChunkStream& s) { return s.index(); })
      .def_prop_ro("size", [](const ChunkStream& s) { return s.size(); })
      .def_prop_ro("device", [](const ChunkStream& s) { return s.device().str(); })
      .def_prop_ro("stats", [](const ChunkStream& s) {
        const ChunkStreamStats& st = s.stats();
        nb::dict d;
        d["chunks"] = st.chunks;
        d["bytes_host_to_device"] = st.bytes_host_to_device;
        d["bytes_device_to_host"] = st.bytes_device_to_host;
        d["staged_chunks"] = st.staged_chunks;
        d["peak_device_bytes"] = st.peak_device_bytes;
        d["seconds"] = st.seconds;
        return d;
      });
}

}  // namespace accelera::python
