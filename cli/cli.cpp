#include "cli.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>
#include <optional>
#include <string_view>

#include "accelera/accelera.hpp"
#include "accelera/core/size.hpp"
#include "commands.hpp"

namespace accelera::cli {

namespace {

// A size such as 2GB, checked while the command line is read so that the message says what is wrong with it.
const CLI::Validator kSize(
    [](std::string& text) -> std::string {
      if (text.empty()) return "the value is empty: give a size such as 512MB or 2GB";
      try {
        parse_size(text);
      } catch (const ValueError& error) {
        return error.what();  // handed to CLI11, which reports it with the option's name
      }
      return {};
    },
    "SIZE");

// A chunking strategy, checked by the library's own parser: its names, its message.
const CLI::Validator kStrategy(
    [](std::string& text) -> std::string {
      try {
        parse_chunking_strategy(text);
      } catch (const ValueError& error) {
        return error.what();
      }
      return {};
    },
    "STRATEGY");

// "Output tiles: row, tile or adaptive (default)", from the library's list of strategies.
std::string strategy_help(std::string_view fallback) {
  std::string help = "Output tiles: ";
  for (std::size_t i = 0; i < kChunkingStrategies.size(); ++i) {
    const std::string_view name = strategy_name(kChunkingStrategies[i]);
    if (i > 0) help += i + 1 == kChunkingStrategies.size() ? " or " : ", ";
    help += fmt::format("{}{}", name, name == fallback ? " (default)" : "");
  }
  return help;
}

// CLI11 reads "--budget=" as an option still waiting for its value and takes the next argument as that
// value ("--budget= --device cpu" sets the budget to "--device"). No option here may be empty, so such an
// argument is reported as what it is.
std::optional<std::string> empty_option_value(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;  // positional arguments follow
    if (arg.size() > 3 && arg.starts_with("--") && arg.ends_with("=") && arg.find('=') == arg.size() - 1) {
      const std::string_view name = arg.substr(0, arg.size() - 1);
      return fmt::format("the value of {} is empty: write {}=VALUE or {} VALUE, or leave the option out", name, name,
                         name);
    }
  }
  return std::nullopt;
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"Accelera: large matrix and neural-network computations on any CPU or GPU", "accelera"};
  app.set_version_flag("--version", std::string(ACCELERA_VERSION));
  app.require_subcommand(0, 1);
  app.footer("Training: accelera train --help (a command of the Python package, which installs this one)");

  InfoOptions info;
  auto* info_cmd = app.add_subcommand("info", "Show the version, compiled backends and devices");
  info_cmd->add_flag("--json", info.json, "Print as JSON");
  info_cmd->add_flag("--ops", info.ops, "Print which ops run on which devices, in which dtypes");
  info_cmd->add_flag("--markdown", info.markdown, "With --ops: print the table as Markdown (docs/ops.md)");

  DemoOptions demo;
  auto* demo_cmd = app.add_subcommand("demo", "Multiply two random matrices, verify the result, report GFLOP/s");
  demo_cmd->add_option("-n,--size", demo.size, "Matrix size n (n x n times n x n)")->check(CLI::Range(1, 1 << 20));
  demo_cmd->add_option("--dtype", demo.dtype, "float32 or float64");
  demo_cmd->add_option("--device", demo.device, "Device, e.g. cpu, cuda:0 (default: the best present)");
  demo_cmd
      ->add_option("--budget", demo.budget, "Device memory for the streamed run, e.g. 64MB (default: 1/8 of A and B)")
      ->check(kSize);
  demo_cmd->add_option("-r,--repeat", demo.repeat, "Timed streamed runs")->check(CLI::Range(1, 1000));
  demo_cmd->add_flag("-q,--quiet", demo.quiet, "No progress bar");

  MatmulOptions mm;
  auto* mm_cmd = app.add_subcommand("matmul", "C = A @ B for .npy files, streamed from and to disk through a device");
  mm_cmd->add_option("a", mm.a, "A (M x K), a float32 or float64 .npy file")->required();
  mm_cmd->add_option("b", mm.b, "B (K x N), a .npy file of the same dtype")->required();
  mm_cmd->add_option("-o,--out", mm.out, "Where to write C (M x N) as .npy")->required();
  auto* mm_device =
      mm_cmd->add_option("--device", mm.device, "Device, e.g. cpu, opencl:0, cuda:0 (default: the best present)");
  mm_cmd
      ->add_option("--devices", mm.devices,
                   "Share the tiles among several devices: 'all' (every GPU and OpenCL device) or a list such as "
                   "cuda:0,cuda:1")
      ->excludes(mm_device);
  mm_cmd->add_flag("--include-cpu", mm.include_cpu, "With --devices: the CPU takes tiles too");
  mm_cmd->add_option("--budget", mm.budget, "Device memory to use, e.g. 2GB (default: the device's budget)")
      ->check(kSize);
  mm_cmd->add_option("--strategy", mm.strategy, strategy_help(mm.strategy))->check(kStrategy);
  mm_cmd->add_flag("-q,--quiet", mm.quiet, "No progress bar");

  if (const auto problem = empty_option_value(argc, argv)) {
    std::cerr << "accelera: error: " << *problem << "\n";
    return 1;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    if (*info_cmd) return info.ops ? run_info_ops(info.markdown) : run_info(info);
    if (*demo_cmd) return run_demo(demo);
    if (*mm_cmd) return run_matmul(mm);
    std::cerr << app.help();
    return 1;  // nothing to do: usage on stderr, as for any other usage error
  } catch (const Error& e) {
    std::cerr << "accelera: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace accelera::cli
