#pragma once
// The CPU backend's vectorised kernels: plain C++ entry points on raw pointers, each compiled by Highway
// for every instruction set of the architecture and dispatched at run time to the best one that the CPU
// supports and ACCELERA_CPU_TARGET allows (Note [SIMD dispatch] in targets.cpp). Each call handles one
// contiguous run or block of rows; the callers in kernels/ own the threading.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace accelera::cpu::simd {

// --- targets ----------------------------------------------------------------------------------------

// Restricts dispatch to `name` and the targets below it: "best" (no restriction), "avx512", "avx2",
// "sse4", "scalar" on x86; "sve2", "sve", "neon", "scalar" on Arm. Throws ValueError for other names.
// ACCELERA_CPU_TARGET is applied the same way before the first kernel runs.
void select_target(std::string_view name);
// Names (as select_target takes them) of the targets compiled into this build, best first.
std::vector<std::string> compiled_target_names();
// Those that this CPU can run, best first (unaffected by select_target).
std::vector<std::string> supported_target_names();
// The target the kernels run on now.
std::string active_target_name();
// Applies ACCELERA_CPU_TARGET once (ValueError for a bad name). Every entry point below calls it, but the
// kernels call it first, outside their parallel regions: an exception must not leave an OpenMP region.
void ensure_target_selected();

// --- stores -----------------------------------------------------------------------------------------

// Where results go: through the cache, or straight to memory with non-temporal stores, which spares the
// read of every output line that an ordinary store makes (Note [Streaming stores] in targets.cpp).
enum class Store { cached, streaming };
Store store_for(std::int64_t output_bytes);

// --- GELU -------------------------------------------------------------------------------------------

// out[k] = gelu(x[k] + bias[k]) for k < n (bias may be null; out may be x).
void gelu(const float* x, const float* bias, float* out, std::int64_t n, bool tanh_form, Store store);
void gelu(const double* x, const double* bias, double* out, std::int64_t n, bool tanh_form, Store store);
// dx[k] = grad[k] * gelu'(x[k]).
void gelu_backward(const float* grad, const float* x, float* dx, std::int64_t n, bool tanh_form, Store store);
void gelu_backward(const double* grad, const double* x, double* dx, std::int64_t n, bool tanh_form, Store store);

// --- LayerNorm and softmax on `rows` contiguous rows of n ----------------------------------------
// A call takes a block of rows so that its fixed costs (dispatch, the fence after streaming stores) are
// shared; callers hand each thread blocks of about 64 KiB.

// Rows per call for rows of n elements of `item_bytes` each: about 64 KiB, at least one row.
inline std::int64_t rows_per_call(std::int64_t n, std::int64_t item_bytes) {
  const std::int64_t row_bytes = n * item_bytes;
  return row_bytes >= (std::int64_t{64} << 10) ? 1 : (std::int64_t{64} << 10) / (row_bytes > 0 ? row_bytes : 1);
}

// y = (x - mean) * rstd * weight + bias (weight, bias may be null); writes each row's mean and rstd.
void layer_norm_rows(const float* x, const float* weight, const float* bias, std::int64_t rows, std::int64_t n,
                     double eps, float* y, float* mean, float* rstd, Store store);
void layer_norm_rows(const double* x, const double* weight, const double* bias, std::int64_t rows, std::int64_t n,
                     double eps, double* y, double* mean, double* rstd, Store store);
// dx of each row from the forward pass's mean and rstd; when dweight_sum is not null (then neither is
// dbias_sum), adds grad * xhat of every row to it and grad to dbias_sum.
void layer_norm_backward_rows(const float* grad, const float* x, const float* weight, const float* mean,
                              const float* rstd, std::int64_t rows, std::int64_t n, float* dx, float* dweight_sum,
                              float* dbias_sum, Store store);
void layer_norm_backward_rows(const double* grad, const double* x, const double* weight, const double* mean,
                              const double* rstd, std::int64_t rows, std::int64_t n, double* dx, double* dweight_sum,
                              double* dbias_sum, Store store);

void softmax_rows(const float* x, float* y, std::int64_t rows, std::int64_t n, bool log, Store store);
void softmax_rows(const double* x, double* y, std::int64_t rows, std::int64_t n, bool log, Store store);
// dx from the forward output y and the incoming gradient.
void softmax_backward_rows(const float* grad, const float* y, float* dx, std::int64_t rows, std::int64_t n, bool log,
                           Store store);
void softmax_backward_rows(const double* grad, const double* y, double* dx, std::int64_t rows, std::int64_t n, bool log,
                           Store store);

// --- element-wise functions (contiguous runs) -------------------------------------------------------

// sin ... log10, pow and atan2: Note [Vector transcendental functions] (lane_functions-inl.h).
enum class UnaryFunction {
  exp, expm1, log, log1p, tanh, sigmoid,
  sin, cos, tan, asin, acos, atan, sinh, cosh, asinh, acosh, atanh, log2, log10
};
void unary(UnaryFunction fn, const float* x, float* out, std::int64_t n, Store store);
void unary(UnaryFunction fn, const double* x, double* out, std::int64_t n, Store store);

// out[k] = a[k] op b[k] for k < n; an operand flagged scalar is the one value *a or *b for every k.
enum class BinaryFunction { add, subtract, multiply, divide, pow, atan2 };
void binary(BinaryFunction fn, const float* a, bool a_scalar, const float* b, bool b_scalar, float* out, std::int64_t n,
            Store store);
void binary(BinaryFunction fn, const double* a, bool a_scalar, const double* b, bool b_scalar, double* out,
            std::int64_t n, Store store);

