// Matrix multiplication through OpenBLAS, batched over leading axes. Operands map onto BLAS without a
// copy where Note [BLAS layouts] allows and are packed otherwise. BLAS takes 32-bit sizes: rows beyond
// 2^31 are handled by splitting M; a row or leading dimension that does not fit raises NotSupportedError.
#include <cblas.h>

#include <algorithm>
#include <climits>
#include <optional>

#include "backends/common/batch_matrix.hpp"
#include "backends/common/blas_layout.hpp"
#include "backends/cpu/dispatch.hpp"
#include "ops/fill.hpp"
#include "ops/matmul.hpp"

namespace accelera::cpu {

namespace {

struct BlasView {
  const void* data;
  CBLAS_TRANSPOSE trans;
  std::int64_t ld;
};

std::optional<BlasView> blas_view(const void* data, std::int64_t rows, std::int64_t cols, std::int64_t rs,
                                  std::int64_t cs) {
  const auto op = backends::blas_operand(rows, cols, rs, cs);
  if (!op) return std::nullopt;
  return BlasView{data, op->transposed ? CblasTrans : CblasNoTrans, op->ld};
}

template <typename T>
void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, std::int64_t m, std::int64_t n, std::int64_t k, const T* a,
          std::int64_t lda, const T* b, std::int64_t ldb, T* c, std::int64_t ldc, T beta) {
  ACC_CHECK(n <= INT_MAX && k <= INT_MAX && lda <= INT_MAX && ldb <= INT_MAX && ldc <= INT_MAX, NotSupportedError,
            "matmul: a row of more than 2^31 elements (n={}, k={}) exceeds 32-bit BLAS", n, k);
  // CBLAS reports bad arguments by printing and returning with nothing computed: check them here.
  ACC_ASSERT(lda >= std::max<std::int64_t>(1, ta == CblasNoTrans ? k : m) &&
                 ldb >= std::max<std::int64_t>(1, tb == CblasNoTrans ? n : k) && ldc >= std::max<std::int64_t>(1, n),
             "BLAS leading dimensions {}, {}, {} do not fit a {}x{}x{} product", lda, ldb, ldc, m, k, n);
  // Split M so each call stays within int range; A's row step depends on its transposition.
  const std::int64_t a_row_step = ta == CblasNoTrans ? lda : 1;
  for (std::int64_t m0 = 0; m0 < m; m0 += INT_MAX) {
    const auto mb = static_cast<int>(std::min<std::int64_t>(INT_MAX, m - m0));
    const T* ap = a + m0 * a_row_step;
    T* cp = c + m0 * ldc;
    if constexpr (std::is_same_v<T, float>) {
      cblas_sgemm(CblasRowMajor, ta, tb, mb, static_cast<int>(n), static_cast<int>(k), 1.0f, ap,
                  static_cast<int>(lda), b, static_cast<int>(ldb), beta, cp, static_cast<int>(ldc));
    } else {
      cblas_dgemm(CblasRowMajor, ta, tb, mb, static_cast<int>(n), static_cast<int>(k), 1.0, ap,
                  static_cast<int>(lda), b, static_cast<int>(ldb), beta, cp, static_cast<int>(ldc));
    }
  }
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
      av = BlasView{am.data_ptr(), CblasNoTrans, k};
    }
    auto bv = blas_view(bm.data_ptr(), k, n, bm.strides()[0], bm.strides()[1]);
    if (!bv) {
      bm = bm.contiguous();
      bv = BlasView{bm.data_ptr(), CblasNoTrans, n};
    }
    // A single row's stride is arbitrary in a contiguous tensor; BLAS wants at least the row length.
    const std::int64_t ldc = m == 1 ? n : cm.strides()[0];
    gemm<T>(av->trans, bv->trans, m, n, k, static_cast<const T*>(av->data), av->ld,
            static_cast<const T*>(bv->data), bv->ld, cm.data<T>(), ldc, accumulate ? T{1} : T{0});
  }
}

}  // namespace

void matmul_kernel(const Tensor& a, const Tensor& b, const Tensor& out, bool accumulate) {
  dispatch_float(out.dtype(), "matmul", [&](auto t) { run<decltype(t)>(a, b, out, accumulate); });
}

ACC_REGISTER_KERNELS { register_kernel(op::matmul, DeviceKind::cpu, dtypes::floating, &matmul_kernel); }

}  // namespace accelera::cpu
