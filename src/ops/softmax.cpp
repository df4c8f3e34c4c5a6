// softmax and log_softmax (forward and backward) along any axis: the kernels work on the last axis, so
// another axis is moved last (one copy in, one copy out).
#include <algorithm>
#include <numeric>
#include <vector>

#include "ops/nn_common.hpp"
#include "ops/softmax.hpp"

namespace accelera {

using namespace ops_detail;

namespace {

// The permutation that moves `axis` last (its own inverse is computed by inverse()).
std::vector<std::int64_t> axis_last(std::int64_t ndim, std::int64_t axis) {
  std::vector<std::int64_t> perm(static_cast<std::size_t>(ndim));
  std::iota(perm.begin(), perm.end(), 0);
  perm.erase(perm.begin() + axis);
  perm.push_back(axis);
  return perm;
}

std::vector<std::int64_t> inverse(const std::vector<std::int64_t>& perm) {
  std::vector<std::int64_t> inv(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) inv[static_cast<std::size_t>(perm[i])] = static_cast<std::int64_t>(i);
  return inv;
}

// Runs `kernel(rows views...)` with `axis` of every operand moved last; returns the result in x's layout.
template <typename Kernel>
Tensor along_axis(std::initializer_list<const Tensor*> inputs, std::int64_t axis, Kernel&& kernel) {
  const Tensor& x = **inputs.begin();
  if (x.ndim() == 0) {  // a 0-d tensor is one row of one element
    Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
    std::vector<Tensor> rows;
    for (const Tensor* t : inputs) rows.push_back(as_rows(*t));
    kernel(rows, as_rows(out));
    return out;
  }
  const std::int64_t a = normalize_axis(axis, x.ndim());
  const auto perm = axis_last(x.ndim(), a);
  std::vector<Tensor> rows;
  for (const Tensor* t : inputs) rows.push_back(as_rows(a == x.ndim() - 1 ? *t : t->permute(perm)));
  const Shape moved_shape = a == x.ndim() - 1 ? x.shape() : x.permute(perm).shape();
  Tensor out = Tensor::empty(moved_shape, x.dtype(), x.device());
  if (out.numel() > 0) kernel(rows, as_rows(out));
  if (a == x.ndim() - 1) return out;
  return out.permute(inverse(perm)).contiguous();
}

Tensor forward(const Tensor& x, std::int64_t axis, bool log) {
  const std::string_view op = log ? "log_softmax" : "softmax";
  check_nn_operand(x, op, "x");
  normalize_axis(axis, std::max<std::int64_t>(x.ndim(), 1));
  const auto kernel = kernel_for(log ? op::log_softmax : op::softmax, x.device(), x.dtype());
  return along_axis({&x}, axis, [&](const std::vector<Tensor>& in, const Tensor& out) { kernel(in[0], out); });
}

Tensor backward(const Tensor& grad, const Tensor& y, std::int64_t axis, bool log) {
  const std::string_view op = log ? "log_softmax_backward" : "softmax_backward";
  check_nn_operand(y, op, "y");
  check_like(grad, y, op, "grad", "y");
  check_same_shape(grad, y, op, "grad", "y");
  normalize_axis(axis, std::max<std::int64_t>(y.ndim(), 1));
  const auto kernel = kernel_for(log ? op::log_softmax_backward : op::softmax_backward, y.device(), y.dtype());
  return along_axis({&grad, &y}, axis,
                    [&](const std::vector<Tensor>& in, const Tensor& dx) { kernel(in[0], in[1], dx); });
}

}  // namespace

Tensor softmax(const Tensor& x, std::int64_t axis) { return forward(x, axis, false); }
Tensor log_softmax(const Tensor& x, std::int64_t axis) { return forward(x, axis, true); }
Tensor softmax_backward(const Tensor& grad, const Tensor& y, std::int64_t axis) { return backward(grad, y, axis, false); }
Tensor log_softmax_backward(const Tensor& grad, const Tensor& y, std::int64_t axis) {
  return backward(grad, y, axis, true);
}

}  // namespace accelera
