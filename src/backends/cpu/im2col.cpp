// im2col and col2im on the CPU (Note [Window geometry] in ops/im2col.hpp). im2col runs one thread per
// (n, o0) slab of patch rows; col2im one thread per (n, c) image plane, adding each patch entry into the plane it
// read, so no two threads write the same element and the order of the sums is fixed.
#include <algorithm>
#include <type_traits>

#include "backends/common/strided_loop.hpp"
#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/elementwise_dispatch.hpp"
#include "ops/im2col.hpp"

namespace accelera::cpu {

namespace {

bool inside(std::int64_t i, std::int64_t extent) { return i >= 0 && i < extent; }

// The input position on axis a read by output position o through kernel offset k.
std::int64_t input_at(const WindowGeometry& g, int a, std::int64_t o, std::int64_t k) {
  return o * g.stride[a] - g.pad[a] + k * g.dilation[a];
}

// Output positions are walked as nested loops, never decoded from a flat index: integer division per
// patch row would cost more than copying a pooling window's four elements. K is the innermost kernel extent
// when it is known at compile time with dilation 1 (0 otherwise), so that the runs of 1 to 7 elements that
// make up a patch row are copied by unrolled code rather than by a loop of unknown length.
template <typename T, std::int64_t K>
void im2col_rows(const T* x, const WindowGeometry& g, T pad_value, T* patches) {
  const std::int64_t cols = g.cols(), plane = g.in_positions(), slabs = g.batch * g.out[0];
  const std::int64_t run = K > 0 ? K : g.kernel[2], step = K > 0 ? 1 : g.dilation[2];
#pragma omp parallel for schedule(static) if (g.rows() * cols > backends::kParallelGrain)
  for (std::int64_t slab = 0; slab < slabs; ++slab) {  // one (n, o0)
    const std::int64_t n = slab / g.out[0], o0 = slab % g.out[0];
    T* dst = patches + slab * g.out[1] * g.out[2] * cols;
    for (std::int64_t o1 = 0; o1 < g.out[1]; ++o1) {
      for (std::int64_t o2 = 0; o2 < g.out[2]; ++o2) {
        const std::int64_t first2 = input_at(g, 2, o2, 0), last2 = input_at(g, 2, o2, run - 1);
        const bool run_inside = first2 >= 0 && last2 < g.in[2];
        for (std::int64_t c = 0; c < g.channels; ++c) {
          const T* xc = x + (n * g.channels + c) * plane;
          for (std::int64_t k0 = 0; k0 < g.kernel[0]; ++k0) {
            const std::int64_t i0 = input_at(g, 0, o0, k0);
            for (std::int64_t k1 = 0; k1 < g.kernel[1]; ++k1) {
              const std::int64_t i1 = input_at(g, 1, o1, k1);
              const bool row_inside = inside(i0, g.in[0]) && inside(i1, g.in[1]);
              const std::int64_t row_start = (i0 * g.in[1] + i1) * g.in[2];  // used only inside
              if (row_inside && run_inside) {  // the whole run is in the image
                const T* src = xc + row_start + first2;
                for (std::int64_t k2 = 0; k2 < run; ++k2) dst[k2] = src[k2 * step];
                dst += run;
                continue;
              }
              for (std::int64_t k2 = 0; k2 < run; ++k2) {
                const std::int64_t i2 = input_at(g, 2, o2, k2);
                *dst++ = row_inside && inside(i2, g.in[2]) ? xc[row_start + i2] : pad_value;
              }
            }
          }
        }
      }
    }
  }
}

// The output positions [lo, hi) on axis a whose kernel offset k reads inside the image.
struct OutRange {
  std::int64_t lo, hi;
};

OutRange reading_inside(const WindowGeometry& g, int a, std::int64_t k) {
  const std::int64_t shift = g.pad[a] - k * g.dilation[a];  // o * stride = i + shift
  auto ceil_div = [](std::int64_t p, std::int64_t q) { return p >= 0 ? (p + q - 1) / q : -((-p) / q); };
  const std::int64_t lo = std::max<std::int64_t>(0, ceil_div(shift, g.stride[a]));
  const std::int64_t last = g.in[a] - 1 + shift;  // o * stride <= last
  const std::int64_t hi = last < 0 ? 0 : std::min(g.out[a], last / g.stride[a] + 1);
  return {lo, std::max(lo, hi)};
}

// Kernel offsets outermost: for one offset, distinct output positions add into distinct image elements,
// so the adds of the innermost loop are independent (offsets innermost would chain each add to the
// previous one through memory wherever windows overlap).
template <typename T>
void col2im_planes(const T* patches, const WindowGeometry& g, T* image) {
  const std::int64_t planes = g.batch * g.channels, plane = g.in_positions(), cols = g.cols();
  const std::int64_t positions = g.out_positions(), ksize = g.kernel_size();
#pragma omp parallel for schedule(static) if (planes * positions * ksize > backends::kParallelGrain)
  for (std::int64_t nc = 0; nc < planes; ++nc) {
    const std::int64_t n = nc / g.channels, c = nc % g.channels;
    T* img = image + nc * plane;
    std::fill(img, img + plane, T(0));
    const T* first = patches + n * positions * cols + c * ksize;  // row (n, 0, 0, 0), this channel's columns
    std::int64_t tap = 0;
    for (std::int64_t k0 = 0; k0 < g.kernel[0]; ++k0) {
      const OutRange r0 = reading_inside(g, 0, k0);
      for (std::int64_t k1 = 0; k1 < g.kernel[1]; ++k1) {
        const OutRange r1 = reading_inside(g, 1, k1);
        for (std::int64_t k2 = 0; k2 < g.kernel[2]; ++k2, ++tap) {
          const OutRange r2 = reading_inside(g, 2, k2);
          const std::int64_t i2_lo = input_at(g, 2, r2.lo, k2);
          for (std::int64_t o0 = r0.lo; o0 < r0.hi; ++o0) {
            const std::int64_t i0 = input_at(g, 0, o0, k0);
            for (std::int64_t o1 = r1.lo; o1 < r1.hi; ++o1) {
              T* dst = img + (i0 * g.in[1] + input_at(g, 1, o1, k1)) * g.in[2] + i2_lo;
              const T* entry = first + ((o0 * g.out[1] + o1) * g.out[2] + r2.lo) * cols + tap;
              const std::int64_t count = r2.hi - r2.lo;
              for (std::int64_t j = 0; j < count; ++j) dst[j * g.stride[2]] += entry[j * cols];
            }
          }
        }
      }
    }
  }
}

// Calls f(std::integral_constant<std::int64_t, K>) with the innermost kernel extent K when the window has
// one of the common small extents and dilation 1 there, with K = 0 otherwise.
template <typename F>
void with_run_length(const WindowGeometry& g, F&& f) {
  if (g.dilation[2] == 1) {
    switch (g.kernel[2]) {
      case 1: return f(std::integral_constant<std::int64_t, 1>{});
      case 2: return f(std::integral_constant<std::int64_t, 2>{});
      case 3: return f(std::integral_constant<std::int64_t, 3>{});
      case 5: return f(std::integral_constant<std::int64_t, 5>{});
      case 7: return f(std::integral_constant<std::int64_t, 7>{});
      default: break;
    }
  }
  f(std::integral_constant<std::int64_t, 0>{});
}

// im2col only moves elements, so the half formats are copied as they are stored.
void im2col_kernel(const Tensor& x, const WindowGeometry& g, double pad_value, const Tensor& patches) {
  dispatch_any(x.dtype(), [&](auto t) {
    using T = decltype(t);
    if constexpr (std::is_floating_point_v<T> || kIsHalf<T>) {
      with_run_length(g, [&](auto k) {
        im2col_rows<T, decltype(k)::value>(x.data<T>(), g, detail::store_element<T>(pad_value), patches.data<T>());
      });
    } else {
      ACC_ASSERT(false, "the cpu im2col kernel was called for {}", dtype_name(x.dtype()));
    }
  });
}

// col2im sums, so the half formats are not registered: the op layer runs them through float32 and rounds
// once (kernel_dtype in ops/common.hpp).
void col2im_kernel(const Tensor& patches, const WindowGeometry& g, const Tensor& image) {
  dispatch_float(image.dtype(), "col2im", [&](auto t) {
    using T = decltype(t);
    col2im_planes(patches.data<T>(), g, image.data<T>());
  });
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::im2col, DeviceKind::cpu, kElementwiseFloating, &im2col_kernel);
  register_kernel(op::col2im, DeviceKind::cpu, dtypes::floating, &col2im_kernel);
}

}  // namespace accelera::cpu
