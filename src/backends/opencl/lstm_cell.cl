// The fused LSTM cell forward (Note [Fused LSTM cell] in ops/recurrent_cell.hpp): one work item per (row,
// unit). From the pre-activation gates (rows, 4 hidden; order i, f, g, o) and c_prev: act holds sigmoid(i),
// sigmoid(f), tanh(g), sigmoid(o); c = f c_prev + i g; h = o tanh(c). Every operand is C-contiguous from
// its offset.
inline T lstm_sigmoid(T x) {
  const T e = exp(-fabs(x));  // never overflows; a nan stays nan
  return x >= (T)0 ? (T)1 / ((T)1 + e) : e / ((T)1 + e);
}

__kernel void lstm_cell(const long rows, const long hidden, __global const T* gates, const long go,
                        __global const T* c_prev, const long cpo, __global T* h, const long ho, __global T* c,
                        const long co, __global T* act, const long ao) {
  const long id = get_global_id(0);
  if (id >= rows * hidden) return;
  const long r = id / hidden, k = id - r * hidden;
  __global const T* g = gates + go + r * 4 * hidden;
  const T i = lstm_sigmoid(g[k]), f = lstm_sigmoid(g[hidden + k]), gg = tanh(g[2 * hidden + k]);
  const T o = lstm_sigmoid(g[3 * hidden + k]);
  __global T* a = act + ao + r * 4 * hidden;
  a[k] = i;
  a[hidden + k] = f;
  a[2 * hidden + k] = gg;
  a[3 * hidden + k] = o;
  const T cv = f * c_prev[cpo + id] + i * gg;
  c[co + id] = cv;
  h[ho + id] = o * tanh(cv);
}
