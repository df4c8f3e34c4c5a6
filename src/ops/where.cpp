// where(condition, x1, x2): NumPy broadcasting of all three and promotion of x1 and x2 (Note [where]).
#include "ops/where.hpp"

#include "accelera/ops.hpp"
#include "ops/common.hpp"

namespace accelera {

using namespace ops_detail;

Tensor where(const Tensor& condition, const Tensor& x1, const Tensor& x2) {
  check_defined(condition, "where", "the condition");
  check_defined(x1, "where", "the first operand");
  check_defined(x2, "where", "the second operand");
  check_same_device(condition, x1, "where");
  check_same_device(x1, x2, "where");
  const DType dtype = promote_types(x1.dtype(), x2.dtype());
  const Shape shape = broadcast_shapes(broadcast_shapes(condition.shape(), x1.shape()), x2.shape());
  if (is_complex(dtype)) {  // pairs of reals (Note [Complex copies]), the condition broadcast along them
    return where(cast_to(condition, DType::boolean).unsqueeze(-1), cast_to(x1, dtype).view_as_real(),
                 cast_to(x2, dtype).view_as_real())
        .view_as_complex();
  }
  const auto kernel = kernel_for(op::where, x1.device(), dtype);
  Tensor out = Tensor::empty(shape, dtype, x1.device());
  if (shape.numel() == 0) return out;
  kernel(cast_to(condition, DType::boolean).broadcast_to(shape), cast_to(x1, dtype).broadcast_to(shape),
         cast_to(x2, dtype).broadcast_to(shape), out);
  return out;
}

}  // namespace accelera
