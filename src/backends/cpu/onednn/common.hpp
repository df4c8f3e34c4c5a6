#pragma once
// What the oneDNN kernels share (compiled only in builds with oneDNN, ACCELERA_ONEDNN): the CPU engine,
// oneDNN's exceptions turned into ours, plain memory descriptors, and CallMemory, one call's memories with
// the reorders between our row-major tensors and the layouts a primitive asks for.
#include <fmt/format.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "accelera/core/error.hpp"
#include "accelera/core/tensor.hpp"

#if DNNL_VERSION_MAJOR != 2
#error "the oneDNN kernels are written against oneDNN 2.x (Debian 12's libdnnl-dev); configure with -DACCELERA_ONEDNN=OFF"
#endif

namespace accelera::cpu::onednn {

using dnnl::memory;
using Dims = memory::dims;

inline dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// Runs f, turning oneDNN's exceptions into ours: out of memory stays out of memory, anything else is a
// failure of the device's library.
template <typename F>
decltype(auto) onednn(const char* what, F&& f) {
  try {
    return f();
  } catch (const dnnl::error& e) {
    if (e.status == dnnl_out_of_memory) throw OutOfMemoryError(fmt::format("oneDNN {}: out of memory", what));
    throw DeviceError(fmt::format("oneDNN {} failed: {} (status {})", what, e.what(), static_cast<int>(e.status)));
  }
}

inline memory::desc plain(const Dims& dims, memory::format_tag tag) { return {dims, memory::data_type::f32, tag}; }
inline memory::desc any(const Dims& dims) { return {dims, memory::data_type::f32, memory::format_tag::any}; }

inline dnnl::primitive_attr user_scratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // scratch per call: primitives run concurrently
  return attr;
}

// The primitives of one shape, built once from `dims` (oneDNN compiles them for the running CPU) and kept by
// `key`. Training calls the same few shapes every step; the cache is bounded so that a sweep over many
// shapes cannot grow it without limit.
template <typename Plan, typename Key, typename PlanDims>
std::shared_ptr<const Plan> cached_plan(const Key& key, const PlanDims& dims, const char* what) {
  static std::mutex mutex;
  static std::map<Key, std::shared_ptr<const Plan>> plans;
  constexpr std::size_t kMaxPlans = 256;
  {
    std::lock_guard lock(mutex);
    if (auto it = plans.find(key); it != plans.end()) return it->second;
  }
  auto plan = onednn(what, [&] { return std::make_shared<const Plan>(dims); });
  std::lock_guard lock(mutex);
  if (plans.size() >= kMaxPlans) plans.clear();
  return plans.emplace(key, std::move(plan)).first->second;
}

// One call's oneDNN memories and the scratch tensors behind them, kept alive until the stream is done.
class CallMemory {
 public:
  CallMemory() : m_stream(cpu_engine()) {}

  // Our float32 tensor's memory as oneDNN memory of its plain layout `tag`.
  memory wrap(const Tensor& t, const Dims& dims, memory::format_tag tag) {
    return memory(plain(dims, tag), cpu_engine(), const_cast<float*>(t.data<float>()));
  }
  // Any tensor's bytes as oneDNN memory of `desc` (a workspace kept between calls).
  memory wrap_bytes(const Tensor& t, const memory::desc& desc) {
    return memory(desc, cpu_engine(), const_cast<void*>(t.data_ptr()));
  }
  // Memory of `desc` at `at` (a slice of a buffer the caller keeps alive).
  memory wrap_at(void* at, const memory::desc& desc) { return memory(desc, cpu_engine(), at); }
  // Uninitialised memory of `desc`, from the allocator.
  memory scratch(const memory::desc& desc) {
    const auto floats = static_cast<std::int64_t>((desc.get_size() + sizeof(float) - 1) / sizeof(float));
    m_tensors.push_back(Tensor::empty(Shape{std::max<std::int64_t>(floats, 1)}, DType::f32, Device::cpu()));
    return memory(desc, cpu_engine(), m_tensors.back().data<float>());
  }
  // `from` in the layout `desc`: itself when it already is, else a reordered copy.
  memory input(const memory& from, const memory::desc& desc) {
    if (from.get_desc() == desc) return from;
    memory source = from, to = scratch(desc);
    dnnl::reorder(source, to).execute(m_stream, source, to);
    return to;
  }
  // Where a primitive writes a result of layout `desc` that belongs in `user`: user itself when the layouts
  // agree, else scratch that finish_output() reorders into user.
  memory output(const memory& user, const memory::desc& desc) {
    return user.get_desc() == desc ? user : scratch(desc);
  }
  // As output(), zero-filled: for the results a primitive accumulates into.
  memory zeroed_output(const memory& user, const memory::desc& desc) {
    memory m = output(user, desc);
    std::memset(m.get_data_handle(), 0, m.get_desc().get_size());
    return m;
  }
  void finish_output(const memory& produced, const memory& user) {
    if (produced.get_data_handle() == user.get_data_handle()) return;
    memory source = produced, to = user;
    dnnl::reorder(source, to).execute(m_stream, source, to);
  }
  memory scratchpad(const memory::desc& desc) { return scratch(desc); }
  void run(const dnnl::primitive& p, const std::unordered_map<int, memory>& args) { p.execute(m_stream, args); }
  void wait() { m_stream.wait(); }

 private:
  dnnl::stream m_stream;
  std::vector<Tensor> m_tensors;
};

}  // namespace accelera::cpu::onednn
