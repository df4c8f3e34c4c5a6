#pragma once
// The accelera command line, callable from the standalone program and from the Python package's
// console script alike.
namespace accelera::cli {
int run(int argc, char** argv);
}  // namespace accelera::cli
