#pragma once
// Note [Kernel table]
// Every op's kernels are found through one table keyed by (op name, device kind). An op declares the
// signature its kernels share once, as an OpSchema (src/ops/<op>.hpp); each backend's file of the same
// name (src/backends/<kind>/<op>.{cpp,cu}) registers its kernel for the dtypes it computes when the
// library loads; the op (src/ops/<op>.cpp) validates its inputs once and calls kernel_for() once. A
// missing (op, device, dtype) is a NotSupportedError naming all three, never a silent fallback. The
// schema's address is stored with each entry, so a kernel registered under a name with another signature
// is caught at registration (an internal error) instead of being called through the wrong type.
// The table is filled during static initialisation and read concurrently afterwards; accelera info --ops
// and docs/ops.md print it (accelera/op_table.hpp).
//
// Note [Kernel observers]
// A profiler can ask to see every kernel the ops run (accelera::nn::GpuProfiler with record_ops).
// kernel_for returns a KernelCall: while nothing observes, it calls the kernel (the price is one relaxed
// atomic load per call); while something does, it waits for the device's queue before and after the
// kernel, so the interval between is the kernel's own time on OpenCL and CUDA too (the queue is serialised
// meanwhile: profile to see where time goes, not to measure peak throughput), and hands the op's name, the
// device and the interval to every observer. A kernel that runs other ops' kernels (a CPU matmul zeroing
// its output, an OpenCL FFT scaling its result) reports those as well, inside its own interval.
#include <chrono>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "accelera/core/device.hpp"
#include "accelera/core/dtype.hpp"

namespace accelera {

// A set of dtypes (a bit mask over DType).
class DTypeSet {
 public:
  constexpr DTypeSet() = default;
  constexpr DTypeSet(std::initializer_list<DType> dtypes) {
    for (DType d : dtypes) m_bits |= bit(d);
  }
  constexpr bool contains(DType d) const noexcept { return (m_bits & bit(d)) != 0; }
  constexpr bool empty() const noexcept { return m_bits == 0; }
  constexpr DTypeSet operator|(DTypeSet other) const noexcept { return from_bits(m_bits | other.m_bits); }
  constexpr DTypeSet operator&(DTypeSet other) const noexcept { return from_bits(m_bits & other.m_bits); }
  constexpr bool operator==(const DTypeSet&) const = default;
  // In DType order.
  std::vector<DType> list() const;

