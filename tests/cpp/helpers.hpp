#pragma once
// Shared helpers of the C++ suite: random tensors and strided views of them, element access through
// strides()/data_ptr(), float64 reference evaluation with NumPy broadcasting, and per-dtype tolerances.
// Nothing here calls the library's own conversion or broadcasting code: the references are independent.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <random>
#include <stdexcept>
#include <sstream>
#include <string>
#include <vector>

#include "accelera/accelera.hpp"
#include "core/integer_dtypes.hpp"

// gtest prints shapes in failure messages through this (found by argument-dependent lookup).
namespace accelera {
inline void PrintTo(const Shape& s, std::ostream* os) { *os << s.str(); }
}  // namespace accelera

namespace acc_test {

using accelera::Device;
using accelera::DType;
using accelera::Shape;
using accelera::Tensor;
using Index = std::vector<std::int64_t>;

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

// ---- reference narrow-float formats (IEEE binary16 and bfloat16) -----------------------------------

struct NarrowFormat {
  int mant_bits;  // explicit mantissa bits
  int emin;       // exponent of the smallest normal
  int emax;       // exponent of the largest finite
};
inline constexpr NarrowFormat kHalf{10, -14, 15};
inline constexpr NarrowFormat kBF16{7, -126, 127};

// v rounded once, to nearest-even, to the format (overflow gives inf, underflow a signed zero).
inline double round_to_format(double v, NarrowFormat f) {
  if (std::isnan(v) || std::isinf(v) || v == 0.0) return v;
  const double a = std::fabs(v);
  int e = 0;
  std::frexp(a, &e);  // a in [2^(e-1), 2^e)
  const int ex = std::max(e - 1, f.emin);
  const double quantum = std::ldexp(1.0, ex - f.mant_bits);
  double r = std::nearbyint(a / quantum) * quantum;
  if (r >= std::ldexp(1.0, f.emax + 1)) r = kInf;
  return std::copysign(r, v);
}

inline double half_bits_to_double(std::uint16_t h) {
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = 0;
  if (e == 0x1f) {
    v = m != 0 ? kNaN : kInf;
  } else if (e == 0) {
    v = std::ldexp(static_cast<double>(m), -24);
  } else {
    v = std::ldexp(static_cast<double>(1024 + m), e - 25);
  }
  return (h & 0x8000) ? -v : v;
}

// Bits of a value that is exactly representable as a half (a result of round_to_format(., kHalf)).
inline std::uint16_t half_bits_of(double v) {
  const std::uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  if (std::isnan(v)) return sign | 0x7e00;
  const double a = std::fabs(v);
  if (std::isinf(a)) return sign | 0x7c00;
  if (a < std::ldexp(1.0, -14)) return sign | static_cast<std::uint16_t>(std::ldexp(a, 24));
  int e = 0;
  std::frexp(a, &e);
  const int ex = e - 1;
  return sign | static_cast<std::uint16_t>((ex + 15) << 10) |
         static_cast<std::uint16_t>(std::ldexp(a, 10 - ex) - 1024.0);
}

inline double bf16_bits_to_double(std::uint16_t b) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}
inline std::uint16_t bf16_bits_of(double v) {  // v exactly representable as bfloat16
  if (std::isnan(v)) return 0x7fc0;
  return static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(static_cast<float>(v)) >> 16);
}

// ---- element access ---------------------------------------------------------------------------------

// The helpers that read or write elements take host tensors only: a device tensor's data pointer is not
// host memory (move it with .to(Device::cpu()) first).
inline void require_host(const Tensor& t) {
  if (!t.device().is_cpu()) {
    throw std::invalid_argument("test helper: element access needs a CPU tensor, got one on " + t.device().str());
  }
}

inline std::byte* elem_ptr(const Tensor& t, const Index& idx) {
  require_host(t);
  std::int64_t off = 0;
  for (std::size_t i = 0; i < idx.size(); ++i) off += idx[i] * t.strides()[i];
  return static_cast<std::byte*>(t.data_ptr()) + off * static_cast<std::int64_t>(t.itemsize());
}

