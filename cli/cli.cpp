#include "cli.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

#include "accelera/accelera.hpp"
#include "commands.hpp"

namespace accelera::cli {

int run(int argc, char** argv) {
  CLI::App app{"Accelera: large matrix and neural-network computations on any CPU or GPU", "accelera"};
  app.set_version_flag("--version", std::string(ACCELERA_VERSION));
  app.require_subcommand(0, 1);

  InfoOptions info;
  auto* info_cmd = app.add_subcommand("info", "Show the version, compiled backends and devices");
  info_cmd->add_flag("--json", info.json, "Print as JSON");

  DemoOptions demo;
  auto* demo_cmd = app.add_subcommand("demo", "Multiply two random matrices, verify the result, report GFLOP/s");
  demo_cmd->add_option("-n,--size", demo.size, "Matrix size n (n x n times n x n)")->check(CLI::Range(1, 1 << 20));
  demo_cmd->add_option("--dtype", demo.dtype, "float32 or float64");
  demo_cmd->add_option("--device", demo.device, "Device, e.g. cpu, cuda:0 (default: the best present)");
  demo_cmd->add_option("-r,--repeat", demo.repeat, "Timed runs")->check(CLI::Range(1, 1000));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    if (*info_cmd) return run_info(info);
    if (*demo_cmd) return run_demo(demo);
    std::cerr << app.help();
    return 1;  // nothing to do: usage on stderr, as for any other usage error
  } catch (const Error& e) {
    std::cerr << "accelera: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace accelera::cli
