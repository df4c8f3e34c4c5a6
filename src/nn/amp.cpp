// Mixed precision (include/accelera/nn/amp.hpp).
#include "accelera/nn/amp.hpp"

#include <cmath>

#include "accelera/core/error.hpp"
#include "accelera/nn/functional.hpp"
#include "accelera/ops.hpp"

namespace accelera::nn::amp {

namespace {

thread_local std::optional<DType> t_autocast;

bool is_half(DType d) { return d == DType::f16 || d == DType::bf16; }

}  // namespace

std::optional<DType> autocast_dtype() noexcept { return t_autocast; }
bool is_autocast_enabled() noexcept { return t_autocast.has_value(); }

Autocast::Autocast(DType dtype, bool enabled) : m_previous(t_autocast) {
  if (!is_half(dtype))
    throw DTypeError(fmt::format("autocast computes in float16 or bfloat16, not {}", dtype_name(dtype)));
  t_autocast = enabled ? std::optional<DType>(dtype) : std::nullopt;
}

Autocast::~Autocast() { t_autocast = m_previous; }

Variable lower(const Variable& x) {
  if (!t_autocast || !x.defined() || x.dtype() != DType::f32) return x;
  return functional::astype(x, *t_autocast);
}

Variable full(const Variable& x) {
  if (!t_autocast || !x.defined() || !is_half(x.dtype())) return x;
  return functional::astype(x, DType::f32);
}

GradScaler::GradScaler(GradScalerOptions options) : m_options(options), m_scale(options.init_scale) {
  const auto positive = [](double v, const char* what) {
    if (!(std::isfinite(v) && v > 0)) throw ValueError(fmt::format("GradScaler {} must be a positive finite number, got {}", what, v));
  };
  positive(options.init_scale, "init_scale");
  positive(options.growth_factor, "growth_factor");
  positive(options.backoff_factor, "backoff_factor");
  if (options.growth_factor <= 1) throw ValueError(fmt::format("GradScaler growth_factor must be > 1, got {}", options.growth_factor));
  if (options.backoff_factor >= 1) throw ValueError(fmt::format("GradScaler backoff_factor must be < 1, got {}", options.backoff_factor));
  if (options.growth_interval < 1)
    throw ValueError(fmt::format("GradScaler growth_interval must be positive, got {}", options.growth_interval));
}

Variable GradScaler::scale(const Variable& loss) const {
  if (!m_options.enabled) return loss;
  return functional::scale(is_half(loss.dtype()) ? functional::astype(loss, DType::f32) : loss, m_scale);
}

void GradScaler::unscale_(optim::Optimizer& optimizer) {
  if (!m_options.enabled) return;
  if (m_found_inf) throw ValueError("GradScaler::unscale_ was already called since the last update()");
  const double inverse = 1.0 / m_scale;
  Tensor finite;  // one flag for the whole model, read back once
  for (const Variable& p : optimizer.params()) {
    const Tensor& g = p.grad();
    if (!g.defined()) continue;
    Tensor unscaled = accelera::multiply(g, accelera::full(Shape{}, inverse, g.dtype(), g.device()));
    Tensor ok = accelera::all(accelera::isfinite(unscaled));
    finite = finite.defined() ? accelera::logical_and(finite, ok.to(finite.device())) : ok;
    Variable parameter = p;  // shares p's node
    parameter.set_grad(unscaled);
  }
  m_found_inf = finite.defined() && *finite.to(Device::cpu()).astype(DType::i32).data<std::int32_t>() == 0;
}

bool GradScaler::step(optim::Optimizer& optimizer) {
  if (!m_options.enabled) {
    optimizer.step();
    return true;
  }
  if (!m_found_inf) unscale_(optimizer);
  if (*m_found_inf) {
    ++m_skipped;
    return false;
  }
  optimizer.step();
  return true;
}

void GradScaler::update() {
  if (!m_options.enabled) return;
  if (!m_found_inf) throw ValueError("GradScaler::update needs a step (or unscale_) since the last update()");
  if (*m_found_inf) {
    m_scale *= m_options.backoff_factor;
    m_growth_tracker = 0;
  } else if (++m_growth_tracker == m_options.growth_interval) {
    m_scale *= m_options.growth_factor;
    m_growth_tracker = 0;
  }
  m_found_inf.reset();
}

}  // namespace accelera::nn::amp
