#pragma once
// Note [BLAS layouts]: a row-major matrix view with strides (rs, cs) maps onto BLAS without a copy when
// cs == 1 (not transposed, ld = rs) or rs == 1 (transposed, ld = cs), with ld >= the row length. With one
// row or one column only the other stride matters. Anything else (two non-unit strides, zero or
// negative strides) must be packed into a contiguous temporary first.
#include <algorithm>
#include <cstdint>
#include <optional>

namespace accelera::backends {

struct BlasOperand {
  bool transposed = false;
  std::int64_t ld = 0;
};

inline std::optional<BlasOperand> blas_operand(std::int64_t rows, std::int64_t cols, std::int64_t rs,
                                               std::int64_t cs) {
  const std::int64_t min_ld_n = std::max<std::int64_t>(cols, 1), min_ld_t = std::max<std::int64_t>(rows, 1);
  if (cs == 1 && (rows == 1 || rs >= min_ld_n)) return BlasOperand{false, rows == 1 ? min_ld_n : rs};
  if (rs == 1 && (cols == 1 || cs >= min_ld_t)) return BlasOperand{true, cols == 1 ? min_ld_t : cs};
  if (cols == 1 && rs >= 1) return BlasOperand{false, rs};
  if (rows == 1 && cs >= 1) return BlasOperand{true, cs};
  return std::nullopt;
}

}  // namespace accelera::backends
