// accelera._core._stage_upload, _stage_download and _Transfer: host <-> device copies that overlap the
// device's compute, for the offload runtime's parallel map.
// Note [Staged transfers]
// An upload copies the caller's array into a pinned staging buffer at once (so the caller may change or free
// the array as soon as the call returns) and enqueues the device copy on the upload stream. The upload stream
// first waits for the compute work queued so far, because the new tensor may reuse a cached block that
// earlier kernels still read or write (the CUDA backend adds the same wait itself, Note [CUDA memory and
// streams]; OpenCL has no such guard). The compute stream is made to wait for the upload when the tensor is
// first handed out (.tensor or .result()), not when the upload is staged, so ops launched on the tensor see
// the data with no host wait, while the compute work launched in between does not wait for the upload. A
// map that stages item i + 1, then takes item i's tensor and launches its work, therefore overlaps the upload
// of item i + 1 with the compute of item i. (Making the compute stream wait at staging time would order
// item i's work, launched after it, behind item i + 1's upload.)
// A download makes the download stream wait for the compute work queued so far (which includes the work
// that made the tensor) and enqueues the copy into pinned staging, so it overlaps the compute launched after
// it. The tensor must not be written in place until the download is done.
// A _Transfer owns its staging buffer and the device tensor the copy reads or writes until the copy's event
// has completed: dropping it early waits for the copy (never free memory a DMA may still use); the buffer
// then goes back to a pool for the next transfers (staging_pool.hpp says why). A download's
// bytes are copied out of staging into a host tensor that NumPy then shares, rather than handing NumPy the
// pinned buffer: pinned memory is scarce, and an array may outlive the device runtime.
// On the CPU device the copies run at once, with no staging, so callers need no special case.
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#include "accelera/core/device_interface.hpp"
#include "accelera/core/error.hpp"
#include "accelera/core/registry.hpp"
#include "accelera/core/tensor.hpp"
#include "bindings.hpp"
#include "dlpack.hpp"
#include "release_gil.hpp"
#include "staging_pool.hpp"

namespace accelera::python {

namespace {

Tensor host_view(void* data, const Shape& shape, DType dtype) {
  return Tensor::from_blob(data, shape, shape.contiguous_strides(), dtype, Device::cpu(), [] {});
}

class Transfer {
 public:
  // `copied`: the contiguous device tensor the copy reads or writes; `event`: recorded after the copy, null
  // when nothing was enqueued; `host`: a download's bytes when they are already on the host.
  Transfer(DeviceInterface& api, bool download, Tensor tensor, Tensor copied, std::unique_ptr<HostBuffer> staging,
           EventPtr event, Tensor host = Tensor())
      : m_api(api),
        m_download(download),
        m_tensor(std::move(tensor)),
        m_copied(std::move(copied)),
        m_staging(std::move(staging)),
        m_event(std::move(event)),
        m_host(std::move(host)) {}
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;

  ~Transfer() {
    if (!m_event && !m_staging) return;
    try {
      if (PyGILState_Check() != 0) {
        ReleaseGil unlocked;
        finish();
      } else {
        finish();
      }
    } catch (const std::exception& error) {  // a destructor cannot throw: Python's rule for __del__ applies
      const std::string message = "_Transfer: waiting for its copy failed: " + std::string(error.what());
      if (PyGILState_Check() != 0) {
        PyErr_SetString(PyExc_RuntimeError, message.c_str());
        PyErr_WriteUnraisable(nullptr);
      } else {
        std::fprintf(stderr, "%s\n", message.c_str());
      }
    }
  }

  bool download() const noexcept { return m_download; }
  const Tensor& peek() const noexcept { return m_tensor; }
  // The tensor; an upload's is handed out once the compute stream waits for the upload (see the Note).
  const Tensor& tensor() {
    if (!m_download && m_event && !m_compute_waits) {
      m_api.stream_wait(m_tensor.device().index, Stream::compute, *m_event);
      m_compute_waits = true;
    }
    return m_tensor;
  }
  bool done() const { return !m_event || m_event->query(); }
  void wait() const {
    if (m_event) m_event->synchronize();
  }
  // Waits for the copy, then gives the staging buffer back for reuse.
  void finish() {
    wait();
    if (m_staging) StagingPool::instance().release(m_api, m_tensor.device().index, std::move(m_staging));
  }

