// max_pool and max_pool_backward on the CPU (Note [Window geometry] in ops/im2col.hpp): one thread per
// (n, c) image plane in both directions, so the backward adds each gradient into the plane it came from
// with no two threads writing one element, in a fixed order.
#include <algorithm>
#include <cmath>
#include <vector>

#include "backends/common/strided_loop.hpp"
#include "backends/cpu/dispatch.hpp"
#include "ops/im2col.hpp"

namespace accelera::cpu {

namespace {

// The kernel offsets [lo, hi) of one axis whose input positions lie in the image, for one output
// position, and the input position `first` of offset lo. Computed once per call for every output position
// of every axis, so that the per-window loops carry no bounds checks or divisions.
struct Taps {
  std::int64_t lo = 0, hi = 0, first = 0;
};

std::vector<Taps> taps_of_axis(const WindowGeometry& g, int a) {
  std::vector<Taps> taps(static_cast<std::size_t>(g.out[a]));
  for (std::int64_t o = 0; o < g.out[a]; ++o) {
    const std::int64_t start = o * g.stride[a] - g.pad[a], d = g.dilation[a];
    const std::int64_t lo = start < 0 ? (-start + d - 1) / d : 0;
    const std::int64_t room = g.in[a] - 1 - start;  // offsets k with k * d <= room are inside
    const std::int64_t hi = room < 0 ? 0 : std::min(g.kernel[a], room / d + 1);
    taps[static_cast<std::size_t>(o)] = {lo, std::max(lo, hi), start + lo * d};
  }
  return taps;
}

// positions(o0, o1, o2, f) calls f(position) for every in-image position of that output's window, in the
// window's row-major order.
struct WindowWalk {
  const WindowGeometry& g;
  std::vector<Taps> axis[3];

  explicit WindowWalk(const WindowGeometry& geometry)
      : g(geometry), axis{taps_of_axis(geometry, 0), taps_of_axis(geometry, 1), taps_of_axis(geometry, 2)} {}

