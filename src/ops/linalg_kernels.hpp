#pragma once
// Note [Factorisation kernels]
// The factorisations run on LAPACK (CPU), cuSOLVER (CUDA), or LAPACK on the host for OpenCL (logged,
// Note [OpenCL factorisations] in backends/opencl/linalg.cpp). Both libraries are column-major, so the
// ops hand every kernel column-major matrices: a batch of m x n matrices travels as a C-contiguous tensor
// of shape (batch..., n, m), whose entry [.., j, i] is A[i, j]. Every `work` tensor is a fresh copy that
// the kernel overwrites (LAPACK factorises in place), so the caller's tensors are never touched. `info`
// is an int32 tensor with one element per batch entry, set to LAPACK's info (0: success; > 0: singular,
// not positive definite or not converged, as each routine defines it); the op reads it back once and
// raises LinAlgError. Kernels take float32 and float64; the ops compute float16 and bfloat16 in float32.
#include "accelera/core/tensor.hpp"
#include "core/kernel_table.hpp"

namespace accelera::op {

// getrf: work (n x n, or m x n) becomes its LU factors; pivots (int32, batch x min(m, n)) 1-based rows.
inline constexpr OpSchema<void(const Tensor& work, const Tensor& pivots, const Tensor& info)> lu_factor{"lu_factor"};
// gesv / getrf+getrs: a (n x n) is overwritten with its LU factors, b (n x k) with the solution of a x = b.
inline constexpr OpSchema<void(const Tensor& a, const Tensor& b, const Tensor& info)> lu_solve{"lu_solve"};
// potrf, lower: work's lower triangle becomes L (a = L L^T); the strict upper triangle is left as it was.
inline constexpr OpSchema<void(const Tensor& work, const Tensor& info)> cholesky{"cholesky"};
// syevd, lower triangle: eigenvalues (batch x n) ascending; with `vectors`, work becomes the eigenvectors
// (as columns), otherwise work is destroyed.
inline constexpr OpSchema<void(const Tensor& work, const Tensor& eigenvalues, const Tensor& info, bool vectors)>
    eigh{"eigh"};
// gesvd / gesdd of an m x n matrix with m >= n (the op transposes wider ones): s (batch x n) descending;
// u (m x m when `full`, else m x n) and vt (n x n) when both are defined, otherwise values only.
inline constexpr OpSchema<void(const Tensor& work, const Tensor& s, const Tensor& u, const Tensor& vt, bool full,
                               const Tensor& info)>
    svd{"svd"};
// geqrf: work (m x n) becomes R in its upper triangle and Householder vectors below; tau (batch x min(m, n)).
inline constexpr OpSchema<void(const Tensor& work, const Tensor& tau, const Tensor& info)> qr_factor{"qr_factor"};
// orgqr: q (m x c, c <= m) holds the Householder vectors of qr_factor in its first min(m, n) = tau's
// columns and becomes the first c columns of Q.
inline constexpr OpSchema<void(const Tensor& q, const Tensor& tau, const Tensor& info)> householder_product{
    "householder_product"};

// vecdot's dot products: a and b of one shape (batch..., n), any strides (broadcast axes have stride 0), one
// real floating dtype; out (batch...) contiguous in that dtype; n >= 1. Kernels that accumulate in a wider
// type than the operands' round once on store. Devices without this kernel multiply and sum.
inline constexpr OpSchema<void(const Tensor& a, const Tensor& b, const Tensor& out)> vecdot_rows{"vecdot_rows"};

}  // namespace accelera::op
