// The fused LSTM cell backward (Note [Fused LSTM cell] in ops/recurrent_cell.hpp): one work item per (row,
// unit). From grad_h, the cell state's gradient dc arriving from the next step, and the forward's act,
// c_prev and c: d_gates (rows, 4 hidden), the pre-activation gates' gradient, and dc_prev.
__kernel void lstm_cell_backward(const long rows, const long hidden, __global const T* grad_h, const long gho,
                                 __global const T* dc, const long dco, __global const T* act, const long ao,
                                 __global const T* c_prev, const long cpo, __global const T* c, const long co,
                                 __global T* d_gates, const long dgo, __global T* dc_prev, const long dcpo) {
  const long id = get_global_id(0);
  if (id >= rows * hidden) return;
  const long r = id / hidden, k = id - r * hidden;
  __global const T* a = act + ao + r * 4 * hidden;
  const T i = a[k], f = a[hidden + k], g = a[2 * hidden + k], o = a[3 * hidden + k];
  const T tc = tanh(c[co + id]), dh = grad_h[gho + id];
  const T dct = dc[dco + id] + dh * o * ((T)1 - tc * tc);  // the cell state's whole gradient
  __global T* dg = d_gates + dgo + r * 4 * hidden;
  dg[k] = dct * g * i * ((T)1 - i);
  dg[hidden + k] = dct * c_prev[cpo + id] * f * ((T)1 - f);
  dg[2 * hidden + k] = dct * i * ((T)1 - g * g);
  dg[3 * hidden + k] = dh * tc * o * ((T)1 - o);
  dc_prev[dcpo + id] = dct * f;
}
