// max_pool and max_pool_backward: validation and dispatch (Note [Window geometry] in ops/im2col.hpp).
// Max pooling is its own kernel rather than im2col + argmax: it reads the image once and writes only the
// pooled values and indices, where the patch matrix would be prod(kernel) times the output.
#include "ops/im2col.hpp"
#include "ops/nn_common.hpp"

namespace accelera {

using namespace ops_detail;

MaxPoolResult max_pool(const Tensor& x, const ConvWindow& window) {
  constexpr std::string_view op = "max_pool";
  check_nn_operand(x, op, "x");
  const WindowGeometry g = window_geometry(x.shape(), window, op);
  const Shape out_shape = pooled_shape(x.shape(), g);
  // Half formats on a device without half kernels: the maximum of the widened values is exact, so going
  // through float32 changes nothing but the cost (kernel_dtype).
  const DType computed = kernel_dtype(op, x.device(), x.dtype());
  Tensor values = Tensor::empty(out_shape, computed, x.device());
  Tensor indices = Tensor::empty(out_shape, DType::i64, x.device());
  const auto kernel = kernel_for(op::max_pool, x.device(), computed);
  if (values.numel() > 0) kernel(cast_to(x, computed).contiguous(), g, values, indices);
  return {cast_to(values, x.dtype()), indices};
}

Tensor max_pool_backward(const Tensor& grad, const Tensor& indices, const Shape& image_shape,
                         const ConvWindow& window) {
  constexpr std::string_view op = "max_pool_backward";
  check_nn_operand(grad, op, "grad");
  check_defined(indices, op, "indices");
  ACC_CHECK(indices.dtype() == DType::i64, DTypeError, "{}: indices must be int64 (as max_pool returns them), got {}",
            op, dtype_name(indices.dtype()));
  ACC_CHECK(indices.device() == grad.device(), DeviceError, "{}: indices are on {} but grad is on {}", op,
            indices.device().str(), grad.device().str());
  const WindowGeometry g = window_geometry(image_shape, window, op);
  const Shape out_shape = pooled_shape(image_shape, g);
  ACC_CHECK(grad.shape() == out_shape && indices.shape() == out_shape, ShapeError,
            "{}: an image of shape {} pools to {} under this window, but grad has shape {} and indices {}", op,
            image_shape.str(), out_shape.str(), grad.shape().str(), indices.shape().str());
  const DType computed = kernel_dtype(op, grad.device(), grad.dtype());
  Tensor image = Tensor::empty(image_shape, computed, grad.device());
  const auto kernel = kernel_for(op::max_pool_backward, grad.device(), computed);
  if (image.numel() > 0) kernel(cast_to(grad, computed).contiguous(), indices.contiguous(), g, image);
  return cast_to(image, grad.dtype());
}

}  // namespace accelera
