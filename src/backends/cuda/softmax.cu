// Softmax and log-softmax over the last axis of (rows, n), forward and backward: one block per row, the
// row held in registers between passes when it fits (RowSlice). Accumulation in float (double for
// float64). The max propagates nan, so a row with a nan gives nan throughout, as in NumPy.
#include "backends/cuda/row_ops.cuh"

namespace accelera::cuda::kernels {

namespace {

template <typename T, int Cached>
__global__ void __launch_bounds__(1024) softmax_rows(Rows R, bool log, const T* x, T* out) {
  using C = compute_t<T>;
  __shared__ C scratch[32];
  for (std::int64_t row = blockIdx.x; row < R.rows; row += gridDim.x) {
    const RowSlice<T, Cached> xs(x + row * R.n, R.n);
    C m = -static_cast<C>(INFINITY);
    for_each_column<Cached>(R.n, [&](int j, std::int64_t k) { m = max_nan(m, xs.at(j, k)); });
    m = block_reduce<true>(m, scratch);
    C s = 0;
    for_each_column<Cached>(R.n, [&](int j, std::int64_t k) { s += exp_of(xs.at(j, k) - m); });
    s = block_reduce<false>(s, scratch);
    T* yr = out + row * R.n;
    if (log) {
      const C log_s = log_of(s);  // (x - m) - log(s): a large m would absorb log(s)
      for_each_column<Cached>(R.n, [&](int j, std::int64_t k) { yr[k] = store<T>((xs.at(j, k) - m) - log_s); });
    } else {
      const C inv = C(1) / s;
      for_each_column<Cached>(R.n, [&](int j, std::int64_t k) { yr[k] = store<T>(exp_of(xs.at(j, k) - m) * inv); });
    }
  }
}

// Softmax: dx = y (g - sum(g y)). Log-softmax: dx = g - exp(y) sum(g).
template <typename T, int Cached>
__global__ void __launch_bounds__(1024) softmax_backward_rows(Rows R, bool log, const T* grad, const T* y, T* dx) {
  using C = compute_t<T>;
  __shared__ C scratch[32];
  for (std::int64_t row = blockIdx.x; row < R.rows; row += gridDim.x) {
    const RowSlice<T, Cached> gs(grad + row * R.n, R.n);
    const RowSlice<T, Cached> ys(y + row * R.n, R.n);
    C acc = 0;
    for_each_column<Cached>(R.n, [&](int j, std::int64_t k) { acc += log ? gs.at(j, k) : gs.at(j, k) * ys.at(j, k); });
    acc = block_reduce<false>(acc, scratch);
    T* dr = dx + row * R.n;
    for_each_column<Cached>(R.n, [&](int j, std::int64_t k) {
      const C g = gs.at(j, k), yv = ys.at(j, k);
      dr[k] = store<T>(log ? g - exp_of(yv) * acc : yv * (g - acc));
    });
  }
}

}  // namespace

bool softmax(DType dtype, const Rows& R, bool log, const void* x, void* out, Target target) {
  return with_row_types(dtype, R.cached, [&](auto t, auto width) {
    using T = decltype(t);
    constexpr auto kernel = softmax_rows<T, decltype(width)::value>;
    kernel<<<row_grid<kernel>(R.threads, R.rows, target), R.threads, 0, target.stream>>>(
        R, log, static_cast<const T*>(x), static_cast<T*>(out));
    check_launch("softmax");
  });
}

bool softmax_backward(DType dtype, const Rows& R, bool log, const void* grad, const void* y, void* dx, Target target) {
  return with_row_types(dtype, R.cached, [&](auto t, auto width) {
    using T = decltype(t);
    constexpr auto kernel = softmax_backward_rows<T, decltype(width)::value>;
    kernel<<<row_grid<kernel>(R.threads, R.rows, target), R.threads, 0, target.stream>>>(
        R, log, static_cast<const T*>(grad), static_cast<const T*>(y), static_cast<T*>(dx));
    check_launch("softmax_backward");
  });
}

}  // namespace accelera::cuda::kernels
