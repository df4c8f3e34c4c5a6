#pragma once
// Host entry points of the CUDA fused neural-network kernels other than attention (gelu.cu,
// layer_norm.cu, softmax.cu). Operands are C-contiguous (Note [Fused kernel contract] in ops/nn_common.hpp),
// passed as device pointers to their first element. Each function returns false, launching nothing, for
// a dtype it does not compute; it enqueues on the given stream and checks the launch.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "accelera/core/dtype.hpp"
#include "backends/cuda/launch.hpp"

namespace accelera::cuda::kernels {

// Where a kernel runs: the device ordinal (for its cached occupancy), its multiprocessors, the stream.
struct Target {
  int ordinal = 0;
  int sm_count = 1;
  cudaStream_t stream = nullptr;
};

// Row kernels run one block per row of `n` elements (grid-striding over the rows). `threads` is a multiple
// of 32; `cached` elements per thread are held in registers between passes (0: every pass re-reads the
// row from memory, for rows too long to hold).
struct Rows {
  std::int64_t rows = 0, n = 0;
  int threads = 32;
  int cached = 0;
};

// Block width and register cache for rows of n elements: about four elements per thread up to 1024
// threads; rows of up to 8192 elements held in registers.
inline Rows plan_rows(std::int64_t rows, std::int64_t n) {
  Rows r;
  r.rows = rows;
  r.n = n;
  const std::int64_t want = ((n + 3) / 4 + 31) / 32 * 32;
  r.threads = static_cast<int>(want < 32 ? 32 : (want > 1024 ? 1024 : want));
  const std::int64_t per_thread = (n + r.threads - 1) / r.threads;
  // Wider caches spill under the 64-register limit of 1024-thread blocks (measured with -Xptxas -v).
  r.cached = per_thread <= 4 ? 4 : (per_thread <= 8 ? 8 : 0);
  return r;
}

// out = GELU(x + bias) over (rows, n); bias (n) or null. `aligned`: x, out (and bias) 16-byte aligned.
bool gelu(DType dtype, bool tanh_form, std::int64_t rows, std::int64_t n, const void* x, const void* bias,
          void* out, bool aligned, Launch launch);
// dx = grad * GELU'(x) over `count` elements.
bool gelu_backward(DType dtype, bool tanh_form, std::int64_t count, const void* grad, const void* x, void* dx,
                   bool aligned, Launch launch);

// The fused LSTM cell over (rows, hidden) units: gates and act (rows, 4 hidden), states (rows, hidden).
bool lstm_cell(DType dtype, std::int64_t rows, std::int64_t hidden, const void* gates, const void* c_prev, void* h,
               void* c, void* act, Launch launch);
bool lstm_cell_backward(DType dtype, std::int64_t rows, std::int64_t hidden, const void* grad_h, const void* dc,
                        const void* act, const void* c_prev, const void* c, void* d_gates, void* dc_prev, Launch launch);
// The GRU cell (Note [Fused GRU cell] in ops/recurrent_cell.hpp): (rows, 3 hidden) gates, (rows, hidden) states.
bool gru_cell(DType dtype, std::int64_t rows, std::int64_t hidden, const void* input_gates, const void* hidden_gates,
              const void* h_prev, void* h, void* act, Launch launch);
bool gru_cell_backward(DType dtype, std::int64_t rows, std::int64_t hidden, const void* grad_h, const void* act,
                       const void* hidden_gates, const void* h_prev, void* d_input, void* d_hidden, void* dh_prev,
                       Launch launch);

// mean and rstd are float (double for float64 rows); weight and bias may be null.
bool layer_norm(DType dtype, const Rows& rows, double eps, const void* x, const void* weight, const void* bias,
                void* out, void* mean, void* rstd, Target target);
bool layer_norm_backward(DType dtype, const Rows& rows, const void* grad, const void* x, const void* weight,
                         const void* mean, const void* rstd, void* dx, Target target);
// dweight = sum over rows of grad * xhat, dbias = sum of grad (either may be null). `partials` holds
// 2 * parts * n compute values; parts splits the rows among blocks (see layer_norm_param_parts).
bool layer_norm_param_grad(DType dtype, std::int64_t rows, std::int64_t n, const void* grad, const void* x,
                           const void* mean, const void* rstd, void* dweight, void* dbias, void* partials,
                           std::int64_t parts, Launch launch);
std::int64_t layer_norm_param_parts(std::int64_t rows, std::int64_t n, int sm_count);

// Softmax, or log-softmax with `log`, over each row; and the backward pass from the forward result y.
bool softmax(DType dtype, const Rows& rows, bool log, const void* x, void* out, Target target);
bool softmax_backward(DType dtype, const Rows& rows, bool log, const void* grad, const void* y, void* dx,
                      Target target);

}  // namespace accelera::cuda::kernels
