// The `accelera` console script installed by pip runs the same command line as the C++ program.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <iostream>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "release_gil.hpp"
#include "accelera/core/size.hpp"
#include "cli.hpp"

namespace accelera::python {

void bind_cli(nb::module_& m) {
  m.def(
      "cli_main",
      [](std::vector<std::string> args) {
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        const int rc = accelera::cli::run(static_cast<int>(args.size()), argv.data());
        std::cout.flush();
        return rc;
      },
      nb::arg("argv"), nb::call_guard<ReleaseGil>());
  // Sizes such as "2GB" are read the same way by the command line and by MatrixEngine(memory_budget=...).
  m.def("_parse_size", [](const std::string& text) { return parse_size(text); }, nb::arg("text"));
}

}  // namespace accelera::python
