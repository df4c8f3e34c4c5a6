#pragma once
// Reverse-mode automatic differentiation for the C++ neural-network library (accelera::nn), the same model
// as Python's accelera.autograd: a Variable holds a tensor, whether it wants a gradient, and (when an op
// made it from variables that do) the op's vector-Jacobian product. backward() walks the graph once in
// reverse topological order and accumulates into the leaves' grad(), as PyTorch does.
//
// Note [The C++ autograd graph]
// Each op result keeps its inputs' nodes and a closure that maps the result's gradient to theirs; leaves
// (parameters, data) have no closure. Gradients of broadcast operands are summed down to the operand's
// shape by the op that broadcast them. backward() releases the closures it ran (and with them the tensors
// they saved) unless retain_graph is set, so a training step's graph lives only as long as its backward.
// Under a NoGradGuard (evaluation, optimizer updates) ops record nothing.
#include <functional>
#include <memory>
#include <vector>

#include "accelera/core/export.hpp"
#include "accelera/core/tensor.hpp"

namespace accelera::nn {

class ACC_API Variable {
 public:
  // Maps the result's gradient to one gradient per input (an undefined tensor: none for that input).
  using Backward = std::function<std::vector<Tensor>(const Tensor& grad)>;
  struct Node {
    Tensor value;
    Tensor grad;  // leaves only: the accumulated gradient
    bool requires_grad = false;
    std::vector<std::shared_ptr<Node>> inputs;
    Backward backward;  // empty for leaves and for results that need no gradient
    const char* op = "leaf";
  };

  Variable() = default;  // undefined
  explicit Variable(Tensor value, bool requires_grad = false);

  bool defined() const noexcept { return m_node != nullptr; }
  const Tensor& value() const;
  const Shape& shape() const { return value().shape(); }
  DType dtype() const { return value().dtype(); }
  const Device& device() const { return value().device(); }
  std::int64_t ndim() const { return value().ndim(); }
  std::int64_t dim(std::int64_t axis) const { return value().dim(axis); }

  bool requires_grad() const;
  // Leaves only: a result's requirement follows from its inputs. Throws ValueError for a result.
  void set_requires_grad(bool wanted);
  bool is_leaf() const;
  // The accumulated gradient of a leaf (undefined before any backward reached it).
  const Tensor& grad() const;
  void set_grad(const Tensor& grad);
  void zero_grad();  // drops the gradient (the next backward starts it afresh)

  // d(this)/d(leaves): the seed defaults to 1 for a one-element result (ShapeError otherwise); its shape
  // must equal the result's. Throws ValueError when nothing in the graph requires a gradient.
  void backward(const Tensor& seed = {}, bool retain_graph = false) const;

  // A new leaf sharing this tensor, cut from the graph.
  Variable detach() const;

  // An op's result: records `backward` when gradients are enabled and an input requires one.
  static Variable from_op(const char* op, Tensor value, const std::vector<Variable>& inputs, Backward backward);

  const std::shared_ptr<Node>& node() const noexcept { return m_node; }

 private:
  std::shared_ptr<Node> m_node;
};

// Whether ops on this thread record gradients (true unless a NoGradGuard is alive).
ACC_API bool grad_enabled() noexcept;

// Disables recording on this thread for its lifetime (nests; restores the previous state).
class ACC_API NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool m_previous;
};

// The sum of `grad` over the axes that broadcasting added or stretched, so that it has `shape`.
ACC_API Tensor sum_to_shape(const Tensor& grad, const Shape& shape);

}  // namespace accelera::nn
