#pragma once
#include <string>

namespace accelera::cli {

struct InfoOptions {
  bool json = false;
};
int run_info(const InfoOptions& options);

struct DemoOptions {
  long long size = 2048;
  std::string dtype = "float32";
  std::string device;  // empty: default_device()
  int repeat = 3;
};
int run_demo(const DemoOptions& options);

}  // namespace accelera::cli
