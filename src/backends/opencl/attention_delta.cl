// D_i = dO_i . O_i for every query row (rows of length d): the attention backward's row correction.
__kernel void attention_delta(const long rows, const int d, __global const T* grad, const long go,
                              __global const T* out, const long oo, __global T* delta) {
  const long r = get_global_id(0);
  if (r >= rows) return;
  T acc = 0;
  for (int c = 0; c < d; ++c) acc += grad[go + r * d + c] * out[oo + r * d + c];
  delta[r] = acc;
}
