#pragma once
// The float64 attention reference shared by the attention suites: plain loops that materialise the score
// matrix, with the bottom-right causal alignment of Note [Attention] (src/ops/nn/attention.cpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "helpers.hpp"

namespace acc_test {

struct AttentionRef {
  std::vector<double> out, lse, dq, dk, dv;
};

// q: (bh, lq, d), k, v: (bh, lk, d) as flat float64 vectors; grad optional (empty: forward only).
inline AttentionRef attention_ref(const std::vector<double>& q, const std::vector<double>& k,
                                  const std::vector<double>& v, const std::vector<double>& grad, std::int64_t bh,
                                  std::int64_t lq, std::int64_t lk, std::int64_t d, double scale, bool causal) {
  AttentionRef r;
  r.out.assign(static_cast<std::size_t>(bh * lq * d), 0.0);
  r.lse.assign(static_cast<std::size_t>(bh * lq), -kInf);
  const bool backward = !grad.empty();
  if (backward) {
    r.dq.assign(q.size(), 0.0);
    r.dk.assign(k.size(), 0.0);
    r.dv.assign(v.size(), 0.0);
  }
  std::vector<double> p(static_cast<std::size_t>(lk)), dp(static_cast<std::size_t>(lk));
  for (std::int64_t h = 0; h < bh; ++h) {
    for (std::int64_t i = 0; i < lq; ++i) {
      const std::int64_t last = causal ? std::min(lk - 1, i + lk - lq) : lk - 1;  // keys [0, last] are seen
      if (last < 0) continue;
      double m = -kInf;
      for (std::int64_t j = 0; j <= last; ++j) {
        double s = 0;
        for (std::int64_t c = 0; c < d; ++c) s += q[(h * lq + i) * d + c] * k[(h * lk + j) * d + c];
        p[j] = s * scale;
        m = std::max(m, p[j]);
      }
      double l = 0;
      for (std::int64_t j = 0; j <= last; ++j) l += std::exp(p[j] - m);
      for (std::int64_t j = 0; j <= last; ++j) p[j] = std::exp(p[j] - m) / l;
      r.lse[h * lq + i] = m + std::log(l);
      double* o = &r.out[(h * lq + i) * d];
      for (std::int64_t j = 0; j <= last; ++j) {
        for (std::int64_t c = 0; c < d; ++c) o[c] += p[j] * v[(h * lk + j) * d + c];
      }
      if (!backward) continue;
      const double* g = &grad[(h * lq + i) * d];
      double di = 0;
      for (std::int64_t c = 0; c < d; ++c) di += g[c] * o[c];
      for (std::int64_t j = 0; j <= last; ++j) {
        double gv = 0;
        for (std::int64_t c = 0; c < d; ++c) gv += g[c] * v[(h * lk + j) * d + c];
        const double ds = p[j] * (gv - di);
        for (std::int64_t c = 0; c < d; ++c) {
          r.dv[(h * lk + j) * d + c] += p[j] * g[c];
          r.dq[(h * lq + i) * d + c] += scale * ds * k[(h * lk + j) * d + c];
          r.dk[(h * lk + j) * d + c] += scale * ds * q[(h * lq + i) * d + c];
        }
      }
    }
  }
  return r;
}

}  // namespace acc_test