// out[k] = |pairs[2k] + i pairs[2k + 1]| for k < n (C's cabs special values, within 2 ulp of hypot).
void complex_abs(const float* pairs, float* out, std::int64_t n);
void complex_abs(const double* pairs, double* out, std::int64_t n);

// --- reductions (contiguous runs) -------------------------------------------------------------------

// Sums accumulate in double. max returns the first nan of the run if there is one, and -inf for n == 0.
double sum(const float* x, std::int64_t n);
double sum(const double* x, std::int64_t n);
// The sum of a[k] * b[k] for k < n, in double (exact products of floats).
double dot(const float* a, const float* b, std::int64_t n);
double dot(const double* a, const double* b, std::int64_t n);
// The sum of (x[k] - center)^2, in double (var's second pass).
double sum_squared_deviations(const float* x, std::int64_t n, double center);
double sum_squared_deviations(const double* x, std::int64_t n, double center);
// Column sums: acc[j] += x[r * stride + j] for r < rows and j < n; with a center (not null),
// acc[j] += (x[r * stride + j] - center[j])^2 instead.
void add_rows(const float* x, std::int64_t rows, std::int64_t stride, std::int64_t n, const double* center,
              double* acc);
void add_rows(const double* x, std::int64_t rows, std::int64_t stride, std::int64_t n, const double* center,
              double* acc);
float max(const float* x, std::int64_t n);
double max(const double* x, std::int64_t n);
float min(const float* x, std::int64_t n);
double min(const double* x, std::int64_t n);
// Integer runs: the largest (smallest) element; the type's lowest (highest) value for n == 0.
#define ACC_SIMD_DECLARE_INTEGER_EXTREMA(type) \
  type max(const type* x, std::int64_t n);     \
  type min(const type* x, std::int64_t n);
ACC_SIMD_DECLARE_INTEGER_EXTREMA(std::int8_t)
ACC_SIMD_DECLARE_INTEGER_EXTREMA(std::int16_t)
ACC_SIMD_DECLARE_INTEGER_EXTREMA(std::int32_t)
ACC_SIMD_DECLARE_INTEGER_EXTREMA(std::int64_t)
ACC_SIMD_DECLARE_INTEGER_EXTREMA(std::uint8_t)
ACC_SIMD_DECLARE_INTEGER_EXTREMA(std::uint16_t)
ACC_SIMD_DECLARE_INTEGER_EXTREMA(std::uint32_t)
ACC_SIMD_DECLARE_INTEGER_EXTREMA(std::uint64_t)
#undef ACC_SIMD_DECLARE_INTEGER_EXTREMA
// The first k < n with x[k] == value (a nan value finds the first nan); n when there is none.
std::int64_t first_index(const float* x, std::int64_t n, float value);
std::int64_t first_index(const double* x, std::int64_t n, double value);

// --- Philox random draws (Note [Vector Philox] in philox.cpp) ---------------------------------------
// The first `count` elements of a draw with `seed` that starts at counter block first_block (element k is
// word k % 4 of block first_block + k / 4), as Note [Counter-based random numbers] (ops/random.hpp)
// defines them: uniforms and integers bit for bit the scalar kernels', and every element the same
// whatever the count or where a call starts (whole blocks), on a given target.

// out = low + scale * uniform [0, 1).
void philox_uniform(float* out, std::int64_t count, std::uint64_t seed, std::uint64_t first_block, float low,
                    float scale);
void philox_uniform(double* out, std::int64_t count, std::uint64_t seed, std::uint64_t first_block, double low,
                    double scale);
// out = loc + scale * standard normal (Box-Muller in vectors: within a few ulp of the scalar kernels').
void philox_normal(float* out, std::int64_t count, std::uint64_t seed, std::uint64_t first_block, float loc,
                   float scale);
void philox_normal(double* out, std::int64_t count, std::uint64_t seed, std::uint64_t first_block, double loc,
                   double scale);
// out = base + an integer in [0, range) (wrapping; range 0 stands for 2^64 with int64 out).
void philox_integers(std::int32_t* out, std::int64_t count, std::uint64_t seed, std::uint64_t first_block,
                     std::uint64_t base, std::uint64_t range);
void philox_integers(std::int64_t* out, std::int64_t count, std::uint64_t seed, std::uint64_t first_block,
                     std::uint64_t base, std::uint64_t range);

// --- attention tiles (kernels/attention_tiles.hpp) --------------------------------------------------
// Called inside parallel regions: the attention kernels call ensure_target_selected() before them.

// x[k] = exp(x[k] - shift) for k < n; returns the sum (the online softmax of a score row).
float exp_shifted_sum(float* x, std::int64_t n, float shift);
double exp_shifted_sum(double* x, std::int64_t n, double shift);
// c (block x block) = a (block x dp) @ bt (dp x block) * alpha; block and dp multiples of 64 bytes / T.
void tile_gemm_abt(const float* a, const float* bt, std::int64_t block, std::int64_t dp, float alpha, float* c);
void tile_gemm_abt(const double* a, const double* bt, std::int64_t block, std::int64_t dp, double alpha, double* c);
// c (block x dp) += p (block x block) @ b (block x dp), over p's first `inner` columns.
void tile_gemm_ab_acc(const float* p, const float* b, std::int64_t block, std::int64_t inner, std::int64_t dp,
                      float* c);
void tile_gemm_ab_acc(const double* p, const double* b, std::int64_t block, std::int64_t inner, std::int64_t dp,
                      double* c);

}  // namespace accelera::cpu::simd