 private:
  static constexpr std::uint32_t bit(DType d) { return std::uint32_t{1} << static_cast<unsigned>(d); }
  static constexpr DTypeSet from_bits(std::uint32_t bits) {
    DTypeSet s;
    s.m_bits = bits;
    return s;
  }
  std::uint32_t m_bits = 0;
};

namespace dtypes {
inline constexpr DTypeSet floating{DType::f32, DType::f64};
inline constexpr DTypeSet half{DType::f16, DType::bf16};
inline constexpr DTypeSet signed_integers{DType::i8, DType::i16, DType::i32, DType::i64};
inline constexpr DTypeSet unsigned_integers{DType::u8, DType::u16, DType::u32, DType::u64};
inline constexpr DTypeSet integers = signed_integers | unsigned_integers;
inline constexpr DTypeSet arithmetic = floating | integers;
// The real dtypes and bool: kernels of complex tensors are registered with `complex` named.
inline constexpr DTypeSet all = floating | half | integers | DTypeSet{DType::boolean};
inline constexpr DTypeSet complex{DType::c64, DType::c128};
}  // namespace dtypes

// An op's name in the table and the signature of its kernels.
template <typename Fn>
struct OpSchema {
  std::string_view name;
};

namespace detail {

using ErasedKernel = void (*)();

// Adds the kernel of (op, kind); a second registration of the same pair, or one under another schema, is
// an internal error (thrown at load time, so every test run sees it).
bool add_kernel(std::string_view op, const void* schema, DeviceKind kind, DTypeSet dtypes, ErasedKernel kernel);
// The kernel of `op` for `device` and `dtype`. Throws DeviceError when the device is absent and
// NotSupportedError, naming the op, the device and the dtype, when no kernel runs there.
ErasedKernel find_kernel(std::string_view op, const void* schema, const Device& device, DType dtype);
// The dtypes registered for (op, kind); nullopt when there is no kernel.
std::optional<DTypeSet> registered_dtypes(std::string_view op, DeviceKind kind);

}  // namespace detail

template <typename Fn>
bool register_kernel(const OpSchema<Fn>& schema, DeviceKind kind, DTypeSet dtypes, Fn* kernel) {
  return detail::add_kernel(schema.name, &schema, kind, dtypes, reinterpret_cast<detail::ErasedKernel>(kernel));
}

// One kernel run, as observers see it (Note [Kernel observers]).
struct KernelEvent {
  std::string_view op;
  Device device;
  std::chrono::steady_clock::time_point start, stop;
};
using KernelObserver = std::function<void(const KernelEvent&)>;

// Registers an observer for as long as the object lives. Observers are called from the thread that ran
// the kernel, possibly from several threads at once, and must neither run kernels nor create or destroy a
// KernelObservation (the registry's lock is held while they run). A kernel run inside another kernel (a
// nested op) is reported inside the outer one's interval: op times are inclusive.
class KernelObservation {
 public:
  explicit KernelObservation(KernelObserver observer);
  ~KernelObservation();
  KernelObservation(const KernelObservation&) = delete;
  KernelObservation& operator=(const KernelObservation&) = delete;

 private:
  std::uint64_t m_id;
};

namespace detail {
bool kernels_observed() noexcept;
// Waits for the device's queue (nothing on the CPU) and returns the time after.
std::chrono::steady_clock::time_point settle(const Device& device);
void report_kernel(const KernelEvent& event);
}  // namespace detail

// A kernel of the table, bound to the op's name and device so that observers can be told of its runs.
template <typename Fn>
class KernelCall;
template <typename R, typename... Args>
class KernelCall<R(Args...)> {
 public:
  KernelCall(R (*kernel)(Args...), std::string_view op, const Device& device)
      : m_kernel(kernel), m_op(op), m_device(device) {}

  R operator()(Args... args) const {
    if (!detail::kernels_observed()) return m_kernel(std::forward<Args>(args)...);
    const auto start = detail::settle(m_device);
    if constexpr (std::is_void_v<R>) {
      m_kernel(std::forward<Args>(args)...);
      detail::report_kernel({m_op, m_device, start, detail::settle(m_device)});
    } else {
      R result = m_kernel(std::forward<Args>(args)...);
      detail::report_kernel({m_op, m_device, start, detail::settle(m_device)});
      return result;
    }
  }

 private:
  R (*m_kernel)(Args...);
  std::string_view m_op;
  Device m_device;
};

template <typename Fn>
KernelCall<Fn> kernel_for(const OpSchema<Fn>& schema, const Device& device, DType dtype) {
  return {reinterpret_cast<Fn*>(detail::find_kernel(schema.name, &schema, device, dtype)), schema.name, device};
}

}  // namespace accelera

#define ACC_CONCAT_INNER(a, b) a##b
#define ACC_CONCAT(a, b) ACC_CONCAT_INNER(a, b)
// ACC_REGISTER_KERNELS { register_kernel(...); ... } — the body runs once when the library loads.
#define ACC_REGISTER_KERNELS                                                                          \
  static void ACC_CONCAT(acc_register_kernels_, __LINE__)();                                          \
  [[maybe_unused]] static const bool ACC_CONCAT(acc_kernels_registered_, __LINE__) =                  \
      (ACC_CONCAT(acc_register_kernels_, __LINE__)(), true);                                           \
  static void ACC_CONCAT(acc_register_kernels_, __LINE__)()
