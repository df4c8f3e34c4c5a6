// The fused GRU cell forward (Note [Fused GRU cell] in ops/recurrent_cell.hpp): one work item per (row,
// unit). From the input's and the hidden side's gates (rows, 3 hidden; order r, z, n) and h_prev: act holds
// r = sigmoid(xr + hr), z = sigmoid(xz + hz), n = tanh(xn + r hn); h = (1 - z) n + z h_prev. Every operand
// is C-contiguous from its offset.
inline T gru_sigmoid(T x) {
  const T e = exp(-fabs(x));  // never overflows; a nan stays nan
  return x >= (T)0 ? (T)1 / ((T)1 + e) : e / ((T)1 + e);
}

__kernel void gru_cell(const long rows, const long hidden, __global const T* input_gates, const long xo,
                       __global const T* hidden_gates, const long hgo, __global const T* h_prev, const long hpo,
                       __global T* h, const long ho, __global T* act, const long ao) {
  const long id = get_global_id(0);
  if (id >= rows * hidden) return;
  const long row = id / hidden, k = id - row * hidden;
  __global const T* xg = input_gates + xo + row * 3 * hidden;
  __global const T* hg = hidden_gates + hgo + row * 3 * hidden;
  const T r = gru_sigmoid(xg[k] + hg[k]), z = gru_sigmoid(xg[hidden + k] + hg[hidden + k]);
  const T n = tanh(xg[2 * hidden + k] + r * hg[2 * hidden + k]);
  __global T* a = act + ao + row * 3 * hidden;
  a[k] = r;
  a[hidden + k] = z;
  a[2 * hidden + k] = n;
  h[ho + id] = n + z * (h_prev[hpo + id] - n);
}
