// Matrix multiplication through BLAS (backends/cpu/blas.hpp), batched over leading axes. Operands map onto
// BLAS without a copy where Note [BLAS layouts] allows and are packed otherwise.
#include <optional>

#include "backends/common/batch_matrix.hpp"
#include "backends/common/blas_layout.hpp"
#include "backends/cpu/blas.hpp"
#include "backends/cpu/dispatch.hpp"
#include "ops/fill.hpp"
#include "ops/matmul.hpp"

namespace accelera::cpu {

namespace {

struct BlasView {
  const void* data;
  blas::Transpose trans;
  std::int64_t ld;
};

std::optional<BlasView> blas_view(const void* data, std::int64_t rows, std::int64_t cols, std::int64_t rs,
                                  std::int64_t cs) {
  const auto op = backends::blas_operand(rows, cols, rs, cs);
  if (!op) return std::nullopt;
  return BlasView{data, op->transposed ? blas::Transpose::yes : blas::Transpose::no, op->ld};
}

template <typename T>
void run(const Tensor& a, const Tensor& b, const Tensor& out, bool accumulate) {
  const std::int64_t nd = out.ndim();
  const std::int64_t m = out.shape()[nd - 2], n = out.shape()[nd - 1], k = a.shape()[nd - 1];
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (!accumulate) kernel_for(op::fill, out.device(), out.dtype())(out, 0.0);
    return;
  }
  const Shape batch_shape(std::span(out.shape().dims()).first(static_cast<std::size_t>(nd - 2)));
  const std::int64_t batches = batch_shape.numel();
  // out is always a fresh contiguous tensor (ops allocate it), so C needs no packing.
  ACC_ASSERT(out.strides()[static_cast<std::size_t>(nd - 1)] == 1 || n == 1, "matmul output must be row-contiguous");
  for (std::int64_t bi = 0; bi < batches; ++bi) {
    // Each operand maps onto BLAS as it is, or is packed into a contiguous copy.
    Tensor am = backends::batch_matrix(a, bi, batch_shape);
    Tensor bm = backends::batch_matrix(b, bi, batch_shape);
    const Tensor cm = backends::batch_matrix(out, bi, batch_shape);
    auto av = blas_view(am.data_ptr(), m, k, am.strides()[0], am.strides()[1]);
    if (!av) {
      am = am.contiguous();
      av = BlasView{am.data_ptr(), blas::Transpose::no, k};
    }
    auto bv = blas_view(bm.data_ptr(), k, n, bm.strides()[0], bm.strides()[1]);
    if (!bv) {
      bm = bm.contiguous();
      bv = BlasView{bm.data_ptr(), blas::Transpose::no, n};
    }
    // A single row's stride is arbitrary in a contiguous tensor; BLAS wants at least the row length.
    const std::int64_t ldc = m == 1 ? n : cm.strides()[0];
    blas::gemm("matmul", av->trans, bv->trans, m, n, k, static_cast<const T*>(av->data), av->ld,
               static_cast<const T*>(bv->data), bv->ld, accumulate ? T{1} : T{0}, cm.data<T>(), ldc);
  }
}

}  // namespace

void matmul_kernel(const Tensor& a, const Tensor& b, const Tensor& out, bool accumulate) {
  dispatch_float(out.dtype(), "matmul", [&](auto t) { run<decltype(t)>(a, b, out, accumulate); });
}

ACC_REGISTER_KERNELS { register_kernel(op::matmul, DeviceKind::cpu, dtypes::floating, &matmul_kernel); }

}  // namespace accelera::cpu
