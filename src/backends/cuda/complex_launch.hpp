#pragma once
// Host entry points of the complex element-wise kernels (complex.cu; Note [Complex element-wise
// functions]). Each returns false, launching nothing, for a dtype other than complex64 or complex128.
#include "backends/cuda/launch.hpp"
#include "ops/complex_elementwise.hpp"

namespace accelera::cuda::kernels {

// Operands 0: out (complex, its real dtype or Bool, by function), 1: x.
bool complex_unary(ComplexUnary fn, DType dtype, const Layout& layout, void* out, const void* x, Launch launch);
// Operands 0: out (complex or Bool), 1: a, 2: b.
bool complex_binary(ComplexBinary fn, DType dtype, const Layout& layout, void* out, const void* a, const void* b,
                    Launch launch);

}  // namespace accelera::cuda::kernels