  // A download's bytes as a host tensor, copied out of staging once (whose pinned memory then goes back).
  Tensor host_result() {
    std::lock_guard lock(m_mutex);
    if (!m_host.defined()) {
      wait();
      Tensor host = Tensor::empty(m_copied.shape(), m_copied.dtype(), Device::cpu());
      if (host.nbytes() > 0) std::memcpy(host.data_ptr(), m_staging->data(), host.nbytes());
      finish();
      m_host = std::move(host);
    }
    return m_host;
  }

 private:
  DeviceInterface& m_api;
  bool m_download;
  bool m_compute_waits = false;
  Tensor m_tensor;  // the uploaded tensor, or the download's source
  Tensor m_copied;
  std::unique_ptr<HostBuffer> m_staging;
  EventPtr m_event;
  Tensor m_host;
  std::mutex m_mutex;  // result() runs without the GIL, perhaps in two threads at once
};

// Frees a staging buffer only after the copies enqueued on `stream` have completed, when enqueueing failed
// after a copy from or to it may have started.
template <typename Enqueue>
void enqueue_guarded(DeviceInterface& api, int index, Stream stream, Enqueue&& enqueue) {
  try {
    enqueue();
  } catch (...) {
    try {
      api.synchronize_stream(index, stream);
    } catch (...) {  // the first error is the one to report; this one is its consequence
    }
    throw;
  }
}

std::unique_ptr<Transfer> stage_upload(const Tensor& host, const Device& device) {
  DeviceInterface& api = device_interface(device);
  Tensor tensor = Tensor::empty(host.shape(), host.dtype(), device);
  if (device.is_cpu() || tensor.numel() == 0) {
    if (tensor.numel() > 0) copy_into(host, tensor);
    return std::make_unique<Transfer>(api, false, tensor, tensor, nullptr, nullptr);
  }
  auto staging = StagingPool::instance().acquire(api, device.index, tensor.nbytes());
  copy_into(host, host_view(staging->data(), host.shape(), host.dtype()));
  EventPtr uploaded;
  enqueue_guarded(api, device.index, Stream::upload, [&] {
    api.stream_wait(device.index, Stream::upload, *api.record_event(device.index, Stream::compute));
    api.copy_from_host_async(tensor, staging->data(), Stream::upload);
    uploaded = api.record_event(device.index, Stream::upload);
  });
  return std::make_unique<Transfer>(api, false, tensor, tensor, std::move(staging), std::move(uploaded));
}

std::unique_ptr<Transfer> stage_download(const Tensor& source) {
  ACC_CHECK(source.defined(), ValueError, "_stage_download: the tensor is undefined");
  ACC_CHECK(source.dtype() != DType::bf16, DTypeError, "NumPy has no bfloat16: convert first with .astype('float32')");
  const Device device = source.device();
  DeviceInterface& api = device_interface(device);
  if (device.is_cpu() || source.numel() == 0) {
    Tensor host = Tensor::empty(source.shape(), source.dtype(), Device::cpu());
    if (source.numel() > 0) copy_into(source, host);
    return std::make_unique<Transfer>(api, true, source, source, nullptr, nullptr, host);
  }
  Tensor copied = source.contiguous();  // a copy kernel on the compute stream when a view is strided
  auto staging = StagingPool::instance().acquire(api, device.index, copied.nbytes());
  EventPtr downloaded;
  enqueue_guarded(api, device.index, Stream::download, [&] {
    api.stream_wait(device.index, Stream::download, *api.record_event(device.index, Stream::compute));
    api.copy_to_host_async(staging->data(), copied, Stream::download);
    downloaded = api.record_event(device.index, Stream::download);
  });
  return std::make_unique<Transfer>(api, true, source, copied, std::move(staging), std::move(downloaded));
}

constexpr const char* kNumpyDtypes[] = {"float32", "float64", "float16", "int8",   "int16",     "int32",     "int64",
                                        "uint8",   "uint16",  "uint32",  "uint64", "bool", "complex64", "complex128"};

// A CPU tensor viewing a NumPy array's memory (any strides), as accelera.asarray makes it.
Tensor host_tensor_of(nb::handle array) {
  nb::module_ np = nb::module_::import_("numpy");
  nb::object arr = nb::borrow(array);
  if (nb::isinstance(array, np.attr("generic"))) {
    arr = np.attr("asarray")(array);  // a NumPy scalar: its 0-d array
  } else if (!nb::isinstance(array, np.attr("ndarray"))) {
    throw DTypeError(fmt::format("_stage_upload expects a NumPy array, not {}", nb::type_name(array.type()).c_str()));
  }
  nb::object dtype = arr.attr("dtype");
  const auto name = nb::cast<std::string>(dtype.attr("name"));
  if (std::find(std::begin(kNumpyDtypes), std::end(kNumpyDtypes), name) == std::end(kNumpyDtypes)) {
    throw DTypeError(
        fmt::format("NumPy dtype {} is not supported: Accelera takes float16/32/64, int8/16/32/64, "
                    "uint8/16/32/64, bool and complex64/128 arrays (convert with .astype)",
                    nb::str(dtype).c_str()));
  }
  if (!nb::cast<bool>(dtype.attr("isnative"))) arr = arr.attr("astype")(dtype.attr("newbyteorder")("="));
  nb::object capsule;
  try {
    capsule = arr.attr("__dlpack__")(nb::arg("max_version") = nb::make_tuple(1, 0));
  } catch (nb::python_error& error) {
    // NumPy refuses to export strides that are not a multiple of the item size: a packed copy is exported.
    if (!error.matches(PyExc_BufferError)) throw;
    arr = np.attr("ascontiguousarray")(arr);
    capsule = arr.attr("__dlpack__")(nb::arg("max_version") = nb::make_tuple(1, 0));
  }
  return from_dlpack_capsule(capsule.ptr());
}

Device parse_device(nb::handle device) {
  if (!PyUnicode_Check(device.ptr())) {
    throw ValueError(
        fmt::format("device must be a string such as 'cpu' or 'cuda:0', got {}", nb::type_name(device.type()).c_str()));
  }
  return Device::parse(nb::cast<std::string>(device));
}

}  // namespace

void bind_transfers(nb::module_& m) {
  nb::class_<Transfer>(m, "_Transfer",
                       "A host <-> device copy in flight (Note [Staged transfers]). Keeps its staging buffer and "
                       "tensor until the copy is done; dropping it waits for the copy.")
      .def_prop_ro(
          "tensor", [](Transfer& t) { return t.tensor(); },
          "The new device tensor of an upload, or the source tensor of a download.")
      .def_prop_ro("kind", [](const Transfer& t) { return t.download() ? "download" : "upload"; })
      .def("done", &Transfer::done, "Whether the copy has completed (never waits).")
      .def("wait", &Transfer::wait, nb::call_guard<ReleaseGil>(), "Blocks until the copy has completed.")
      .def(
          "result",
          [](Transfer& t) -> nb::object {
            if (!t.download()) {
              {
                ReleaseGil unlocked;
                t.wait();
              }
              return nb::cast(t.tensor());
            }
            Tensor host;
            {
              ReleaseGil unlocked;
              host = t.host_result();
            }
            return nb::module_::import_("numpy").attr("from_dlpack")(nb::cast(host));
          },
          "Waits for the copy; an upload's device tensor, or a download's bytes as a new NumPy array.")
      .def("__repr__", [](const Transfer& t) {
        return fmt::format("_Transfer({}, {})", t.download() ? "download" : "upload", t.peek().str());
      });

  m.def(
      "_stage_upload",
      [](nb::handle array, nb::handle device) {
        const Device target = parse_device(device);
        const Tensor host = host_tensor_of(array);
        ReleaseGil unlocked;
        return stage_upload(host, target);
      },
      nb::arg("array"), nb::arg("device"),
      "Starts copying a NumPy array to a new tensor on `device`, without waiting; the array may be changed as "
      "soon as this returns. Ops launched on the transfer's .tensor see the data; compute work launched "
      "before .tensor is first read does not wait for the copy.");
  m.def(
      "_stage_download",
      [](nb::handle tensor) {
        if (!nb::isinstance<Tensor>(tensor)) {
          throw DTypeError(
              fmt::format("_stage_download expects a Tensor, not {}", nb::type_name(tensor.type()).c_str()));
        }
        const Tensor source = nb::cast<Tensor>(tensor);
        ReleaseGil unlocked;
        return stage_download(source);
      },
      nb::arg("tensor"),
      "Starts copying a tensor to the host after the compute work queued so far, without waiting; result() "
      "gives the NumPy array.");
}

}  // namespace accelera::python