  template <typename F>
  void positions(std::int64_t o0, std::int64_t o1, std::int64_t o2, F&& f) const {
    const Taps& t0 = axis[0][static_cast<std::size_t>(o0)];
    const Taps& t1 = axis[1][static_cast<std::size_t>(o1)];
    const Taps& t2 = axis[2][static_cast<std::size_t>(o2)];
    for (std::int64_t k0 = t0.lo, i0 = t0.first; k0 < t0.hi; ++k0, i0 += g.dilation[0]) {
      for (std::int64_t k1 = t1.lo, i1 = t1.first; k1 < t1.hi; ++k1, i1 += g.dilation[1]) {
        const std::int64_t row = (i0 * g.in[1] + i1) * g.in[2];
        for (std::int64_t k2 = t2.lo, i2 = t2.first; k2 < t2.hi; ++k2, i2 += g.dilation[2]) {
          f(row + i2);
        }
      }
    }
  }
};

// Whether `v` replaces the current maximum `best`: larger, or a NaN where best is a number (first wins).
template <typename T>
bool beats(T v, T best) {
  return (v > best) | (std::isnan(v) & !std::isnan(best));
}

// The common 2x2 window with stride 2 and no padding or dilation, unrolled: four fixed taps per output and
// selects instead of branches, which the compiler can vectorise across a row of outputs.
template <typename T>
void pool_2x2_plane(const T* img, const WindowGeometry& g, T* values, std::int64_t* indices) {
  const std::int64_t width = g.in[2];
  for (std::int64_t o1 = 0; o1 < g.out[1]; ++o1) {
    const std::int64_t top = 2 * o1 * width, bottom = top + width;
    T* v_row = values + o1 * g.out[2];
    std::int64_t* i_row = indices + o1 * g.out[2];
    for (std::int64_t o2 = 0; o2 < g.out[2]; ++o2) {
      const std::int64_t i = top + 2 * o2, j = bottom + 2 * o2;
      T best = img[i];
      std::int64_t at = i;
      const T v1 = img[i + 1], v2 = img[j], v3 = img[j + 1];
      bool t = beats(v1, best);
      best = t ? v1 : best;
      at = t ? i + 1 : at;
      t = beats(v2, best);
      best = t ? v2 : best;
      at = t ? j : at;
      t = beats(v3, best);
      best = t ? v3 : best;
      at = t ? j + 1 : at;
      v_row[o2] = best;
      i_row[o2] = at;
    }
  }
}

// A 2-D image (no depth axis) under that window.
bool is_plain_2x2(const WindowGeometry& g) {
  return g.in[0] == 1 && g.kernel[0] == 1 && g.kernel[1] == 2 && g.kernel[2] == 2 && g.stride[1] == 2 &&
         g.stride[2] == 2 && g.pad[0] == 0 && g.pad[1] == 0 && g.pad[2] == 0 && g.dilation[1] == 1 &&
         g.dilation[2] == 1;
}

// The first maximum of each window: a NaN beats every number, padding is never chosen, and an image of
// -inf still gets the index of its first in-image element; a window entirely in the padding gives -inf and
// -1.
template <typename T>
void pool_planes(const T* x, const WindowGeometry& g, T* values, std::int64_t* indices) {
  const std::int64_t planes = g.batch * g.channels, plane = g.in_positions(), positions = g.out_positions();
  const WindowWalk walk(g);
  const bool plain = is_plain_2x2(g);
#pragma omp parallel for schedule(static) if (planes * positions * g.kernel_size() > backends::kParallelGrain)
  for (std::int64_t p = 0; p < planes; ++p) {
    const T* img = x + p * plane;
    std::int64_t e = p * positions;
    if (plain) {
      pool_2x2_plane(img, g, values + e, indices + e);
      continue;
    }
    for (std::int64_t o0 = 0; o0 < g.out[0]; ++o0) {
      for (std::int64_t o1 = 0; o1 < g.out[1]; ++o1) {
        for (std::int64_t o2 = 0; o2 < g.out[2]; ++o2, ++e) {
          T best = -INFINITY;
          std::int64_t at = -1;
          walk.positions(o0, o1, o2, [&](std::int64_t i) {
            const T v = img[i];
            const bool take = (at < 0) | beats(v, best);
            best = take ? v : best;
            at = take ? i : at;
          });
          values[e] = best;
          indices[e] = at;
        }
      }
    }
  }
}

// Each window's gradient goes to the position its index names when that position is in the window
// (compared against the window's positions: no division to decode the index, and no branch on which
// position matches, which is unpredictable).
template <typename T>
void unpool_planes(const T* grad, const std::int64_t* indices, const WindowGeometry& g, T* image) {
  const std::int64_t planes = g.batch * g.channels, plane = g.in_positions(), positions = g.out_positions();
  const WindowWalk walk(g);
  const bool plain = is_plain_2x2(g);
#pragma omp parallel for schedule(static) if (planes * (plane + positions) > backends::kParallelGrain)
  for (std::int64_t p = 0; p < planes; ++p) {
    T* img = image + p * plane;
    std::fill(img, img + plane, T(0));
    std::int64_t e = p * positions;
    if (plain) {
      for (std::int64_t o1 = 0; o1 < g.out[1]; ++o1) {
        for (std::int64_t o2 = 0; o2 < g.out[2]; ++o2, ++e) {
          const std::int64_t i = 2 * o1 * g.in[2] + 2 * o2, j = i + g.in[2], want = indices[e];
          if ((want == i) | (want == i + 1) | (want == j) | (want == j + 1)) img[want] += grad[e];
        }
      }
      continue;
    }
    for (std::int64_t o0 = 0; o0 < g.out[0]; ++o0) {
      for (std::int64_t o1 = 0; o1 < g.out[1]; ++o1) {
        for (std::int64_t o2 = 0; o2 < g.out[2]; ++o2, ++e) {
          const std::int64_t want = indices[e];
          bool in_window = false;
          walk.positions(o0, o1, o2, [&](std::int64_t i) { in_window |= i == want; });
          if (in_window) img[want] += grad[e];
        }
      }
    }
  }
}

void max_pool_kernel(const Tensor& x, const WindowGeometry& g, const Tensor& values, const Tensor& indices) {
  dispatch_float(x.dtype(), "max_pool", [&](auto t) {
    using T = decltype(t);
    pool_planes(x.data<T>(), g, values.data<T>(), indices.data<std::int64_t>());
  });
}

void max_pool_backward_kernel(const Tensor& grad, const Tensor& indices, const WindowGeometry& g,
                              const Tensor& image) {
  dispatch_float(image.dtype(), "max_pool_backward", [&](auto t) {
    using T = decltype(t);
    unpool_planes(grad.data<T>(), indices.data<std::int64_t>(), g, image.data<T>());
  });
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::max_pool, DeviceKind::cpu, dtypes::floating, &max_pool_kernel);
  register_kernel(op::max_pool_backward, DeviceKind::cpu, dtypes::floating, &max_pool_backward_kernel);
}

}  // namespace accelera::cpu
