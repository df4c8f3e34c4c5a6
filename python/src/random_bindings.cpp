// The Philox random ops, take/take_along_axis and put. Arguments arrive checked by accelera/random.py and
// accelera/_ops.py (shapes as lists, dtypes and devices as names, seeds and counters in range).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "accelera/accelera.hpp"
#include "bindings.hpp"
#include "release_gil.hpp"

namespace accelera::python {

void bind_random(nb::module_& m) {
  m.def("_random_blocks", [](std::int64_t numel) { return random_blocks(numel); });
  m.def(
      "_random_uniform",
      [](const std::vector<std::int64_t>& shape, const std::string& dtype, const std::string& device,
         std::uint64_t seed, std::uint64_t offset, double low, double high) {
        return random_uniform(Shape(shape), dtype_from_name(dtype), Device::parse(device), seed, offset, low, high);
      },
      nb::arg("shape"), nb::arg("dtype"), nb::arg("device"), nb::arg("seed"), nb::arg("offset"), nb::arg("low"),
      nb::arg("high"), nb::call_guard<ReleaseGil>());
  m.def(
      "_random_normal",
      [](const std::vector<std::int64_t>& shape, const std::string& dtype, const std::string& device,
         std::uint64_t seed, std::uint64_t offset, double loc, double scale) {
        return random_normal(Shape(shape), dtype_from_name(dtype), Device::parse(device), seed, offset, loc, scale);
      },
      nb::arg("shape"), nb::arg("dtype"), nb::arg("device"), nb::arg("seed"), nb::arg("offset"), nb::arg("loc"),
      nb::arg("scale"), nb::call_guard<ReleaseGil>());
  m.def(
      "_random_integers",
      [](const std::vector<std::int64_t>& shape, const std::string& dtype, const std::string& device,
         std::int64_t low, std::int64_t high, bool endpoint, std::uint64_t seed, std::uint64_t offset) {
        return random_integers(Shape(shape), dtype_from_name(dtype), Device::parse(device), low, high, endpoint, seed,
                               offset);
      },
      nb::arg("shape"), nb::arg("dtype"), nb::arg("device"), nb::arg("low"), nb::arg("high"), nb::arg("endpoint"),
      nb::arg("seed"), nb::arg("offset"), nb::call_guard<ReleaseGil>());
  m.def(
      "_random_permutation",
      [](std::int64_t n, const std::string& device, std::uint64_t seed, std::uint64_t offset) {
        return random_permutation(n, Device::parse(device), seed, offset);
      },
      nb::arg("n"), nb::arg("device"), nb::arg("seed"), nb::arg("offset"), nb::call_guard<ReleaseGil>());
  m.def(
      "take",
      [](const Tensor& x, const Tensor& indices, std::optional<std::int64_t> axis) { return take(x, indices, axis); },
      nb::arg("x"), nb::arg("indices"), nb::arg("axis").none() = nb::none(), nb::call_guard<ReleaseGil>());
  m.def(
      "take_along_axis",
      [](const Tensor& x, const Tensor& indices, std::int64_t axis) { return take_along_axis(x, indices, axis); },
      nb::arg("x"), nb::arg("indices"), nb::arg("axis"), nb::call_guard<ReleaseGil>());
  m.def("put", &put, nb::arg("x"), nb::arg("indices"), nb::arg("values"), nb::arg("axis"),
        nb::call_guard<ReleaseGil>());
}

}  // namespace accelera::python
