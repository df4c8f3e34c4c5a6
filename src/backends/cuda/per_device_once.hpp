#pragma once
// std::call_once per device: for settings that the CUDA runtime keeps per device, such as a kernel's
// attributes (cudaFuncSetAttribute applies to the current device only). Free of CUDA headers, so it is
// tested where no GPU is.
#include <map>
#include <mutex>
#include <utility>

namespace accelera::cuda {

class PerDeviceOnce {
 public:
  // Runs `f` unless it has already returned normally for `device`; concurrent callers for one device
  // wait for the one running it. When `f` throws, the exception propagates and a later call runs it again.
  template <typename F>
  void run(int device, F&& f) {
    std::once_flag* flag = nullptr;
    {
      std::lock_guard lock(m_mutex);
      flag = &m_flags[device];  // map nodes stay where they are
    }
    std::call_once(*flag, std::forward<F>(f));
  }

 private:
  std::mutex m_mutex;
  std::map<int, std::once_flag> m_flags;
};

}  // namespace accelera::cuda
