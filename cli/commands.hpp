#pragma once
#include <string>

namespace accelera {
struct RunStats;
}

namespace accelera::cli {

struct InfoOptions {
  bool json = false;
  bool ops = false;       // the kernel table instead of the devices
  bool markdown = false;  // with ops: as docs/ops.md
};
int run_info(const InfoOptions& options);
int run_info_ops(bool markdown);

struct DemoOptions {
  long long size = 4096;
  std::string dtype = "float32";
  std::string device;  // empty: default_device()
  std::string budget;  // empty: an eighth of the operands
  int repeat = 1;
  bool quiet = false;
};
int run_demo(const DemoOptions& options);

struct MatmulOptions {
  std::string a, b, out;
  std::string device;   // empty: default_device()
  std::string devices;  // "all" or a comma-separated list; empty: one device
  bool include_cpu = false;
  std::string budget;  // empty: the device's budget
  std::string strategy = "adaptive";
  bool quiet = false;
};
int run_matmul(const MatmulOptions& options);
#ifdef ACCELERA_CLI_MPI
// Whether an MPI launcher (mpirun, srun) started this process; then matmul runs on every rank.
bool launched_by_mpi();
int run_matmul_mpi(const MatmulOptions& options);
#endif

// Prints a run's plan, traffic and fallbacks.
void print_run(const RunStats& run);

}  // namespace accelera::cli
