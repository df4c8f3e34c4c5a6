// LayerNorm over the last axis of (rows, n): forward, dx, and the parameter gradients. One block per row
// (grid-striding over rows, as many blocks as the device holds at once); the row stays in registers
// between its passes when it fits (RowSlice), so x is read from memory once. Statistics are kept and
// accumulated in float (double for float64): the mean first, then the variance about it. Squares of
// deviations beyond about 1.8e19 overflow float: such a row (seen as an infinite sum of squares) is summed
// again scaled by its largest deviation, so rows of values near 1e20 normalise instead of giving zeros.
#include "backends/cuda/row_ops.cuh"

namespace accelera::cuda::kernels {

namespace {

template <typename T, int Cached>
__global__ void __launch_bounds__(1024)
    layer_norm_rows(Rows R, compute_t<T> eps, const T* x, const T* weight, const T* bias, T* out,
                    compute_t<T>* mean, compute_t<T>* rstd) {
  using C = compute_t<T>;
  __shared__ C scratch[32];
  for (std::int64_t row = blockIdx.x; row < R.rows; row += gridDim.x) {
    const RowSlice<T, Cached> xs(x + row * R.n, R.n);
    C sum = 0;
    for_each_column<Cached>(R.n, [&](int j, std::int64_t k) { sum += xs.at(j, k); });
    const C mu = block_reduce<false>(sum, scratch) / static_cast<C>(R.n);
    C squares = 0;
    for_each_column<Cached>(R.n, [&](int j, std::int64_t k) {
      const C d = xs.at(j, k) - mu;
      squares += d * d;
    });
    const C square_sum = block_reduce<false>(squares, scratch);
    C rs = C(1) / sqrt_of(square_sum / static_cast<C>(R.n) + eps);
    if (isinf(square_sum) && isfinite(mu)) {  // the same in every thread of the block: barriers are safe
      C largest = 0;
      for_each_column<Cached>(R.n, [&](int j, std::int64_t k) { largest = max_nan(largest, fabs(xs.at(j, k) - mu)); });
      largest = block_reduce<true>(largest, scratch);
      C scaled = 0;
      for_each_column<Cached>(R.n, [&](int j, std::int64_t k) {
        const C d = (xs.at(j, k) - mu) / largest;
        scaled += d * d;
      });
      scaled = block_reduce<false>(scaled, scratch) / static_cast<C>(R.n);
      rs = C(1) / (largest * sqrt_of(scaled + eps / largest / largest));
    }
    if (threadIdx.x == 0) {
      mean[row] = mu;
      rstd[row] = rs;
    }
    T* yr = out + row * R.n;
    for_each_column<Cached>(R.n, [&](int j, std::int64_t k) {
      C y = (xs.at(j, k) - mu) * rs;
      if (weight != nullptr) y *= load(weight[k]);
      if (bias != nullptr) y += load(bias[k]);
      yr[k] = store<T>(y);
    });
  }
}

// With gw = grad * weight (or grad) and xhat = (x - mean) rstd: dx = rstd (gw - mean(gw) - xhat mean(gw xhat)).
template <typename T, int Cached>
__global__ void __launch_bounds__(1024)
    layer_norm_dx_rows(Rows R, const T* grad, const T* x, const T* weight, const compute_t<T>* mean,
                       const compute_t<T>* rstd, T* dx) {
  using C = compute_t<T>;
  __shared__ C scratch[32];
  for (std::int64_t row = blockIdx.x; row < R.rows; row += gridDim.x) {
    const RowSlice<T, Cached> gs(grad + row * R.n, R.n);
    const RowSlice<T, Cached> xs(x + row * R.n, R.n);
    const C mu = mean[row], rs = rstd[row];
    auto gw = [&](int j, std::int64_t k) { return weight != nullptr ? gs.at(j, k) * load(weight[k]) : gs.at(j, k); };
    C a = 0, c = 0;
    for_each_column<Cached>(R.n, [&](int j, std::int64_t k) {
      const C g = gw(j, k);
      a += g;
      c += g * (xs.at(j, k) - mu) * rs;
    });
    a = block_reduce<false>(a, scratch) / static_cast<C>(R.n);
    c = block_reduce<false>(c, scratch) / static_cast<C>(R.n);
    T* dr = dx + row * R.n;
    for_each_column<Cached>(R.n, [&](int j, std::int64_t k) {
      dr[k] = store<T>(rs * (gw(j, k) - a - (xs.at(j, k) - mu) * rs * c));
    });
  }
}

// Parameter gradients, stage 1: block (32, 8) sums 32 columns over one part of the rows (threads along y
// take every 8th row, so a warp reads 32 neighbouring columns), writing partials[part][column] for the
// weight and, after them, the bias.
template <typename T>
__global__ void layer_norm_param_partials(std::int64_t rows, std::int64_t n, std::int64_t parts, const T* grad,
                                          const T* x, const compute_t<T>* mean, const compute_t<T>* rstd,
                                          compute_t<T>* partials) {
  using C = compute_t<T>;
  __shared__ C sw[8][33], sb[8][33];
  const std::int64_t col = static_cast<std::int64_t>(blockIdx.x) * 32 + threadIdx.x;
  const std::int64_t part = blockIdx.y;
  const std::int64_t begin = rows * part / parts, end = rows * (part + 1) / parts;
  C w = 0, b = 0;
  if (col < n) {
    for (std::int64_t r = begin + threadIdx.y; r < end; r += 8) {
      const C g = load(grad[r * n + col]);
      w += g * (load(x[r * n + col]) - mean[r]) * rstd[r];
      b += g;
    }
  }
  sw[threadIdx.y][threadIdx.x] = w;
  sb[threadIdx.y][threadIdx.x] = b;
  __syncthreads();
  if (threadIdx.y == 0 && col < n) {
    for (int y = 1; y < 8; ++y) {
      w += sw[y][threadIdx.x];
      b += sb[y][threadIdx.x];
    }
    partials[part * n + col] = w;
    partials[(parts + part) * n + col] = b;
  }
}

// Stage 2: one thread per column adds the parts up.
template <typename T>
__global__ void layer_norm_param_sums(std::int64_t n, std::int64_t parts, const compute_t<T>* partials, T* dweight,
                                      T* dbias) {
  using C = compute_t<T>;
  for (std::int64_t col = first_index(); col < n; col += grid_stride()) {
    C w = 0, b = 0;
    for (std::int64_t p = 0; p < parts; ++p) {
      w += partials[p * n + col];
      b += partials[(parts + p) * n + col];
    }
    if (dweight != nullptr) dweight[col] = store<T>(w);
    if (dbias != nullptr) dbias[col] = store<T>(b);
  }
}

}  // namespace

bool layer_norm(DType dtype, const Rows& R, double eps, const void* x, const void* weight, const void* bias, void* out,
                void* mean, void* rstd, Target target) {
  return with_row_types(dtype, R.cached, [&](auto t, auto width) {
    using T = decltype(t);
    using C = compute_t<T>;
    constexpr int Cached = decltype(width)::value;
    constexpr auto kernel = layer_norm_rows<T, Cached>;
    kernel<<<row_grid<kernel>(R.threads, R.rows, target), R.threads, 0, target.stream>>>(
        R, static_cast<C>(eps), static_cast<const T*>(x), static_cast<const T*>(weight), static_cast<const T*>(bias),
        static_cast<T*>(out), static_cast<C*>(mean), static_cast<C*>(rstd));
    check_launch("layer_norm");
  });
}

bool layer_norm_backward(DType dtype, const Rows& R, const void* grad, const void* x, const void* weight,
                         const void* mean, const void* rstd, void* dx, Target target) {
  return with_row_types(dtype, R.cached, [&](auto t, auto width) {
    using T = decltype(t);
    using C = compute_t<T>;
    constexpr int Cached = decltype(width)::value;
    constexpr auto kernel = layer_norm_dx_rows<T, Cached>;
    kernel<<<row_grid<kernel>(R.threads, R.rows, target), R.threads, 0, target.stream>>>(
        R, static_cast<const T*>(grad), static_cast<const T*>(x), static_cast<const T*>(weight),
        static_cast<const C*>(mean), static_cast<const C*>(rstd), static_cast<T*>(dx));
    check_launch("layer_norm_backward");
  });
}

std::int64_t layer_norm_param_parts(std::int64_t rows, std::int64_t n, int sm_count) {
  // Enough (32-column x part) blocks to fill the device about four times, each part at least 64 rows.
  const std::int64_t column_blocks = (n + 31) / 32;
  const std::int64_t by_device = (4LL * sm_count + column_blocks - 1) / column_blocks;
  const std::int64_t by_rows = (rows + 63) / 64;
  const std::int64_t parts = by_device < by_rows ? by_device : by_rows;
  return parts < 1 ? 1 : (parts > 65535 ? 65535 : parts);
}

bool layer_norm_param_grad(DType dtype, std::int64_t rows, std::int64_t n, const void* grad, const void* x,
                           const void* mean, const void* rstd, void* dweight, void* dbias, void* partials,
                           std::int64_t parts, Launch launch) {
  return with_float_type(dtype, [&](auto t) {
    using T = decltype(t);
    using C = compute_t<T>;
    const dim3 grid(static_cast<unsigned>((n + 31) / 32), static_cast<unsigned>(parts));
    layer_norm_param_partials<T><<<grid, dim3(32, 8), 0, launch.stream>>>(
        rows, n, parts, static_cast<const T*>(grad), static_cast<const T*>(x), static_cast<const C*>(mean),
        static_cast<const C*>(rstd), static_cast<C*>(partials));
    check_launch("layer_norm_param_partials");
    layer_norm_param_sums<T><<<blocks_for(n, launch), kThreads, 0, launch.stream>>>(
        n, parts, static_cast<const C*>(partials), static_cast<T*>(dweight), static_cast<T*>(dbias));
    check_launch("layer_norm_param_sums");
  });
}

}  // namespace accelera::cuda::kernels
