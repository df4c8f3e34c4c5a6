// The where kernel on the CPU (Note [where] in ops/where.hpp): out = condition ? x1 : x2, elements moved
// by size, so one instantiation serves every dtype of that size.
#include <cstdint>

#include "backends/common/strided_loop.hpp"
#include "accelera/core/error.hpp"
#include "ops/where.hpp"

namespace accelera::cpu {

using namespace accelera::backends;  // strided loops

namespace {

template <typename Bits>
void run(const Tensor& condition, const Tensor& x1, const Tensor& x2, const Tensor& out) {
  const auto layout = make_layout<4>(
      out.shape(), {&out.strides(), &condition.strides(), &x1.strides(), &x2.strides()});
  Bits* o_base = static_cast<Bits*>(out.data_ptr());
  const bool* c_base = condition.data<bool>();
  const Bits* a_base = static_cast<const Bits*>(x1.data_ptr());
  const Bits* b_base = static_cast<const Bits*>(x2.data_ptr());
  parallel_for_each_run(layout, [&](auto off, std::int64_t len, auto st) {
    Bits* o = o_base + off[0];
    const bool* c = c_base + off[1];
    const Bits* a = a_base + off[2];
    const Bits* b = b_base + off[3];
    // A bit mask, never a branch: a branch on a random condition mispredicts every other element (6x
    // slower on 32k elements), and the masked form vectorises.
    const auto select = [](bool c, Bits x, Bits y) {
      const Bits mask = Bits(0) - static_cast<Bits>(c);
      return static_cast<Bits>((x & mask) | (y & static_cast<Bits>(~mask)));
    };
    if (st[0] == 1 && st[1] == 1 && st[2] == 1 && st[3] == 1) {
      for (std::int64_t k = 0; k < len; ++k) o[k] = select(c[k], a[k], b[k]);
    } else if (st[0] == 1 && st[1] == 1 && st[2] == 1 && st[3] == 0) {  // where(mask, x, scalar)
      const Bits y = b[0];
      for (std::int64_t k = 0; k < len; ++k) o[k] = select(c[k], a[k], y);
    } else if (st[0] == 1 && st[1] == 1 && st[2] == 0 && st[3] == 1) {  // where(mask, scalar, x)
      const Bits x = a[0];
      for (std::int64_t k = 0; k < len; ++k) o[k] = select(c[k], x, b[k]);
    } else {
      for (std::int64_t k = 0; k < len; ++k) {
        o[k * st[0]] = select(c[k * st[1]], a[k * st[2]], b[k * st[3]]);
      }
    }
  });
}

void where_kernel(const Tensor& condition, const Tensor& x1, const Tensor& x2, const Tensor& out) {
  switch (out.itemsize()) {
    case 1: return run<std::uint8_t>(condition, x1, x2, out);
    case 2: return run<std::uint16_t>(condition, x1, x2, out);
    case 4: return run<std::uint32_t>(condition, x1, x2, out);
    case 8: return run<std::uint64_t>(condition, x1, x2, out);
    default: break;
  }
  ACC_ASSERT(false, "the cpu where kernel was called for {}-byte elements", out.itemsize());
}

}  // namespace

ACC_REGISTER_KERNELS { register_kernel(op::where, DeviceKind::cpu, dtypes::all, &where_kernel); }

}  // namespace accelera::cpu
