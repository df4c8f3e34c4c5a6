#pragma once
// Linear algebra: the array API standard's tensordot and vecdot and its `linalg` extension (NumPy's
// numpy.linalg semantics, batched over leading axes). Factorisations run on LAPACK (CPU), cuSOLVER (CUDA)
// or LAPACK on the host for OpenCL (logged); everything built around them runs on the inputs' device
// (Note [Factorisation kernels] in src/ops/linalg_kernels.hpp). Matrices are float32 or float64; float16 and
// bfloat16 are computed in float32 and returned in their dtype; integers raise DTypeError. A matrix a
// factorisation cannot take raises LinAlgError (a ValueError). Inputs are never modified.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "accelera/core/export.hpp"
#include "accelera/core/tensor.hpp"
#include "accelera/ops.hpp"

namespace accelera {

// Sums products over the last `axes` axes of a and the first `axes` of b (floating dtypes).
ACC_API Tensor tensordot(const Tensor& a, const Tensor& b, std::int64_t axes = 2);
// Sums products over axes_a[i] of a paired with axes_b[i] of b; extents must be equal.
ACC_API Tensor tensordot(const Tensor& a, const Tensor& b, const std::vector<std::int64_t>& axes_a,
                         const std::vector<std::int64_t>& axes_b);
// The dot product of vectors along `axis` (after broadcasting; extents must be equal there).
ACC_API Tensor vecdot(const Tensor& a, const Tensor& b, std::int64_t axis = -1);

namespace linalg {

struct SlogdetResult {
  Tensor sign, logabsdet;
};
struct EighResult {
  Tensor eigenvalues, eigenvectors;  // ascending; eigenvectors as columns
};
struct SvdResult {
  Tensor U, S, Vh;  // S descending
};
struct QrResult {
  Tensor Q, R;
};

// The solution x of a @ x = b; b of shape (..., n, k), or (n,) for one vector (then x has shape (..., n)).
ACC_API Tensor solve(const Tensor& a, const Tensor& b);
ACC_API Tensor inv(const Tensor& a);
ACC_API Tensor det(const Tensor& a);
ACC_API SlogdetResult slogdet(const Tensor& a);
// The lower factor L of a = L L^T (lower triangle of a read), or with `upper` U = L^T (a = U^T U).
ACC_API Tensor cholesky(const Tensor& a, bool upper = false);
// Eigen decomposition of symmetric matrices; the lower triangle is read.
ACC_API EighResult eigh(const Tensor& a);
ACC_API Tensor eigvalsh(const Tensor& a);
ACC_API SvdResult svd(const Tensor& a, bool full_matrices = true);
ACC_API Tensor svdvals(const Tensor& a);
// mode "reduced" (Q: m x k, R: k x n, k = min(m, n)) or "complete" (Q: m x m, R: m x n).
ACC_API QrResult qr(const Tensor& a, const std::string& mode = "reduced");
// Singular values at most rtol * (largest one) count as zero; rtol defaults to max(m, n) * eps.
ACC_API Tensor pinv(const Tensor& a, std::optional<double> rtol = std::nullopt);
ACC_API Tensor matrix_rank(const Tensor& a, std::optional<double> rtol = std::nullopt);

// ord: "fro", "nuc", "1", "-1", "2", "-2", "inf", "-inf" over the last two axes.
ACC_API Tensor matrix_norm(const Tensor& a, const std::string& ord = "fro", bool keepdims = false);
// ord: any number including 0 and +-infinity; axes nullopt: all of them.
ACC_API Tensor vector_norm(const Tensor& x, const Axes& axes = std::nullopt, double ord = 2.0, bool keepdims = false);
ACC_API Tensor matrix_power(const Tensor& a, std::int64_t n);
// Diagonal `offset` of the last two axes (above the main one when offset > 0), and its sum.
ACC_API Tensor diagonal(const Tensor& x, std::int64_t offset = 0);
ACC_API Tensor trace(const Tensor& x, std::int64_t offset = 0);
ACC_API Tensor outer(const Tensor& a, const Tensor& b);
// The cross product of 3-vectors along `axis` (after broadcasting).
ACC_API Tensor cross(const Tensor& a, const Tensor& b, std::int64_t axis = -1);

}  // namespace linalg
}  // namespace accelera
