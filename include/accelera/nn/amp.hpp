#pragma once
// Mixed precision in C++, as Python's accelera.amp (Note [Autocast policy] in python/accelera/amp.py): inside
// an Autocast scope the matrix products of nn::functional (matmul, linear, conv, attention) cast float32
// operands to bfloat16 or float16, and softmax, log_softmax, layer_norm, batch_norm and the losses cast half
// operands up to float32. The casts are recorded, so a float32 weight (the master copy) gets a float32
// gradient. GradScaler keeps float16 gradients out of underflow by dynamic loss scaling.
//
//   GradScaler scaler;
//   for (...) {
//     Variable loss;
//     { Autocast autocast(DType::f16); loss = F::cross_entropy(model(x), y); }
//     optimizer.zero_grad();
//     scaler.scale(loss).backward();
//     scaler.step(optimizer);  // unscales; skips the step when a gradient is inf or nan
//     scaler.update();
//   }
#include <cstdint>
#include <optional>

#include "accelera/core/dtype.hpp"
#include "accelera/core/export.hpp"
#include "accelera/nn/autograd.hpp"
#include "accelera/nn/optim.hpp"

namespace accelera::nn::amp {

// The dtype matrix products are cast to on this thread, nullopt outside an enabled Autocast.
ACC_API std::optional<DType> autocast_dtype() noexcept;
ACC_API bool is_autocast_enabled() noexcept;

// A scope of autocast on this thread; scopes nest (the innermost wins) and `enabled = false` turns it off
// inside. DTypeError for a dtype other than float16 or bfloat16.
class ACC_API Autocast {
 public:
  explicit Autocast(DType dtype = DType::bf16, bool enabled = true);
  ~Autocast();
  Autocast(const Autocast&) = delete;
  Autocast& operator=(const Autocast&) = delete;

 private:
  std::optional<DType> m_previous;
};

// The operand of a matrix product under autocast: float32 cast (recorded) to the autocast dtype; else x.
ACC_API Variable lower(const Variable& x);
// The operand of a precision-sensitive function under autocast: half cast (recorded) to float32; else x.
ACC_API Variable full(const Variable& x);

struct GradScalerOptions {
  double init_scale = 65536.0;  // 2^16, as torch.amp.GradScaler
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  std::int64_t growth_interval = 2000;
  bool enabled = true;
};

// Dynamic loss scaling with torch.amp.GradScaler's names and defaults: scale(loss) multiplies the loss
// before backward(); step(optimizer) divides the gradients by the scale and runs the step unless one holds
// an inf or a nan; update() backs the scale off after an overflow and grows it after growth_interval calm
// steps. ValueError for options out of range and for calls out of order.
class ACC_API GradScaler {
 public:
  explicit GradScaler(GradScalerOptions options = {});
  bool is_enabled() const noexcept { return m_options.enabled; }
  double get_scale() const noexcept { return m_options.enabled ? m_scale : 1.0; }
  std::int64_t skipped_steps() const noexcept { return m_skipped; }

  Variable scale(const Variable& loss) const;
  // Divides every gradient of the optimizer's parameters by the scale and notes whether any is not finite.
  void unscale_(optim::Optimizer& optimizer);
  // Returns whether the optimizer's step ran.
  bool step(optim::Optimizer& optimizer);
  void update();

 private:
  GradScalerOptions m_options;
  double m_scale;
  std::int64_t m_growth_tracker = 0, m_skipped = 0;
  std::optional<bool> m_found_inf;  // per step: set by unscale_, cleared by update
};

}  // namespace accelera::nn::amp
