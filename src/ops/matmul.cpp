// NumPy matmul semantics on top of the backends' batched (..., M, K) x (..., K, N) kernel.
#include <vector>

#include "accelera/ops.hpp"
#include "ops/common.hpp"

namespace accelera {

using namespace ops_detail;

Tensor matmul(const Tensor& a, const Tensor& b) {
  check_defined(a, "matmul", "the first operand");
  check_defined(b, "matmul", "the second operand");
  check_same_device(a, b, "matmul");
  ACC_CHECK(a.ndim() >= 1 && b.ndim() >= 1, ShapeError,
            "matmul: operands must have at least one dimension, got shapes {} and {}", a.shape().str(),
            b.shape().str());
  const DType dtype = promote_types(a.dtype(), b.dtype());
  const Backend& backend = backend_for(a.device());
  ACC_CHECK(is_floating(dtype) && backend.computes(dtype), DTypeError,
            "matmul on {} computes {}, not {} (operands {} and {}; convert with astype)", a.device().str(),
            computed_dtype_names(backend, true), dtype_name(dtype), dtype_name(a.dtype()), dtype_name(b.dtype()));
  // 1-D operands: a (K,) is a row (1, K), b (K,) a column (K, 1); the added axis is dropped at the end.
  const Tensor a2 = a.ndim() == 1 ? a.unsqueeze(0) : a;
  const Tensor b2 = b.ndim() == 1 ? b.unsqueeze(1) : b;
  const std::int64_t m = a2.dim(-2), k = a2.dim(-1), kb = b2.dim(-2), n = b2.dim(-1);
  ACC_CHECK(k == kb, ShapeError, "matmul: shapes {} and {} do not align: {} (last axis of a) != {} ({} axis of b)",
            a.shape().str(), b.shape().str(), k, kb, b.ndim() == 1 ? "only" : "second-to-last");
  const auto& ad = a2.shape().dims();
  const auto& bd = b2.shape().dims();
  const Shape batch = broadcast_shapes(Shape(std::vector<std::int64_t>(ad.begin(), ad.end() - 2)),
                                       Shape(std::vector<std::int64_t>(bd.begin(), bd.end() - 2)));
  std::vector<std::int64_t> a_dims = batch.dims(), b_dims = batch.dims(), out_dims = batch.dims();
  a_dims.insert(a_dims.end(), {m, k});
  b_dims.insert(b_dims.end(), {k, n});
  out_dims.insert(out_dims.end(), {m, n});
  Tensor out = Tensor::empty(Shape(out_dims), dtype, a.device());
  if (out.numel() > 0) {
    const Tensor av = cast_to(a2, dtype).broadcast_to(Shape(a_dims));
    const Tensor bv = cast_to(b2, dtype).broadcast_to(Shape(b_dims));
    backend_for(a.device()).matmul(av, bv, out);
  }
  if (a.ndim() == 1 || b.ndim() == 1) {
    std::vector<std::int64_t> dims = batch.dims();
    if (a.ndim() != 1) dims.push_back(m);
    if (b.ndim() != 1) dims.push_back(n);
    return out.reshape(dims);
  }
  return out;
}

}  // namespace accelera
