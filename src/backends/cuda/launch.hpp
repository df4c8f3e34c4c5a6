#pragma once
// The host entry points of the CUDA kernels (<op>.cu beside the <op>.cpp launchers). Each enqueues on `stream` and checks the
// launch; tensors arrive as device pointers to their element [0, ...] plus a strided layout in elements.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "accelera/core/dtype.hpp"
#include "ops/elementwise.hpp"

namespace accelera::cuda::kernels {

inline constexpr int kMaxDims = 8;

// Up to three operands over one coalesced index space (backends::make_layout), innermost axis last.
struct Layout {
  int ndim = 1;
  std::int64_t numel = 0;
  std::int64_t dims[kMaxDims] = {};
  std::int64_t strides[3][kMaxDims] = {};
};

struct Launch {
  cudaStream_t stream = nullptr;
  int max_blocks = 1;
};

// Throws DeviceError when the launch just enqueued failed (defined in cuda_check.cpp).
void check_launch(const char* kernel);
// Throws DeviceError naming `what` when a runtime call returned an error.
void check_status(cudaError_t status, const char* what);

// dst = src (same dtype, elements of `itemsize` bytes), any strides.
void copy_same(const Layout& layout, void* dst, const void* src, std::size_t itemsize, Launch launch);
// dst = src converted as the CPU backend converts (operand 0: dst, 1: src).
void copy_convert(const Layout& layout, void* dst, DType dst_dtype, const void* src, DType src_dtype,
                  Launch launch);
// Every element of dst (operand 0) = the `itemsize`-byte pattern.
void fill(const Layout& layout, void* dst, std::uint64_t pattern, std::size_t itemsize, Launch launch);
// binary, unary and reduce return false, launching nothing, for a dtype they do not compute (the caller
// raises the error: these files stay free of the library's formatting headers).
// The element-wise functions of ops/elementwise.hpp, one enumerator each.
#define ACC_CUDA_ENUMERATOR(name, kind, expression) name,
enum class UnaryFunction { ACC_UNARY_FUNCTIONS(ACC_CUDA_ENUMERATOR) };
enum class BinaryFunction { ACC_BINARY_FUNCTIONS(ACC_CUDA_ENUMERATOR) };
#undef ACC_CUDA_ENUMERATOR
// Operands 0: out, 1: a, 2: b. `aligned`: all three are contiguous and 16-byte aligned.
bool binary(BinaryFunction fn, DType dtype, const Layout& layout, void* out, const void* a, const void* b, bool aligned,
            Launch launch);
// Operands 0: out, 1: x.
bool unary(UnaryFunction fn, DType dtype, const Layout& layout, void* out, const void* x, bool aligned, Launch launch);

// A reduction: `kept` iterates the outputs (operand 0: out, 1: x), `reduced` the `count` elements of one
// output (operand 0: x). per_thread: one thread per output (short or column reductions, where adjacent
// threads read adjacent memory). Otherwise one block per output, or `parts` blocks per output writing
// `partials` (8 bytes per part and output) that a second kernel combines. squared_deviations sums
// (x - c)^2, c the output's element of `center` (out's layout: operand 0's offsets; null for the others).
enum class ReduceFunction { sum, mean, max, min, prod, squared_deviations };
struct ReduceShape {
  Layout kept, reduced;
  std::int64_t outputs = 0, count = 0, parts = 1;
  bool per_thread = false;
};
bool reduce(ReduceFunction fn, DType dtype, const ReduceShape& shape, void* out, const void* x, void* partials,
            Launch launch, const void* center = nullptr);

// argmax (max = true) or argmin over the ReduceShape's layouts (parts unused): out holds int64 indices.
bool arg_extremum(bool max, DType dtype, const ReduceShape& shape, void* out, const void* x, Launch launch);

}  // namespace accelera::cuda::kernels
