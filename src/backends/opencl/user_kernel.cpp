// User kernels built at run time (KernelManager.compile_kernel(name, source, "opencl")).
#include <vector>

#include "backends/opencl/opencl_interface.hpp"
#include "backends/opencl/programs.hpp"
#include "core/log.hpp"

namespace accelera::opencl {

namespace {

class ClUserKernel final : public CompiledKernel {
 public:
  ClUserKernel(ClDevice& device, Device where, std::string name, cl_program program, cl_kernel kernel)
      : m_device(device), m_where(where), m_name(std::move(name)), m_program(program), m_kernel(kernel) {
    ACC_CL_CHECK(clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof(m_num_args), &m_num_args, nullptr),
                 "counting the arguments of kernel " + m_name);
  }
  ~ClUserKernel() override {
    clReleaseKernel(m_kernel);
    clReleaseProgram(m_program);
  }
  ClUserKernel(const ClUserKernel&) = delete;
  ClUserKernel& operator=(const ClUserKernel&) = delete;

  const std::string& name() const noexcept override { return m_name; }
  Device device() const noexcept override { return m_where; }

  void launch(std::span<const KernelArg> args, LaunchSize global, LaunchSize local) override {
    ACC_CHECK(args.size() == m_num_args, ValueError, "kernel {} takes {} arguments, {} were given", m_name,
              m_num_args, args.size());
    // One launch at a time per kernel object: its arguments are state of the cl_kernel.
    std::lock_guard lock(m_mutex);
    std::vector<cl_mem> sub_buffers;
    struct Release {
      std::vector<cl_mem>& buffers;
      ~Release() {
        for (cl_mem b : buffers) clReleaseMemObject(b);  // the queue keeps them alive while in use
      }
    } release{sub_buffers};
    for (cl_uint i = 0; i < m_num_args; ++i) set_argument(i, args[i], sub_buffers);

    const std::int64_t g[3] = {global.x, global.y, global.z};
    const std::int64_t l[3] = {local.x, local.y, local.z};
    const bool driver_chooses = l[0] == 0 && l[1] == 0 && l[2] == 0;
    cl_uint dims = 1;
    std::size_t global_size[3], local_size[3];
    for (int d = 0; d < 3; ++d) {
      ACC_CHECK(g[d] >= 1, ValueError, "kernel {}: global size must be >= 1 in every dimension", m_name);
      ACC_CHECK(driver_chooses || l[d] >= 1, ValueError,
                "kernel {}: local size must be >= 1 in every dimension (or all 0 to let the driver choose)", m_name);
      const std::int64_t lo = driver_chooses ? 1 : l[d];
      global_size[d] = static_cast<std::size_t>((g[d] + lo - 1) / lo * lo);
      local_size[d] = static_cast<std::size_t>(lo);
      if (g[d] > 1 || lo > 1) dims = static_cast<cl_uint>(d + 1);
    }
    ACC_CL_CHECK(clEnqueueNDRangeKernel(m_device.compute(), m_kernel, dims, nullptr, global_size,
                                        driver_chooses ? nullptr : local_size, 0, nullptr, nullptr),
                 "launching kernel " + m_name);
  }

 private:
  void set_argument(cl_uint i, const KernelArg& arg, std::vector<cl_mem>& sub_buffers) {
    cl_int status = CL_SUCCESS;
    if (const auto* t = std::get_if<Tensor>(&arg)) {
      ACC_CHECK(t->defined(), ValueError, "kernel {}: argument {} is an undefined tensor", m_name, i);
      ACC_CHECK(t->device() == m_where, DeviceError, "kernel {}: argument {} is on {}, the kernel runs on {}",
                m_name, i, t->device().str(), m_where.str());
      ACC_CHECK(t->is_contiguous(), ValueError,
                "kernel {}: argument {} is not contiguous; pass .contiguous() of it", m_name, i);
      cl_mem buffer = buffer_of(*t);
      if (t->offset() != 0) {
        cl_buffer_region region{static_cast<std::size_t>(t->offset()) * t->itemsize(),
                                std::max<std::size_t>(t->nbytes(), 1)};
        buffer = clCreateSubBuffer(buffer, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &status);
        ACC_CHECK(status != CL_MISALIGNED_SUB_BUFFER_OFFSET, ValueError,
                  "kernel {}: argument {} is a view at a byte offset the device cannot address; pass a copy "
                  "(.clone()) of it", m_name, i);
        ACC_CL_CHECK(status, "creating a sub-buffer for a kernel argument");
        sub_buffers.push_back(buffer);
      }
      status = clSetKernelArg(m_kernel, i, sizeof(cl_mem), &buffer);
    } else {
      status = std::visit(
          [&](const auto& value) -> cl_int {
            using V = std::decay_t<decltype(value)>;
            if constexpr (std::is_same_v<V, Tensor>) {
              return CL_INVALID_ARG_VALUE;
            } else {
              return clSetKernelArg(m_kernel, i, sizeof(V), &value);
            }
          },
          arg);
    }
    ACC_CHECK(status != CL_INVALID_ARG_SIZE, ValueError,
              "kernel {}: argument {} does not match the type the kernel declares (check int32/int64/float/double "
              "and that buffers are passed as tensors)", m_name, i);
    ACC_CL_CHECK(status, fmt::format("setting argument {} of kernel {}", i, m_name));
  }

  ClDevice& m_device;
  Device m_where;
  std::string m_name;
  cl_program m_program;
  cl_kernel m_kernel;
  cl_uint m_num_args = 0;
  std::mutex m_mutex;
};

}  // namespace

std::shared_ptr<CompiledKernel> OpenClInterface::compile_kernel(int index, const std::string& name,
                                                              const std::string& source, const std::string& options) {
  ClDevice& d = device(index);
  cl_program program = build_program(d, source, options, "kernel " + name, BuildFailure::user_error);
  cl_int status = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(program, name.c_str(), &status);
  if (status != CL_SUCCESS) {
    clReleaseProgram(program);
    ACC_CHECK(status != CL_INVALID_KERNEL_NAME, ValueError, "the source defines no kernel named '{}'", name);
    ACC_CL_CHECK(status, "creating kernel " + name);
  }
  return std::make_shared<ClUserKernel>(d, Device{DeviceKind::opencl, index}, name, program, kernel);
}

}  // namespace accelera::opencl
