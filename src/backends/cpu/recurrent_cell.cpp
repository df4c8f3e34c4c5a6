// lstm_cell, gru_cell and their backward passes on the CPU (Notes [Fused LSTM cell] and [Fused GRU cell] in
// ops/recurrent_cell.hpp): rows over
// threads only past the measured parallel grain (a step of a 128 x 128 LSTM is 64k gate values, below it on
// a 2-core VM, where waking the workers costs more than the step); each row's sigmoids and tanhs run
// through the vectorised unary kernels, the products and sums are plain loops the compiler vectorises.
#include "backends/cpu/dispatch.hpp"
#include "backends/cpu/row_chunks.hpp"
#include "backends/cpu/simd/simd_kernels.hpp"
#include "ops/recurrent_cell.hpp"

namespace accelera::cpu {

namespace {

using simd::Store;
using simd::UnaryFunction;

template <typename T>
void lstm_forward(const T* gates, const T* c_prev, T* h, T* c, T* act, std::int64_t batch, std::int64_t hidden) {
  simd::ensure_target_selected();
  for_each_row(batch, 4 * hidden, [&](std::int64_t r) {
    const T* g_in = gates + r * 4 * hidden;
    T* a = act + r * 4 * hidden;
    simd::unary(UnaryFunction::sigmoid, g_in, a, 2 * hidden, Store::cached);  // i, f
    simd::unary(UnaryFunction::tanh, g_in + 2 * hidden, a + 2 * hidden, hidden, Store::cached);
    simd::unary(UnaryFunction::sigmoid, g_in + 3 * hidden, a + 3 * hidden, hidden, Store::cached);
    const T *i = a, *f = a + hidden, *g = a + 2 * hidden, *o = a + 3 * hidden, *cp = c_prev + r * hidden;
    T *cr = c + r * hidden, *hr = h + r * hidden;
    for (std::int64_t k = 0; k < hidden; ++k) cr[k] = f[k] * cp[k] + i[k] * g[k];
    simd::unary(UnaryFunction::tanh, cr, hr, hidden, Store::cached);
    for (std::int64_t k = 0; k < hidden; ++k) hr[k] *= o[k];
  });
}

template <typename T>
void lstm_backward(const T* grad_h, const T* dc_in, const T* act, const T* c_prev, const T* c, T* d_gates, T* dc_prev,
                   std::int64_t batch, std::int64_t hidden) {
  simd::ensure_target_selected();
  for_each_row(batch, 4 * hidden, [&](std::int64_t r) {
    const T* a = act + r * 4 * hidden;
    const T *i = a, *f = a + hidden, *g = a + 2 * hidden, *o = a + 3 * hidden;
    const T *dh = grad_h + r * hidden, *dcn = dc_in + r * hidden, *cp = c_prev + r * hidden;
    T* dg = d_gates + r * 4 * hidden;
    T* dcp = dc_prev + r * hidden;
    simd::unary(UnaryFunction::tanh, c + r * hidden, dcp, hidden, Store::cached);  // tanh(c), read first below
    for (std::int64_t k = 0; k < hidden; ++k) {
      const T tc = dcp[k];
      const T dct = dcn[k] + dh[k] * o[k] * (T(1) - tc * tc);  // the cell state's whole gradient
      dg[k] = dct * g[k] * i[k] * (T(1) - i[k]);
      dg[hidden + k] = dct * cp[k] * f[k] * (T(1) - f[k]);
      dg[2 * hidden + k] = dct * i[k] * (T(1) - g[k] * g[k]);
      dg[3 * hidden + k] = dh[k] * tc * o[k] * (T(1) - o[k]);
      dcp[k] = dct * f[k];
    }
  });
}

template <typename T>
void gru_forward(const T* input_gates, const T* hidden_gates, const T* h_prev, T* h, T* act, std::int64_t batch,
                 std::int64_t hidden) {
  simd::ensure_target_selected();
  for_each_row(batch, 3 * hidden, [&](std::int64_t row) {
    const T *xg = input_gates + row * 3 * hidden, *hg = hidden_gates + row * 3 * hidden, *hp = h_prev + row * hidden;
    T* a = act + row * 3 * hidden;
    for (std::int64_t k = 0; k < 2 * hidden; ++k) a[k] = xg[k] + hg[k];
    simd::unary(UnaryFunction::sigmoid, a, a, 2 * hidden, Store::cached);  // r, z
    const T *r = a, *z = a + hidden;
    T* n = a + 2 * hidden;
    for (std::int64_t k = 0; k < hidden; ++k) n[k] = xg[2 * hidden + k] + r[k] * hg[2 * hidden + k];
    simd::unary(UnaryFunction::tanh, n, n, hidden, Store::cached);
    T* hr = h + row * hidden;
    for (std::int64_t k = 0; k < hidden; ++k) hr[k] = n[k] + z[k] * (hp[k] - n[k]);
  });
}

template <typename T>
void gru_backward(const T* grad_h, const T* act, const T* hidden_gates, const T* h_prev, T* d_input, T* d_hidden,
                  T* dh_prev, std::int64_t batch, std::int64_t hidden) {
  for_each_row(batch, 3 * hidden, [&](std::int64_t row) {
    const T* a = act + row * 3 * hidden;
    const T *r = a, *z = a + hidden, *n = a + 2 * hidden, *hn = hidden_gates + row * 3 * hidden + 2 * hidden;
    const T *dh = grad_h + row * hidden, *hp = h_prev + row * hidden;
    T *di = d_input + row * 3 * hidden, *dhg = d_hidden + row * 3 * hidden, *dhp = dh_prev + row * hidden;
    for (std::int64_t k = 0; k < hidden; ++k) {
      const T dn = dh[k] * (T(1) - z[k]) * (T(1) - n[k] * n[k]);
      const T dr = dn * hn[k] * r[k] * (T(1) - r[k]);
      const T dz = dh[k] * (hp[k] - n[k]) * z[k] * (T(1) - z[k]);
      di[k] = dhg[k] = dr;
      di[hidden + k] = dhg[hidden + k] = dz;
      di[2 * hidden + k] = dn;
      dhg[2 * hidden + k] = dn * r[k];
      dhp[k] = dh[k] * z[k];
    }
  });
}

void lstm_cell_kernel(const Tensor& gates, const Tensor& c_prev, const Tensor& h, const Tensor& c, const Tensor& act) {
  dispatch_float(gates.dtype(), "lstm_cell", [&](auto t) {
    using T = decltype(t);
    lstm_forward(gates.data<T>(), c_prev.data<T>(), h.data<T>(), c.data<T>(), act.data<T>(), c.dim(0), c.dim(1));
  });
}

void lstm_cell_backward_kernel(const Tensor& grad_h, const Tensor& dc, const Tensor& act, const Tensor& c_prev,
                               const Tensor& c, const Tensor& d_gates, const Tensor& dc_prev) {
  dispatch_float(act.dtype(), "lstm_cell_backward", [&](auto t) {
    using T = decltype(t);
    lstm_backward(grad_h.data<T>(), dc.data<T>(), act.data<T>(), c_prev.data<T>(), c.data<T>(), d_gates.data<T>(),
                  dc_prev.data<T>(), c.dim(0), c.dim(1));
  });
}

void gru_cell_kernel(const Tensor& input_gates, const Tensor& hidden_gates, const Tensor& h_prev, const Tensor& h,
                     const Tensor& act) {
  dispatch_float(h.dtype(), "gru_cell", [&](auto t) {
    using T = decltype(t);
    gru_forward(input_gates.data<T>(), hidden_gates.data<T>(), h_prev.data<T>(), h.data<T>(), act.data<T>(), h.dim(0),
                h.dim(1));
  });
}

void gru_cell_backward_kernel(const Tensor& grad_h, const Tensor& act, const Tensor& hidden_gates,
                              const Tensor& h_prev, const Tensor& d_input, const Tensor& d_hidden,
                              const Tensor& dh_prev) {
  dispatch_float(act.dtype(), "gru_cell_backward", [&](auto t) {
    using T = decltype(t);
    gru_backward(grad_h.data<T>(), act.data<T>(), hidden_gates.data<T>(), h_prev.data<T>(), d_input.data<T>(),
                 d_hidden.data<T>(), dh_prev.data<T>(), dh_prev.dim(0), dh_prev.dim(1));
  });
}

}  // namespace

ACC_REGISTER_KERNELS {
  register_kernel(op::lstm_cell, DeviceKind::cpu, dtypes::floating, &lstm_cell_kernel);
  register_kernel(op::lstm_cell_backward, DeviceKind::cpu, dtypes::floating, &lstm_cell_backward_kernel);
  register_kernel(op::gru_cell, DeviceKind::cpu, dtypes::floating, &gru_cell_kernel);
  register_kernel(op::gru_cell_backward, DeviceKind::cpu, dtypes::floating, &gru_cell_backward_kernel);
}

}  // namespace accelera::cpu
