// Compaction on OpenCL (mask_counts.cl, compress.cl; Note [Compaction] in ops/compress.hpp), in the
// CPU-device form or the work-group form (Note [OpenCL kernel forms]).
#include <algorithm>

#include "backends/opencl/programs.hpp"
#include "ops/compress.hpp"

namespace accelera::opencl {

namespace {

// The work-group of the GPU form: a power of two (the kernels' local trees and scans assume it).
std::size_t group_size(const ClDevice& d) {
  std::size_t size = 256;
  while (size > d.max_work_group) size /= 2;
  return size;
}

// Launches `chunks` chunks: an item each in the CPU form, a work-group each otherwise.
void launch_chunks(ClDevice& d, const Kernel& kernel, std::int64_t chunks, const char* what) {
  const auto count = static_cast<std::size_t>(chunks);
  if (d.cpu_forms) return launch(d, kernel, count, chunked_group_size(d, count), what);
  const std::size_t local = group_size(d);
  launch(d, kernel, count * local, local, what);
}

const char* form_option(const ClDevice& d) { return d.cpu_forms ? " -DCPU_FORM" : ""; }

void mask_counts_kernel(const Tensor& mask, std::int64_t chunk, const Tensor& counts) {
  ClDevice& d = cl_device(mask.device());
  const Kernel kernel = make_kernel(d, "mask_counts", form_option(d));
  KernelArgs(kernel.get())
      .add(static_cast<cl_long>(mask.numel()))
      .add(static_cast<cl_long>(chunk))
      .add(buffer_of(mask))
      .add(static_cast<cl_long>(mask.offset()))
      .add(buffer_of(counts))
      .add(static_cast<cl_long>(counts.offset()))
      .local(group_size(d) * sizeof(cl_long));
  launch_chunks(d, kernel, counts.numel(), "launching mask_counts");
}

void compress_kernel(const Tensor& x, const Tensor& mask, std::int64_t chunk, const Tensor& offsets,
                     const Tensor& out) {
  ClDevice& d = cl_device(mask.device());
  const std::string options =
      x.defined() ? fmt::format("-DVALUES -DT={}{}", bits_type(out.itemsize()), form_option(d)) : form_option(d);
  const Kernel kernel = make_kernel(d, "compress", options);
  // Positions read no x, but the argument still needs a valid buffer.
  const Tensor& source = x.defined() ? x : mask;
  KernelArgs(kernel.get())
      .add(static_cast<cl_long>(mask.numel()))
      .add(static_cast<cl_long>(chunk))
      .add(buffer_of(source))
      .add(static_cast<cl_long>(x.defined() ? x.offset() : 0))
      .add(buffer_of(mask))
      .add(static_cast<cl_long>(mask.offset()))
      .add(buffer_of(offsets))
      .add(static_cast<cl_long>(offsets.offset()))
      .add(buffer_of(out))
      .add(static_cast<cl_long>(out.offset()))
      .local(group_size(d) * sizeof(cl_int));
  launch_chunks(d, kernel, offsets.numel() - 1, "launching compress");
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::mask_counts, DeviceKind::opencl, DTypeSet{DType::boolean}, &mask_counts_kernel);
  register_kernel(op::compress, DeviceKind::opencl, dtypes::all, &compress_kernel);
}

}  // namespace accelera::opencl
