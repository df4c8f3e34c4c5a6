// The fused GRU cell backward (Note [Fused GRU cell] in ops/recurrent_cell.hpp): one work item per (row,
// unit). From grad_h and the forward's act (r, z, n), hidden_gates (its n third, hn) and h_prev: the input
// gates' gradient (dr, dz, dn), the hidden gates' (dr, dz, dn r), and dh_prev = grad_h z.
__kernel void gru_cell_backward(const long rows, const long hidden, __global const T* grad_h, const long gho,
                                __global const T* act, const long ao, __global const T* hidden_gates,
                                const long hgo, __global const T* h_prev, const long hpo, __global T* d_input,
                                const long dio, __global T* d_hidden, const long dho, __global T* dh_prev,
                                const long dhpo) {
  const long id = get_global_id(0);
  if (id >= rows * hidden) return;
  const long row = id / hidden, k = id - row * hidden;
  __global const T* a = act + ao + row * 3 * hidden;
  const T r = a[k], z = a[hidden + k], n = a[2 * hidden + k];
  const T hn = hidden_gates[hgo + row * 3 * hidden + 2 * hidden + k], dh = grad_h[gho + id];
  const T dn = dh * ((T)1 - z) * ((T)1 - n * n);
  const T dr = dn * hn * r * ((T)1 - r);
  const T dz = dh * (h_prev[hpo + id] - n) * z * ((T)1 - z);
  __global T* di = d_input + dio + row * 3 * hidden;
  __global T* dhg = d_hidden + dho + row * 3 * hidden;
  di[k] = dhg[k] = dr;
  di[hidden + k] = dhg[hidden + k] = dz;
  di[2 * hidden + k] = dn;
  dhg[2 * hidden + k] = dn * r;
  dh_prev[dhpo + id] = dh * z;
}
