// The fused LSTM and GRU cells on CUDA (Notes [Fused LSTM cell] and [Fused GRU cell] in
// ops/recurrent_cell.hpp): one thread per (row,
// unit), arithmetic in compute_t (float for the half formats), the formulas of the CPU and OpenCL kernels.
#include "backends/cuda/common.cuh"
#include "backends/cuda/nn_launch.hpp"

namespace accelera::cuda::kernels {

namespace {

template <typename C>
__device__ C lstm_sigmoid(C x) {
  const C e = exp_of(-fabs(x));  // never overflows; a nan stays nan
  return x >= C(0) ? C(1) / (C(1) + e) : e / (C(1) + e);
}

template <typename T>
__global__ void lstm_cell_forward(std::int64_t rows, std::int64_t hidden, const T* gates, const T* c_prev, T* h, T* c,
                                  T* act) {
  using C = compute_t<T>;
  for (std::int64_t id = first_index(); id < rows * hidden; id += grid_stride()) {
    const std::int64_t r = id / hidden, k = id - r * hidden;
    const T* g = gates + r * 4 * hidden;
    const C i = lstm_sigmoid(load(g[k])), f = lstm_sigmoid(load(g[hidden + k]));
    const C gg = tanh_of(load(g[2 * hidden + k])), o = lstm_sigmoid(load(g[3 * hidden + k]));
    T* a = act + r * 4 * hidden;
    a[k] = store<T>(i);
    a[hidden + k] = store<T>(f);
    a[2 * hidden + k] = store<T>(gg);
    a[3 * hidden + k] = store<T>(o);
    const C cv = f * load(c_prev[id]) + i * gg;
    c[id] = store<T>(cv);
    h[id] = store<T>(o * tanh_of(cv));
  }
}

template <typename T>
__global__ void lstm_cell_backward_kernel(std::int64_t rows, std::int64_t hidden, const T* grad_h, const T* dc,
                                          const T* act, const T* c_prev, const T* c, T* d_gates, T* dc_prev) {
  using C = compute_t<T>;
  for (std::int64_t id = first_index(); id < rows * hidden; id += grid_stride()) {
    const std::int64_t r = id / hidden, k = id - r * hidden;
    const T* a = act + r * 4 * hidden;
    const C i = load(a[k]), f = load(a[hidden + k]), g = load(a[2 * hidden + k]), o = load(a[3 * hidden + k]);
    const C tc = tanh_of(load(c[id])), dh = load(grad_h[id]), one = 1;
    const C dct = load(dc[id]) + dh * o * (one - tc * tc);  // the cell state's whole gradient
    T* dg = d_gates + r * 4 * hidden;
    dg[k] = store<T>(dct * g * i * (one - i));
    dg[hidden + k] = store<T>(dct * load(c_prev[id]) * f * (one - f));
    dg[2 * hidden + k] = store<T>(dct * i * (one - g * g));
    dg[3 * hidden + k] = store<T>(dh * tc * o * (one - o));
    dc_prev[id] = store<T>(dct * f);
  }
}

template <typename T>
__global__ void gru_cell_forward(std::int64_t rows, std::int64_t hidden, const T* input_gates, const T* hidden_gates,
                                 const T* h_prev, T* h, T* act) {
  using C = compute_t<T>;
  for (std::int64_t id = first_index(); id < rows * hidden; id += grid_stride()) {
    const std::int64_t row = id / hidden, k = id - row * hidden;
    const T *xg = input_gates + row * 3 * hidden, *hg = hidden_gates + row * 3 * hidden;
    const C r = lstm_sigmoid(load(xg[k]) + load(hg[k]));
    const C z = lstm_sigmoid(load(xg[hidden + k]) + load(hg[hidden + k]));
    const C n = tanh_of(load(xg[2 * hidden + k]) + r * load(hg[2 * hidden + k]));
    T* a = act + row * 3 * hidden;
    a[k] = store<T>(r);
    a[hidden + k] = store<T>(z);
    a[2 * hidden + k] = store<T>(n);
    h[id] = store<T>(n + z * (load(h_prev[id]) - n));
  }
}

template <typename T>
__global__ void gru_cell_backward_kernel(std::int64_t rows, std::int64_t hidden, const T* grad_h, const T* act,
                                         const T* hidden_gates, const T* h_prev, T* d_input, T* d_hidden, T* dh_prev) {
  using C = compute_t<T>;
  for (std::int64_t id = first_index(); id < rows * hidden; id += grid_stride()) {
    const std::int64_t row = id / hidden, k = id - row * hidden;
    const T* a = act + row * 3 * hidden;
    const C r = load(a[k]), z = load(a[hidden + k]), n = load(a[2 * hidden + k]), one = 1;
    const C hn = load(hidden_gates[row * 3 * hidden + 2 * hidden + k]), dh = load(grad_h[id]);
    const C dn = dh * (one - z) * (one - n * n);
    const C dr = dn * hn * r * (one - r);
    const C dz = dh * (load(h_prev[id]) - n) * z * (one - z);
    T *di = d_input + row * 3 * hidden, *dhg = d_hidden + row * 3 * hidden;
    di[k] = dhg[k] = store<T>(dr);
    di[hidden + k] = dhg[hidden + k] = store<T>(dz);
    di[2 * hidden + k] = store<T>(dn);
    dhg[2 * hidden + k] = store<T>(dn * r);
    dh_prev[id] = store<T>(dh * z);
  }
}

}  // namespace

bool lstm_cell(DType dtype, std::int64_t rows, std::int64_t hidden, const void* gates, const void* c_prev, void* h,
               void* c, void* act, Launch launch) {
  return with_float_type(dtype, [&](auto t) {
    using T = decltype(t);
    lstm_cell_forward<T><<<blocks_for(rows * hidden, launch), kThreads, 0, launch.stream>>>(
        rows, hidden, static_cast<const T*>(gates), static_cast<const T*>(c_prev), static_cast<T*>(h),
        static_cast<T*>(c), static_cast<T*>(act));
    check_launch("lstm_cell");
  });
}

bool lstm_cell_backward(DType dtype, std::int64_t rows, std::int64_t hidden, const void* grad_h, const void* dc,
                        const void* act, const void* c_prev, const void* c, void* d_gates, void* dc_prev, Launch launch) {
  return with_float_type(dtype, [&](auto t) {
    using T = decltype(t);
    lstm_cell_backward_kernel<T><<<blocks_for(rows * hidden, launch), kThreads, 0, launch.stream>>>(
        rows, hidden, static_cast<const T*>(grad_h), static_cast<const T*>(dc), static_cast<const T*>(act),
        static_cast<const T*>(c_prev), static_cast<const T*>(c), static_cast<T*>(d_gates), static_cast<T*>(dc_prev));
    check_launch("lstm_cell_backward");
  });
}

bool gru_cell(DType dtype, std::int64_t rows, std::int64_t hidden, const void* input_gates, const void* hidden_gates,
              const void* h_prev, void* h, void* act, Launch launch) {
  return with_float_type(dtype, [&](auto t) {
    using T = decltype(t);
    gru_cell_forward<T><<<blocks_for(rows * hidden, launch), kThreads, 0, launch.stream>>>(
        rows, hidden, static_cast<const T*>(input_gates), static_cast<const T*>(hidden_gates),
        static_cast<const T*>(h_prev), static_cast<T*>(h), static_cast<T*>(act));
    check_launch("gru_cell");
  });
}

bool gru_cell_backward(DType dtype, std::int64_t rows, std::int64_t hidden, const void* grad_h, const void* act,
                       const void* hidden_gates, const void* h_prev, void* d_input, void* d_hidden, void* dh_prev,
                       Launch launch) {
  return with_float_type(dtype, [&](auto t) {
    using T = decltype(t);
    gru_cell_backward_kernel<T><<<blocks_for(rows * hidden, launch), kThreads, 0, launch.stream>>>(
        rows, hidden, static_cast<const T*>(grad_h), static_cast<const T*>(act), static_cast<const T*>(hidden_gates),
        static_cast<const T*>(h_prev), static_cast<T*>(d_input), static_cast<T*>(d_hidden), static_cast<T*>(dh_prev));
    check_launch("gru_cell_backward");
  });
}

}  // namespace accelera::cuda::kernels
