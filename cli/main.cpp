#include "cli.hpp"

int main(int argc, char** argv) { return accelera::cli::run(argc, argv); }
