// OpenCL backend against its anchors on the same device, in one run:
//   - matmul through Accelera vs raw CLBlast (same device, own context, no Accelera code in the loop),
//     and raw CLBlast with a few Xgemm parameter sets given through clblast::OverrideParameters;
//   - element-wise add and exp vs the device's own buffer-to-buffer copy bandwidth;
//   - host<->device copies from pinned (CL_MEM_ALLOC_HOST_PTR) and pageable host memory.
// Usage: accelera_opencl_bench [n=2048] [elements=16777216] [--tune]
#include <clblast.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "accelera/accelera.hpp"
#include "backends/opencl/opencl_interface.hpp"
#include "ops/elementwise.hpp"

namespace {

using accelera::Device;
using accelera::DeviceKind;
using accelera::DType;
using accelera::Shape;
using accelera::Tensor;
using accelera::opencl::ClDevice;
using accelera::opencl::OpenClInterface;

double best_seconds(const std::function<void()>& run, int repeat) {
  run();  // warm-up: kernel builds, first-touch of buffers
  double best = 1e30;
  for (int i = 0; i < repeat; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

void check_blast(clblast::StatusCode status, const char* what) {
  if (status != clblast::StatusCode::kSuccess) {
    std::fprintf(stderr, "%s failed: CLBlast status %d\n", what, static_cast<int>(status));
    std::exit(1);
  }
}

// Raw CLBlast sgemm on the device's context and compute queue, C = A B, row-major n x n.
double raw_clblast_seconds(ClDevice& d, cl_mem a, cl_mem b, cl_mem c, std::size_t n, int repeat) {
  cl_command_queue queue = d.compute();
  return best_seconds(
      [&] {
        check_blast(clblast::Gemm<float>(clblast::Layout::kRowMajor, clblast::Transpose::kNo, clblast::Transpose::kNo,
                                         n, n, n, 1.0f, a, 0, n, b, 0, n, 0.0f, c, 0, n, &queue, nullptr),
                    "raw Gemm");
        clFinish(queue);
      },
      repeat);
}

using Params = std::unordered_map<std::string, std::size_t>;

Params xgemm_params(std::size_t mwg, std::size_t nwg, std::size_t kwg, std::size_t mdimc, std::size_t ndimc,
                    std::size_t vwm, std::size_t vwn, std::size_t sa, std::size_t sb) {
  return {{"GEMMK", 0}, {"KREG", 1},     {"KWG", kwg},     {"KWI", 2}, {"MDIMA", mdimc}, {"MDIMC", mdimc},
          {"MWG", mwg}, {"NDIMB", ndimc}, {"NDIMC", ndimc}, {"NWG", nwg}, {"SA", sa},     {"SB", sb},
          {"STRM", 0},  {"STRN", 0},     {"VWM", vwm},     {"VWN", vwn}};
}

std::string describe(const Params& p) {
  return "MWG=" + std::to_string(p.at("MWG")) + " NWG=" + std::to_string(p.at("NWG")) +
         " KWG=" + std::to_string(p.at("KWG")) + " MDIMC=" + std::to_string(p.at("MDIMC")) +
         " NDIMC=" + std::to_string(p.at("NDIMC")) + " VWM=" + std::to_string(p.at("VWM")) +
         " VWN=" + std::to_string(p.at("VWN")) + " SA=" + std::to_string(p.at("SA")) +
         " SB=" + std::to_string(p.at("SB"));
}

// A device copy of host floats.
Tensor to_device(std::vector<float>& host, const Shape& shape, const Device& device) {
  return Tensor::from_blob(host.data(), shape, shape.contiguous_strides(), DType::f32, Device::cpu(), [] {}).to(device);
}

cl_mem device_buffer(ClDevice& d, std::size_t bytes, const void* init) {
  cl_int status = CL_SUCCESS;
  cl_mem m = clCreateBuffer(d.context, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                            const_cast<void*>(init), &status);
  ACC_CL_CHECK(status, "creating a benchmark buffer");
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t n = 2048;
  std::int64_t elements = 1 << 24;
  bool tune = false;
  int positional = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--tune") == 0) {
      tune = true;
    } else if (positional++ == 0) {
      n = std::stoul(argv[i]);
    } else {
      elements = std::stoll(argv[i]);
    }
  }
  const Device device{DeviceKind::opencl, 0};
  auto& backend = dynamic_cast<OpenClInterface&>(accelera::device_interface(device));
  ClDevice& d = backend.device(0);
  std::printf("device: opencl:0 = %s (%s, driver %s), %d compute units\n\n", d.name.c_str(), d.platform_name.c_str(),
              d.driver_version.c_str(), d.compute_units);

  std::mt19937 rng(0);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> host(n * n);
  for (auto& v : host) v = dist(rng);
  const double gflop = 2.0 * static_cast<double>(n) * n * n / 1e9;

  // matmul: Accelera vs raw CLBlast, alternating so that drift hits both.
  cl_mem ra = device_buffer(d, n * n * 4, host.data()), rb = device_buffer(d, n * n * 4, host.data());
  cl_mem rc = device_buffer(d, n * n * 4, nullptr);
  const auto sn = static_cast<std::int64_t>(n);
  const Tensor ta = to_device(host, Shape({sn, sn}), device);
  const Tensor tb = ta.clone();
  // CLBlast's defaults first: Accelera's first matmul installs its parameters for PoCL (Note [CLBlast tuning
  // for PoCL]), after which raw CLBlast on this device uses them too.
  const double raw_default = raw_clblast_seconds(d, ra, rb, rc, n, 2);
  Tensor tc;
  double ours = 1e30, raw = 1e30;
  for (int round = 0; round < 2; ++round) {
    ours = std::min(ours, best_seconds(
                              [&] {
                                tc = accelera::matmul(ta, tb);
                                backend.synchronize(0);
                              },
                              2));
    raw = std::min(raw, raw_clblast_seconds(d, ra, rb, rc, n, 2));
  }
  std::printf("| case | GFLOP/s | ratio |\n| --- | ---: | ---: |\n");
  std::printf("| raw CLBlast sgemm %zu, CLBlast's default parameters | %.1f | %.2fx |\n", n, gflop / raw_default,
              raw / raw_default);
  std::printf("| raw CLBlast sgemm %zu, parameters as Accelera installs them | %.1f | 1.00x |\n", n, gflop / raw);
  std::printf("| Accelera matmul %zu f32 on opencl:0 | %.1f | %.2fx |\n", n, gflop / ours, raw / ours);

  if (tune) {
    const std::vector<Params> candidates = {
        xgemm_params(64, 64, 32, 8, 8, 4, 4, 0, 0),    xgemm_params(128, 128, 32, 16, 16, 4, 4, 0, 0),
        xgemm_params(64, 64, 16, 16, 16, 4, 4, 0, 0),  xgemm_params(128, 64, 32, 8, 8, 8, 4, 0, 0),
        xgemm_params(64, 128, 32, 8, 8, 4, 8, 0, 0),   xgemm_params(64, 64, 32, 8, 8, 4, 4, 1, 1),
        xgemm_params(128, 128, 16, 8, 8, 8, 8, 0, 0),  xgemm_params(32, 32, 32, 8, 8, 2, 2, 0, 0),
    };
    for (const auto& p : candidates) {
      check_blast(clblast::OverrideParameters(d.id, "Xgemm", clblast::Precision::kSingle, p), "OverrideParameters");
      const double t = raw_clblast_seconds(d, ra, rb, rc, n, 2);
      std::printf("| raw CLBlast sgemm %zu, %s | %.1f | %.2fx |\n", n, describe(p).c_str(), gflop / t, raw / t);
    }
  }
  clReleaseMemObject(ra);
  clReleaseMemObject(rb);
  clReleaseMemObject(rc);

  // Element-wise vs the device's copy bandwidth (clEnqueueCopyBuffer: read + write).
  std::vector<float> xs(static_cast<std::size_t>(elements)), ys(xs.size());
  for (auto& v : xs) v = dist(rng);
  for (auto& v : ys) v = dist(rng);
  const Shape shape({elements});
  const Tensor x = to_device(xs, shape, device);
  const Tensor y = to_device(ys, shape, device);
  Tensor z = Tensor::empty(shape, DType::f32, device);
  const double bytes = static_cast<double>(elements) * 4;
  const double gib = 1024.0 * 1024 * 1024;
  const double copy_s = best_seconds(
      [&] {
        ACC_CL_CHECK(clEnqueueCopyBuffer(d.compute(), accelera::opencl::buffer_of(x), accelera::opencl::buffer_of(z), 0,
                                         0, static_cast<std::size_t>(bytes), 0, nullptr, nullptr),
                     "copy");
        backend.synchronize(0);
      },
      5);
  const double add_s = best_seconds(
      [&] {
        accelera::kernel_for(accelera::op::add, device, DType::f32)(x, y, z);
        backend.synchronize(0);
      },
      5);
  const double exp_s = best_seconds(
      [&] {
        accelera::kernel_for(accelera::op::exp, device, DType::f32)(x, z);
        backend.synchronize(0);
      },
      5);
  const double copy_bw = 2 * bytes / gib / copy_s;
  std::printf("\n| case (%lld float32) | GiB/s | of device copy bandwidth |\n| --- | ---: | ---: |\n",
              static_cast<long long>(elements));
  std::printf("| device copy (clEnqueueCopyBuffer) | %.1f | 100%% |\n", copy_bw);
  std::printf("| add | %.1f | %.0f%% |\n", 3 * bytes / gib / add_s, 100 * (3 * bytes / gib / add_s) / copy_bw);
  std::printf("| exp | %.1f | %.0f%% |\n", 2 * bytes / gib / exp_s, 100 * (2 * bytes / gib / exp_s) / copy_bw);

  // Host <-> device: pinned staging vs pageable memory.
  auto pinned = backend.allocate_host(0, static_cast<std::size_t>(bytes));
  std::memcpy(pinned->data(), xs.data(), static_cast<std::size_t>(bytes));
  const double h2d_pageable = best_seconds([&] { backend.copy_from_host(z, xs.data()); }, 5);
  const double h2d_pinned = best_seconds([&] { backend.copy_from_host(z, pinned->data()); }, 5);
  const double d2h_pageable = best_seconds([&] { backend.copy_to_host(ys.data(), z); }, 5);
  const double d2h_pinned = best_seconds([&] { backend.copy_to_host(pinned->data(), z); }, 5);
  std::printf("\n| copy | pageable GiB/s | pinned GiB/s |\n| --- | ---: | ---: |\n");
  std::printf("| host -> device | %.1f | %.1f |\n", bytes / gib / h2d_pageable, bytes / gib / h2d_pinned);
  std::printf("| device -> host | %.1f | %.1f |\n", bytes / gib / d2h_pageable, bytes / gib / d2h_pinned);
  return 0;
}