template <typename T>
T load_as(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// Element at a multi-index of any strided tensor, as a double.
inline double get(const Tensor& t, const Index& idx) {
  const std::byte* p = elem_ptr(t, idx);
  switch (t.dtype()) {
    case DType::f32: return load_as<float>(p);
    case DType::f64: return load_as<double>(p);
    case DType::f16: return half_bits_to_double(load_as<std::uint16_t>(p));
    case DType::bf16: return bf16_bits_to_double(load_as<std::uint16_t>(p));
#define ACC_TEST_GET(dt, type) \
  case dt: return static_cast<double>(load_as<type>(p));
    ACC_FOR_EACH_INTEGER_DTYPE(ACC_TEST_GET)
#undef ACC_TEST_GET
    case DType::boolean: return load_as<std::uint8_t>(p) != 0 ? 1.0 : 0.0;
  }
  return kNaN;
}

inline std::int64_t get_int(const Tensor& t, const Index& idx) {
  const std::byte* p = elem_ptr(t, idx);
  switch (t.dtype()) {
#define ACC_TEST_GET_INT(dt, type) \
  case dt: return static_cast<std::int64_t>(load_as<type>(p));
    ACC_FOR_EACH_INTEGER_DTYPE(ACC_TEST_GET_INT)
#undef ACC_TEST_GET_INT
    case DType::boolean: return load_as<std::uint8_t>(p) != 0;
    default: ADD_FAILURE() << "get_int on a floating tensor"; return 0;
  }
}

// An integral value (|v| < 2^63, or in [2^63, 2^64)) wrapped into integer type T, as a conversion of the
// int64 value (two's complement) does.
template <typename T>
T wrapped(double v) {
  if (v >= 0x1p63) return static_cast<T>(static_cast<std::uint64_t>(v));
  return static_cast<T>(static_cast<std::int64_t>(v));
}

// A reference value of an integer result, as the dtype holds it: integer arithmetic wraps as NumPy's does.
inline double wrap_to(DType dt, double v) {
  if (!std::isfinite(v) || std::fabs(v) >= 0x1p64) return v;
  switch (dt) {
#define ACC_TEST_WRAP(dt, type) \
  case dt: return static_cast<double>(wrapped<type>(v));
    ACC_FOR_EACH_INTEGER_DTYPE(ACC_TEST_WRAP)
#undef ACC_TEST_WRAP
    default: return v;
  }
}

// Writes v (rounded to the tensor's dtype; integers wrap as wrap_to does) at a multi-index.
inline void set(const Tensor& t, const Index& idx, double v) {
  std::byte* p = elem_ptr(t, idx);
  const auto put = [p](auto x) { std::memcpy(p, &x, sizeof(x)); };
  switch (t.dtype()) {
    case DType::f32: put(static_cast<float>(v)); break;
    case DType::f64: put(v); break;
    case DType::f16: put(half_bits_of(round_to_format(v, kHalf))); break;
    case DType::bf16: put(bf16_bits_of(round_to_format(v, kBF16))); break;
#define ACC_TEST_SET(dt, type) \
  case dt: put(wrapped<type>(v)); break;
    ACC_FOR_EACH_INTEGER_DTYPE(ACC_TEST_SET)
#undef ACC_TEST_SET
    case DType::boolean: put(static_cast<std::uint8_t>(v != 0.0)); break;
  }
}

inline void set_int(const Tensor& t, const Index& idx, std::int64_t v) {
  // Little-endian: the low bytes of the int64 are the wrapped narrower integer.
  std::memcpy(elem_ptr(t, idx), &v, t.itemsize());
}

// Calls f(index, linear) for every element in row-major order.
template <typename F>
void for_each_index(const Shape& shape, F&& f) {
  const std::int64_t n = shape.numel();
  Index idx(static_cast<std::size_t>(shape.ndim()), 0);
  for (std::int64_t lin = 0; lin < n; ++lin) {
    f(idx, lin);
    for (std::int64_t d = shape.ndim() - 1; d >= 0; --d) {
      if (++idx[static_cast<std::size_t>(d)] < shape[d]) break;
      idx[static_cast<std::size_t>(d)] = 0;
    }
  }
}

inline std::vector<double> values_of(const Tensor& t) {
  std::vector<double> v(static_cast<std::size_t>(t.numel()));
  for_each_index(t.shape(), [&](const Index& i, std::int64_t lin) { v[static_cast<std::size_t>(lin)] = get(t, i); });
  return v;
}

inline bool is_float(DType d) { return d == DType::f32 || d == DType::f64 || d == DType::f16 || d == DType::bf16; }

// ---- random inputs ----------------------------------------------------------------------------------

// Unsigned integers are drawn from [max(lo, 0), hi], so that references stay small and exact in double.
inline double random_value(DType dt, std::mt19937_64& rng, double lo, double hi) {
  if (is_float(dt)) return std::uniform_real_distribution<double>(lo, hi)(rng);
  if (dt == DType::boolean) return std::bernoulli_distribution(0.5)(rng) ? 1.0 : 0.0;
  if (accelera::is_unsigned(dt)) lo = std::max(lo, 0.0), hi = std::max(hi, lo);
  std::uniform_int_distribution<std::int64_t> dist(static_cast<std::int64_t>(std::ceil(lo)),
                                                   static_cast<std::int64_t>(std::floor(hi)));
  return static_cast<double>(dist(rng));
}

inline void fill_random(const Tensor& t, std::mt19937_64& rng, double lo, double hi) {
  for_each_index(t.shape(), [&](const Index& i, std::int64_t) { set(t, i, random_value(t.dtype(), rng, lo, hi)); });
}

// Contiguous random tensor; integers are drawn from [ceil(lo), floor(hi)].
inline Tensor random_tensor(const Shape& shape, DType dt, std::mt19937_64& rng, double lo = -1.0, double hi = 1.0) {
  Tensor t = Tensor::empty(shape, dt);
  fill_random(t, rng, lo, hi);
  return t;
}

// Fills a whole storage with a value that must never show up in results: nan for floats, a huge value
// for integers.
inline void poison(const Tensor& t) {
  const auto& s = t.storage();
  std::memset(s->data(), is_float(t.dtype()) ? 0xFF : 0x7F, s->nbytes());
}

// Leaves a few cached blocks of the size class of nbytes full of 0xFF, so that the next tensors of that
// size are likely to start as garbage (nan / -1) and any element an op forgets to write shows up.
inline void poison_cache(std::size_t nbytes) {
  if (nbytes == 0) return;
  std::vector<Tensor> blocks;
  for (int i = 0; i < 3; ++i) {
    blocks.push_back(Tensor::empty(Shape{static_cast<std::int64_t>(nbytes)}, DType::boolean));
    std::memset(blocks.back().data_ptr(), 0xFF, nbytes);
  }
}

enum class Layout { contiguous, transposed, step2, negstep, broadcast };
inline const char* layout_name(Layout l) {
  switch (l) {
    case Layout::contiguous: return "contiguous";
    case Layout::transposed: return "transposed";
    case Layout::step2: return "step2";
    case Layout::negstep: return "negstep";
    case Layout::broadcast: return "broadcast";
  }
  return "?";
}
inline constexpr Layout kAllLayouts[] = {Layout::contiguous, Layout::transposed, Layout::step2, Layout::negstep,
                                         Layout::broadcast};

// A random tensor of `shape` laid out as asked. Gaps of strided views hold poison.
//   transposed: .T() of a contiguous tensor of the reversed shape;
//   step2:      every axis sliced [1::2] out of a poisoned base of extent 2n+1;
//   negstep:    even axes sliced [::-2] (base 2n), odd axes [::-1];
//   broadcast:  broadcast_to (stride 0) from a base with some extents 1 and maybe fewer axes.
inline Tensor make_input(const Shape& shape, DType dt, Layout layout, std::mt19937_64& rng, double lo = -1.0,
                         double hi = 1.0) {
  const auto& d = shape.dims();
  switch (layout) {
    case Layout::contiguous: return random_tensor(shape, dt, rng, lo, hi);
    case Layout::transposed: {
      std::vector<std::int64_t> rev(d.rbegin(), d.rend());
      return random_tensor(Shape(rev), dt, rng, lo, hi).T();
    }
    case Layout::step2: {
      std::vector<std::int64_t> base_dims;
      for (auto n : d) base_dims.push_back(2 * n + 1);
      Tensor v = Tensor::empty(Shape(base_dims), dt);
      poison(v);
      for (std::int64_t i = 0; i < shape.ndim(); ++i) v = v.slice(i, 1, 2 * d[static_cast<std::size_t>(i)] + 1, 2);
      fill_random(v, rng, lo, hi);
      return v;
    }
    case Layout::negstep: {
      std::vector<std::int64_t> base_dims;
      for (std::size_t i = 0; i < d.size(); ++i) base_dims.push_back(i % 2 == 0 ? 2 * d[i] : d[i]);
      Tensor v = Tensor::empty(Shape(base_dims), dt);
      poison(v);
      for (std::int64_t i = 0; i < shape.ndim(); ++i) {
        v = v.slice(i, -1, std::numeric_limits<std::int64_t>::min(), i % 2 == 0 ? -2 : -1);
      }
      fill_random(v, rng, lo, hi);
      return v;
    }
    case Layout::broadcast: {
      std::vector<std::int64_t> base_dims;
      const std::size_t drop = (!d.empty() && std::bernoulli_distribution(0.5)(rng)) ? 1 : 0;
      for (std::size_t i = drop; i < d.size(); ++i) {
        base_dims.push_back(std::bernoulli_distribution(0.5)(rng) ? 1 : d[i]);
      }
      return random_tensor(Shape(base_dims), dt, rng, lo, hi).broadcast_to(shape);
    }
  }
  return {};
}

// ---- float64 references -----------------------------------------------------------------------------

// The expected values of a result in row-major order, and the magnitude its error is measured against
// (|value| by default; e.g. sum |a_k b_k| for a dot product).
struct Ref {
  Shape shape;
  std::vector<double> v;
  std::vector<double> mag;
};

// NumPy broadcasting, written out independently of accelera::broadcast_shapes. Returns false if the
// shapes do not broadcast.
inline bool ref_broadcast(const Shape& a, const Shape& b, Shape& out) {
  const std::int64_t n = std::max(a.ndim(), b.ndim());
  std::vector<std::int64_t> dims(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t ia = i - (n - a.ndim()), ib = i - (n - b.ndim());
    const std::int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    if (da != db && da != 1 && db != 1) return false;
    dims[static_cast<std::size_t>(i)] = da == 1 ? db : da;
  }
  out = Shape(dims);
  return true;
}

// Index into a tensor of shape `s` for an output index under broadcasting.
inline Index broadcast_index(const Index& out_idx, const Shape& s) {
  Index idx(static_cast<std::size_t>(s.ndim()));
  const std::size_t lead = out_idx.size() - idx.size();
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = s[static_cast<std::int64_t>(i)] == 1 ? 0 : out_idx[lead + i];
  return idx;
}

template <typename F>
Ref ref_unary(const Tensor& x, F&& f) {
  Ref r{x.shape(), {}, {}};
  for_each_index(x.shape(), [&](const Index& i, std::int64_t) { r.v.push_back(f(get(x, i))); });
  return r;
}

template <typename F>
Ref ref_binary(const Tensor& a, const Tensor& b, F&& f) {
  Ref r;
  if (!ref_broadcast(a.shape(), b.shape(), r.shape)) {
    ADD_FAILURE() << "reference: shapes do not broadcast";
    return r;
  }
  for_each_index(r.shape, [&](const Index& i, std::int64_t) {
    r.v.push_back(f(get(a, broadcast_index(i, a.shape())), get(b, broadcast_index(i, b.shape()))));
  });
  return r;
}

struct Tol {
  double rtol = 0, atol = 0;
};

// Element-wise tolerance of results computed in a dtype from exact inputs.
inline Tol tol_for(DType dt) {
  switch (dt) {
    case DType::f32: return {1e-5, 1e-6};
    case DType::f64: return {1e-12, 1e-12};
    case DType::f16: return {1e-3, 1e-4};
    case DType::bf16: return {1e-2, 1e-3};
    default: return {0, 0};
  }
}

inline double eps_of(DType dt) {
  return dt == DType::f32 ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
}

// The smallest magnitude that rounds to infinity in a floating dtype (max + half an ulp); infinity for others.
inline double overflow_threshold(DType dt) {
  switch (dt) {
    case DType::f16: return 65520.0;
    case DType::bf16: return std::ldexp(2.0 - std::ldexp(1.0, -8), 127);
    case DType::f32: return std::ldexp(2.0 - std::ldexp(1.0, -24), 127);
    default: return std::numeric_limits<double>::infinity();
  }
}

// got matches ref when shapes agree and every element is within atol + rtol * mag (mag defaults to
// |ref|); nan must meet nan and infinities must be equal; a reference beyond got's dtype range expects the
// infinity it rounds to.
inline ::testing::AssertionResult matches(const Tensor& got, const Ref& ref, Tol tol) {
  if (got.shape() != ref.shape) {
    return ::testing::AssertionFailure() << "shape " << got.shape().str() << ", expected " << ref.shape.str();
  }
  std::int64_t bad = 0;
  std::ostringstream msg;
  for_each_index(got.shape(), [&](const Index& idx, std::int64_t lin) {
    const double g = get(got, idx), r = wrap_to(got.dtype(), ref.v[static_cast<std::size_t>(lin)]);
    const double mag = ref.mag.empty() ? std::fabs(r) : ref.mag[static_cast<std::size_t>(lin)];
    bool ok = false;
    if (std::isnan(r)) {
      ok = std::isnan(g);
    } else if (std::isinf(r)) {
      ok = g == r;
    } else if (std::isinf(g) && std::signbit(g) == std::signbit(r) &&
               std::fabs(r) >= overflow_threshold(got.dtype()) * (1 - tol.rtol)) {
      ok = true;  // a true result beyond the dtype's range rounds to infinity
    } else {
      ok = std::fabs(g - r) <= tol.atol + tol.rtol * mag;
    }
    if (!ok && bad++ < 5) {
      msg << "\n  at (";
      for (std::size_t k = 0; k < idx.size(); ++k) msg << (k ? ", " : "") << idx[k];
      msg.precision(17);
      msg << "): got " << g << ", expected " << r;
    }
  });
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << got.numel() << " elements differ" << msg.str();
}

// ---- misc -------------------------------------------------------------------------------------------

inline accelera::Axes axes(std::initializer_list<std::int64_t> a) { return std::vector<std::int64_t>(a); }

inline std::vector<std::byte> storage_bytes(const Tensor& t) {
  require_host(t);
  const auto* p = static_cast<const std::byte*>(t.storage()->data());
  return {p, p + t.storage()->nbytes()};
}

// "(a, b, c)" for any integer list (axes and -1 extents included).
inline std::string shape_str(const std::vector<std::int64_t>& d) {
  std::string s = "(";
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + (d.size() == 1 ? ",)" : ")");
}

// Restores the cpu allocator's budget and disarms fault injection when a test ends.
struct CpuAllocatorGuard {
  accelera::CachingAllocator& alloc = accelera::allocator_for(Device::cpu());
  std::int64_t budget = alloc.budget();
  ~CpuAllocatorGuard() {
    alloc.fail_nth_allocation(0);
    alloc.set_budget(budget);
  }
};

// ---- devices under test ---------------------------------------------------------------------------

// Whether this build has the CUDA backend (whether or not a CUDA device answers).
inline bool cuda_compiled() {
  const auto names = accelera::compiled_backends();
  return std::find(names.begin(), names.end(), "cuda") != names.end();
}

// `present` plus cuda:0 when CUDA is compiled in but absent: its tests then run and skip, saying why, so a
// CUDA build without a GPU shows them skipped rather than silently missing.
// Every device that answers now, CPU first, for suites instantiated per device.
inline std::vector<Device> all_devices() {
  std::vector<Device> out;
  for (const auto& info : accelera::devices()) out.push_back(info.device);
  return out;
}

// "cpu0", "opencl0": test names for per-device suites.
inline std::string device_name(const ::testing::TestParamInfo<Device>& info) {
  return std::string(accelera::device_kind_name(info.param.kind)) + std::to_string(info.param.index);
}

inline std::vector<Device> with_cuda_placeholder(std::vector<Device> present) {
  const Device cuda0{accelera::DeviceKind::cuda, 0};
  if (cuda_compiled() && std::find(present.begin(), present.end(), cuda0) == present.end()) present.push_back(cuda0);
  return present;
}

// Why `device` cannot run tests here (the registry's DeviceError message), or empty when it can.
inline std::string device_absence(const Device& device) {
  try {
    accelera::device_interface(device);
    return {};
  } catch (const accelera::DeviceError& e) {
    return e.what();
  }
}

}  // namespace acc_test
