// optimizer_step: validation, the hyperparameters folded into coefficients (Note [Optimizer update] in
// ops/optimizer_step.hpp), and one dispatch for the whole group.
#include "ops/optimizer_step.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>

#include <fmt/ranges.h>

#include "ops/nn_common.hpp"

namespace accelera {

using namespace ops_detail;

namespace {

constexpr std::string_view kOp = "optimizer_step";

const char* rule_name(OptimizerRule rule) {
  switch (rule) {
    case OptimizerRule::sgd:
      return "sgd";
    case OptimizerRule::adam:
      return "adam";
    case OptimizerRule::rmsprop:
      return "rmsprop";
  }
  return "?";
}

void check_finite(double value, std::string_view what, double lo, bool lo_open, double hi, bool hi_open) {
  const bool inside =
      std::isfinite(value) && (lo_open ? value > lo : value >= lo) && (hi_open ? value < hi : value <= hi);
  ACC_CHECK(inside, ValueError, "{}: {} must be in {}{}, {}{}, got {}", kOp, what, lo_open ? "(" : "[", lo, hi,
            hi_open ? ")" : "]", value);
}

void check_hyperparameters(const OptimizerHyperparameters& h) {
  const double inf = INFINITY;
  ACC_CHECK(h.rule == OptimizerRule::sgd || h.rule == OptimizerRule::adam || h.rule == OptimizerRule::rmsprop,
            ValueError, "{}: unknown rule {}", kOp, static_cast<int>(h.rule));
  check_finite(h.lr, "lr", 0, false, inf, true);
  check_finite(h.weight_decay, "weight_decay", 0, false, inf, true);
  check_finite(h.momentum, "momentum", 0, false, inf, true);
  check_finite(h.dampening, "dampening", 0, false, 1, false);
  check_finite(h.beta1, "beta1", 0, false, 1, true);
  check_finite(h.beta2, "beta2", 0, false, 1, true);
  check_finite(h.alpha, "alpha", 0, false, 1, true);
  check_finite(h.eps, "eps", 0, false, inf, true);
  ACC_CHECK(h.step >= 1, ValueError, "{}: step counts from 1, got {}", kOp, h.step);
  ACC_CHECK(!h.nesterov || (h.rule == OptimizerRule::sgd && h.momentum > 0 && h.dampening == 0), ValueError,
            "{}: Nesterov momentum is an SGD option and needs momentum > 0 and dampening 0", kOp);
}

// The elements a view can reach in its storage, [first, last + 1); empty for an empty view.
std::pair<std::int64_t, std::int64_t> element_span(const Tensor& t) {
  if (t.numel() == 0) return {0, 0};
  std::int64_t lo = t.offset(), hi = t.offset();
  for (std::int64_t d = 0; d < t.ndim(); ++d) {
    const std::int64_t reach = t.strides()[d] * (t.dim(d) - 1);
    (reach > 0 ? hi : lo) += reach;
  }
  return {lo, hi + 1};
}

struct Span {
  const Storage* storage;
  std::int64_t begin, end;
  std::string what;
};

bool overlaps(const Span& a, const Span& b) { return a.storage == b.storage && a.begin < b.end && b.begin < a.end; }

// No two written tensors overlap, and no gradient overlaps a written tensor: the kernels read and write
// each element once, in place, and a shared element would be updated twice or read after being written.
void check_no_overlap(const std::vector<OptimizerSlot>& slots, const std::vector<std::vector<Tensor>>& state,
                      const std::vector<std::string>& names) {
  std::vector<Span> written, read;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const auto add = [&](std::vector<Span>& to, const Tensor& t, std::string what) {
      const auto [b, e] = element_span(t);
      if (b < e) to.push_back({t.storage().get(), b, e, std::move(what)});
    };
    add(written, slots[i].p, "parameter " + std::to_string(i));
    for (std::size_t j = 0; j < state[i].size(); ++j) {
      add(written, state[i][j], names[j] + " of parameter " + std::to_string(i));
    }
    add(read, slots[i].g, "the gradient of parameter " + std::to_string(i));
  }
  const auto by_start = [](const Span& a, const Span& b) {
    return std::tie(a.storage, a.begin) < std::tie(b.storage, b.begin);
  };
  std::sort(written.begin(), written.end(), by_start);
  for (std::size_t k = 1; k < written.size(); ++k) {
    ACC_CHECK(!overlaps(written[k - 1], written[k]), ValueError,
              "{}: {} and {} share memory; each is updated in place, so they must not overlap", kOp,
              written[k - 1].what, written[k].what);
  }
  // The written spans are now disjoint and sorted: a read span overlaps one of them only if it overlaps the
  // last one starting before its end.
  for (const Span& r : read) {
    const Span end_of_r{r.storage, r.end, r.end, {}};
    const auto after = std::lower_bound(written.begin(), written.end(), end_of_r, by_start);
    if (after == written.begin()) continue;
    const Span& w = *(after - 1);
    ACC_CHECK(!overlaps(w, r), ValueError, "{}: {} shares memory with {}, which this step overwrites", kOp, r.what,
              w.what);
  }
}

void check_written(const Tensor& t, const Tensor& ref, std::string_view op, const std::string& what) {
  check_like(t, ref, op, what, "parameter 0");
  ACC_CHECK(t.is_contiguous(), ValueError, "{}: {} is not C-contiguous; it is updated in place", op, what);
  ACC_CHECK(!t.storage()->is_read_only(), ValueError, "{}: {} is read-only; it is updated in place", op, what);
}

// A state tensor's public name and its slot (Note [Optimizer update]); the public order is the slot order
// with the absent slots dropped.
struct StateSlot {
  const char* name;
  Tensor OptimizerSlot::*slot;
};

std::vector<StateSlot> state_slots(const OptimizerHyperparameters& h) {
  std::vector<StateSlot> slots;
  switch (h.rule) {
    case OptimizerRule::sgd:
      if (h.momentum > 0) slots.push_back({"momentum_buffer", &OptimizerSlot::s0});
      return slots;
    case OptimizerRule::adam:
      slots = {{"exp_avg", &OptimizerSlot::s0}, {"exp_avg_sq", &OptimizerSlot::s1}};
      if (h.amsgrad) slots.push_back({"max_exp_avg_sq", &OptimizerSlot::s2});
      return slots;
    case OptimizerRule::rmsprop:
      slots = {{"square_avg", &OptimizerSlot::s0}};
      if (h.momentum > 0) slots.push_back({"momentum_buffer", &OptimizerSlot::s1});
      if (h.centered) slots.push_back({"grad_avg", &OptimizerSlot::s2});
      return slots;
  }
  throw ValueError(fmt::format("{}: unknown rule {}", kOp, static_cast<int>(h.rule)));
}

OptimizerCoefficients coefficients_of(const OptimizerHyperparameters& h) {
  OptimizerCoefficients c;
  c.rule = static_cast<int>(h.rule);
  c.lr = h.lr;
  c.eps = h.eps;
  c.decay_grad = h.decoupled_weight_decay ? 0.0 : h.weight_decay;
  c.decay_param = h.decoupled_weight_decay ? 1.0 - h.lr * h.weight_decay : 1.0;
  c.momentum = h.momentum;
  c.grad_scale = 1.0 - h.dampening;
  c.nesterov = h.nesterov;
  c.first = h.step == 1;
  if (h.rule == OptimizerRule::adam) {
    // lr * m_hat / (sqrt(v_hat) + eps) with m_hat = m / (1 - beta1^t), v_hat = v / (1 - beta2^t): both
    // corrections folded into the two scalars.
    const double t = static_cast<double>(h.step);
    const double root_correction2 = std::sqrt(1.0 - std::pow(h.beta2, t));
    c.lr = h.lr * root_correction2 / (1.0 - std::pow(h.beta1, t));
    c.eps = h.eps * root_correction2;
    c.beta1 = h.beta1;
    c.beta2 = h.beta2;
  } else if (h.rule == OptimizerRule::rmsprop) {
    c.beta2 = h.alpha;
  }
  return c;
}

}  // namespace

