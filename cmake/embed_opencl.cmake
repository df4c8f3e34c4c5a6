# Writes OUTPUT: a C++ file defining accelera::opencl::embedded_source(name) over the .cl files SOURCES
# (separated by "|").
string(REPLACE "|" ";" SOURCES "${SOURCES}")
set(body "")
foreach(path IN LISTS SOURCES)
  get_filename_component(name "${path}" NAME_WE)
  file(READ "${path}" text)
  string(APPEND body "  if (name == \"${name}\") return R\"ACCELERA_CL(${text})ACCELERA_CL\";\n")
endforeach()
file(WRITE "${OUTPUT}.tmp" "// Generated from src/backends/opencl/kernels/*.cl; do not edit.
#include <string_view>

#include \"accelera/core/error.hpp\"

namespace accelera::opencl {

std::string_view embedded_source(std::string_view name) {
${body}  throw InternalError(fmt::format(\"no embedded OpenCL source named {}\", name));
}

}  // namespace accelera::opencl
")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
