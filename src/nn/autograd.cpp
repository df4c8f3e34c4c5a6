// Reverse-mode differentiation: Note [The C++ autograd graph] in include/accelera/nn/autograd.hpp.
#include "accelera/nn/autograd.hpp"

#include <unordered_map>
#include <unordered_set>

#include "accelera/core/error.hpp"
#include "accelera/ops.hpp"

namespace accelera::nn {

namespace {
thread_local bool t_grad_enabled = true;

const std::shared_ptr<Variable::Node>& checked(const std::shared_ptr<Variable::Node>& node) {
  if (!node) throw ValueError("the Variable is undefined");
  return node;
}
}  // namespace

bool grad_enabled() noexcept { return t_grad_enabled; }

NoGradGuard::NoGradGuard() : m_previous(t_grad_enabled) { t_grad_enabled = false; }
NoGradGuard::~NoGradGuard() { t_grad_enabled = m_previous; }

Variable::Variable(Tensor value, bool requires_grad) : m_node(std::make_shared<Node>()) {
  if (!value.defined()) throw ValueError("a Variable needs a defined tensor");
  if (requires_grad && !is_floating(value.dtype()) && !is_complex(value.dtype()))
    throw DTypeError(fmt::format("only floating tensors can require gradients, got {}", dtype_name(value.dtype())));
  m_node->value = std::move(value);
  m_node->requires_grad = requires_grad;
}

const Tensor& Variable::value() const { return checked(m_node)->value; }
bool Variable::requires_grad() const { return checked(m_node)->requires_grad; }
bool Variable::is_leaf() const { return checked(m_node)->inputs.empty(); }
const Tensor& Variable::grad() const { return checked(m_node)->grad; }

void Variable::set_requires_grad(bool wanted) {
  if (!is_leaf()) throw ValueError("requires_grad can be set on leaves only: an op's result follows its inputs");
  if (wanted && !is_floating(dtype()) && !is_complex(dtype()))
    throw DTypeError(fmt::format("only floating tensors can require gradients, got {}", dtype_name(dtype())));
  m_node->requires_grad = wanted;
}

void Variable::set_grad(const Tensor& grad) {
  if (grad.defined() && grad.shape() != shape())
    throw ShapeError(fmt::format("a gradient of shape {} for a Variable of shape {}", grad.shape().str(), shape().str()));
  checked(m_node)->grad = grad;
}

void Variable::zero_grad() { checked(m_node)->grad = Tensor(); }

Variable Variable::detach() const { return Variable(value(), false); }

Variable Variable::from_op(const char* op, Tensor value, const std::vector<Variable>& inputs, Backward backward) {
  Variable out(std::move(value), false);
  out.m_node->op = op;
  if (!t_grad_enabled) return out;
  bool any = false;
  for (const auto& input : inputs) any = any || (input.defined() && input.requires_grad());
  if (!any) return out;
  out.m_node->requires_grad = true;
  for (const auto& input : inputs) out.m_node->inputs.push_back(input.m_node);
  out.m_node->backward = std::move(backward);
  return out;
}

void Variable::backward(const Tensor& seed, bool retain_graph) const {
  const auto& root = checked(m_node);
  if (!root->requires_grad)
    throw ValueError("backward() of a Variable that does not require a gradient: no input of the ops that made it "
                     "requires one");
  Tensor start = seed;
  if (!start.defined()) {
    if (root->value.numel() != 1)
      throw ShapeError(fmt::format("backward() without a seed needs a one-element result, got shape {}",
                                   root->value.shape().str()));
    start = ones(root->value.shape(), root->value.dtype(), root->value.device());
  } else if (start.shape() != root->value.shape()) {
    throw ShapeError(fmt::format("backward() seed of shape {} for a result of shape {}", start.shape().str(),
                                 root->value.shape().str()));
  }
  // Reverse topological order by an explicit depth-first post-order (graphs of long sequences are deep).
  std::vector<Node*> order;
  std::unordered_set<Node*> seen{root.get()};
  std::vector<std::pair<Node*, std::size_t>> stack{{root.get(), 0}};
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (next < node->inputs.size()) {
      Node* input = node->inputs[next++].get();
      if (input && input->requires_grad && seen.insert(input).second) stack.emplace_back(input, 0);
    } else {
      order.push_back(node);
      stack.pop_back();
    }
  }
  std::unordered_map<Node*, Tensor> pending{{root.get(), start}};
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Node* node = *it;
    auto found = pending.find(node);
    if (found == pending.end()) continue;
    Tensor grad = std::move(found->second);
    pending.erase(found);
    if (node->inputs.empty()) {  // a leaf: accumulate
      node->grad = node->grad.defined() ? add(node->grad, grad) : grad;
      continue;
    }
    if (!node->backward)
      throw ValueError(fmt::format("backward() through the result of {} a second time: its graph was released "
                                   "(pass retain_graph=true to the first backward)", node->op));
    std::vector<Tensor> grads = node->backward(grad);
    if (grads.size() != node->inputs.size())
      throw Error(fmt::format("the gradient of {} gave {} gradients for {} inputs", node->op, grads.size(),
                              node->inputs.size()));
    for (std::size_t i = 0; i < grads.size(); ++i) {
      Node* input = node->inputs[i].get();
      if (!input || !input->requires_grad || !grads[i].defined()) continue;
      if (grads[i].shape() != input->value.shape())
        throw Error(fmt::format("the gradient of {} for input {} has shape {}, the input {}", node->op, i,
                                grads[i].shape().str(), input->value.shape().str()));
      auto [slot, fresh] = pending.try_emplace(input, grads[i]);
      if (!fresh) slot->second = add(slot->second, grads[i]);
    }
    if (!retain_graph) node->backward = nullptr;
  }
}

Tensor sum_to_shape(const Tensor& grad, const Shape& shape) {
  if (grad.shape() == shape) return grad;
  const std::int64_t extra = grad.ndim() - shape.ndim();
  if (extra < 0) throw ShapeError(fmt::format("cannot sum a gradient of shape {} to {}", grad.shape().str(), shape.str()));
  std::vector<std::int64_t> axes;
  for (std::int64_t a = 0; a < grad.ndim(); ++a)
    if (a < extra || (shape[a - extra] == 1 && grad.dim(a) != 1)) axes.push_back(a);
  Tensor summed = axes.empty() ? grad : sum(grad, axes, true);
  return summed.reshape(shape.dims());
}

}  // namespace accelera::nn