std::vector<std::string> optimizer_state_names(const OptimizerHyperparameters& h) {
  std::vector<std::string> names;
  for (const StateSlot& s : state_slots(h)) names.emplace_back(s.name);
  return names;
}

void optimizer_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                    const std::vector<std::vector<Tensor>>& state, const OptimizerHyperparameters& h) {
  check_hyperparameters(h);
  const std::vector<StateSlot> layout = state_slots(h);
  const std::vector<std::string> names = optimizer_state_names(h);
  ACC_CHECK(grads.size() == params.size() && state.size() == params.size(), ValueError,
            "{}: {} parameters, {} gradients and {} state lists; give one of each per parameter", kOp, params.size(),
            grads.size(), state.size());
  if (params.empty()) return;
  check_nn_operand(params[0], kOp, "parameter 0");
  std::vector<OptimizerSlot> slots;
  slots.reserve(params.size());
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::string which = "parameter " + std::to_string(i);
    check_written(params[i], params[0], kOp, which);
    check_like(grads[i], params[0], kOp, "the gradient of " + which, "parameter 0");
    check_same_shape(grads[i], params[i], kOp, "the gradient of " + which, which);
    ACC_CHECK(state[i].size() == names.size(), ValueError,
              "{}: {} has {} state tensors; the {} rule with these options keeps {}", kOp, which, state[i].size(),
              rule_name(h.rule), names.empty() ? "none" : fmt::format("{} ({})", names.size(), fmt::join(names, ", ")));
    for (std::size_t j = 0; j < names.size(); ++j) {
      const std::string what = names[j] + " of " + which;
      check_written(state[i][j], params[0], kOp, what);
      check_same_shape(state[i][j], params[i], kOp, what, which);
    }
    OptimizerSlot slot{params[i], grads[i], {}, {}, {}};
    for (std::size_t j = 0; j < layout.size(); ++j) slot.*layout[j].slot = state[i][j];
    slots.push_back(std::move(slot));
  }
  check_no_overlap(slots, state, names);
  const DType dtype = params[0].dtype(), run_dtype = kernel_dtype(kOp, params[0].device(), dtype);
  const auto kernel = kernel_for(op::optimizer_step, params[0].device(), run_dtype);
  std::erase_if(slots, [](const OptimizerSlot& s) { return s.p.numel() == 0; });
  if (slots.empty()) return;
  if (run_dtype == dtype) {
    for (OptimizerSlot& s : slots) s.g = s.g.contiguous();
    kernel(slots, coefficients_of(h));
    return;
  }
  // A half format on a device without half kernels: the update runs on float32 copies and each result
  // is rounded back once (ops_detail::kernel_dtype).
  const auto widened = [&](const Tensor& t) { return t.defined() ? t.astype(run_dtype) : t; };
  std::vector<OptimizerSlot> wide;
  for (const OptimizerSlot& s : slots) {
    wide.push_back({widened(s.p), widened(s.g), widened(s.s0), widened(s.s1), widened(s.s2)});
  }
  kernel(wide, coefficients_of(h));
  for (std::size_t i = 0; i < slots.size(); ++i) {
    copy_into(wide[i].p, slots[i].p);
    for (auto slot : {&OptimizerSlot::s0, &OptimizerSlot::s1, &OptimizerSlot::s2}) {
      if ((slots[i].*slot).defined()) copy_into(wide[i].*slot, slots[i].*slot);
    }
  }
}

}  // namespace accelera
