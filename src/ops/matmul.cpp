// matmul and matmul_into: NumPy matmul semantics on top of the batched (..., M, K) x (..., K, N) kernel.
#include "ops/matmul.hpp"

#include <vector>

#include "accelera/ops.hpp"
#include "ops/common.hpp"

namespace accelera {

using namespace ops_detail;

namespace {

struct MatmulShapes {
  std::int64_t m = 0, k = 0, n = 0;
  Shape batch;
  Shape a, b, out;  // the operands broadcast over the batch, and the result
};

// a and b have at least two axes here.
MatmulShapes matmul_shapes(const Tensor& a, const Tensor& b, const Shape& a_shape, const Shape& b_shape,
                           std::string_view op) {
  MatmulShapes s;
  s.m = a.dim(-2);
  s.k = a.dim(-1);
  s.n = b.dim(-1);
  ACC_CHECK(s.k == b.dim(-2), ShapeError,
            "{}: shapes {} and {} do not align: {} (last axis of a) != {} ({} axis of b)", op, a_shape.str(),
            b_shape.str(), s.k, b.dim(-2), b_shape.ndim() == 1 ? "only" : "second-to-last");
  const auto& ad = a.shape().dims();
  const auto& bd = b.shape().dims();
  s.batch = broadcast_shapes(Shape(std::vector<std::int64_t>(ad.begin(), ad.end() - 2)),
                             Shape(std::vector<std::int64_t>(bd.begin(), bd.end() - 2)));
  auto with = [&](std::int64_t rows, std::int64_t cols) {
    std::vector<std::int64_t> dims = s.batch.dims();
    dims.insert(dims.end(), {rows, cols});
    return Shape(dims);
  };
  s.a = with(s.m, s.k);
  s.b = with(s.k, s.n);
  s.out = with(s.m, s.n);
  return s;
}

DType matmul_dtype(const Tensor& a, const Tensor& b, std::string_view op) {
  const DType dtype = promote_types(a.dtype(), b.dtype());
  ACC_CHECK(is_floating(dtype) || is_complex(dtype), DTypeError, "{} computes floating dtypes, not {} (operands {} and {}; convert with astype)",
            op, dtype_name(dtype), dtype_name(a.dtype()), dtype_name(b.dtype()));
  return dtype;
}

void check_operands(const Tensor& a, const Tensor& b, std::string_view op) {
  check_defined(a, op, "the first operand");
  check_defined(b, op, "the second operand");
  check_same_device(a, b, op);
}

// Note [Complex products]
// A complex product is four real ones, (ar + i ai)(br + i bi) = (ar br - ai bi) + i (ar bi + ai br), run
// by the real kernels (and so on every device, streamed ones included). That is the flop count of a
// complex GEMM (8 real flops per complex multiply-add); the extra work is splitting the parts and joining
// the two results, O(mk + kn + mn) against the product's O(mkn).
Tensor complex_product(const Tensor& a, const Tensor& b) {
  const Tensor ar = real(a), ai = imag(a), br = real(b), bi = imag(b);
  Tensor re = matmul(ar, br);
  matmul_into(negative(ai), bi, re, /*accumulate=*/true);
  Tensor im = matmul(ar, bi);
  matmul_into(ai, br, im, /*accumulate=*/true);
  return complex_from_parts(re, im);
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  check_operands(a, b, "matmul");
  ACC_CHECK(a.ndim() >= 1 && b.ndim() >= 1, ShapeError,
            "matmul: operands must have at least one dimension, got shapes {} and {}", a.shape().str(),
            b.shape().str());
  const DType dtype = matmul_dtype(a, b, "matmul");
  // 1-D operands: a (K,) is a row (1, K), b (K,) a column (K, 1); the added axis is dropped at the end.
  const Tensor a2 = a.ndim() == 1 ? a.unsqueeze(0) : a;
  const Tensor b2 = b.ndim() == 1 ? b.unsqueeze(1) : b;
  const MatmulShapes s = matmul_shapes(a2, b2, a.shape(), b.shape(), "matmul");
  if (is_complex(dtype)) {
    const Tensor out = complex_product(cast_to(a2, dtype).broadcast_to(s.a), cast_to(b2, dtype).broadcast_to(s.b));
    if (a.ndim() != 1 && b.ndim() != 1) return out;
    std::vector<std::int64_t> dims = s.batch.dims();
    if (a.ndim() != 1) dims.push_back(s.m);
    if (b.ndim() != 1) dims.push_back(s.n);
    return out.reshape(dims);
  }
  // float16 and bfloat16 on a device without a half GEMM: a float32 product, rounded once (kernel_dtype).
  const DType computed = kernel_dtype(op::matmul.name, a.device(), dtype);
  const auto kernel = kernel_for(op::matmul, a.device(), computed);
  Tensor out = Tensor::empty(s.out, computed, a.device());
  if (out.numel() > 0 && s.k == 0) {
    fill_tensor(out, 0.0);  // an empty sum
  } else if (out.numel() > 0) {
    kernel(cast_to(a2, computed).broadcast_to(s.a), cast_to(b2, computed).broadcast_to(s.b), out, false);
  }
  out = cast_to(out, dtype);
  if (a.ndim() == 1 || b.ndim() == 1) {
    std::vector<std::int64_t> dims = s.batch.dims();
    if (a.ndim() != 1) dims.push_back(s.m);
    if (b.ndim() != 1) dims.push_back(s.n);
    return out.reshape(dims);
  }
  return out;
}

void matmul_into(const Tensor& a, const Tensor& b, const Tensor& out, bool accumulate) {
  constexpr std::string_view name = "matmul_into";
  check_operands(a, b, name);
  check_defined(out, name, "out");
  ACC_CHECK(out.device() == a.device(), DeviceError, "{}: out is on {} but the operands are on {}", name,
            out.device().str(), a.device().str());
  ACC_CHECK(a.ndim() >= 2 && b.ndim() >= 2, ShapeError, "{}: operands need at least two axes, got shapes {} and {}",
            name, a.shape().str(), b.shape().str());
  const DType dtype = matmul_dtype(a, b, name);
  const MatmulShapes s = matmul_shapes(a, b, a.shape(), b.shape(), name);
  ACC_CHECK(out.shape() == s.out, ShapeError, "{}: out has shape {}, the product of {} and {} is {}", name,
            out.shape().str(), a.shape().str(), b.shape().str(), s.out.str());
  ACC_CHECK(out.dtype() == dtype, DTypeError, "{}: out is {}, the product is {}", name, dtype_name(out.dtype()),
            dtype_name(dtype));
  ACC_CHECK(!out.storage()->is_read_only(), ValueError, "{}: out is read-only", name);
  ACC_CHECK(!out.shares_storage_with(a) && !out.shares_storage_with(b), ValueError,
            "{}: out shares memory with an operand; the product would overwrite values it still reads", name);
  if (is_complex(dtype)) {  // Note [Complex products]
    if (out.numel() == 0) return;
    const Tensor product = complex_product(cast_to(a, dtype).broadcast_to(s.a), cast_to(b, dtype).broadcast_to(s.b));
    copy_into(accumulate ? add(out, product) : product, out);
    return;
  }
  const DType computed = kernel_dtype(op::matmul.name, a.device(), dtype);
  const auto kernel = kernel_for(op::matmul, a.device(), computed);
  if (out.numel() == 0) return;
  if (s.k == 0) {  // an empty sum
    if (!accumulate) fill_tensor(out, 0.0);
    return;
  }
  const Tensor av = cast_to(a, computed).broadcast_to(s.a), bv = cast_to(b, computed).broadcast_to(s.b);
  if (out.is_contiguous() && computed == dtype) {
    kernel(av, bv, out, accumulate);
    return;
  }
  // Kernels write C-contiguous results in the computed dtype: compute into such a copy and copy that back.
  const Tensor staged = accumulate ? out.astype(computed) : Tensor::empty(out.shape(), computed, out.device());
  kernel(av, bv, staged, accumulate);
  copy_into(staged, out);
}

}  // namespace accelera
