// Complex arithmetic on T2 vectors (x: real part, y: imaginary part) for complex_unary.cl and
// complex_binary.cl; T is float or double. The inverse functions use W. Kahan's formulas ("Branch cuts
// for complex elementary functions", 1987), which keep the standard's branch cuts and stay accurate near
// zero and near the branch points.
#define C2(T) C2_(T)
#define C2_(T) T##2
typedef C2(T) C;

inline C c_make(T x, T y) { return (C)(x, y); }
// Tests by comparison, and the parts Annex G's recovery substitutes: +-1 for an infinite part, +-0 for a
// finite one (or for a nan).
inline bool c_is_nan(T v) { return v != v; }
inline bool c_is_inf(T v) { return fabs(v) == (T)INFINITY; }
inline T c_unit_or_zero(T v) { return copysign(c_is_inf(v) ? (T)1 : (T)0, v); }
inline T c_nan_to_zero(T v) { return c_is_nan(v) ? copysign((T)0, v) : v; }
// Multiply and divide (and so square, reciprocal and pow) follow C99's Annex G as the CPU's C library and
// the CUDA kernels do (G.5.1): each product rounded on its own (no fma: an overflowing a*c - b*d must give
// inf - inf = nan, as on the CPU, not an fma's -inf), and where both parts come out nan, the infinities of
// C's one-infinity model are recovered (an infinite operand times a nonzero one is infinite, a finite one
// over an infinite one is zero).
// always_inline: PoCL would otherwise leave both as calls in the kernel's loop (too costly to inline by
// its measure).
__attribute__((always_inline)) inline C c_mul(C z, C w) {
#pragma OPENCL FP_CONTRACT OFF
  const T a = z.x, b = z.y, c = w.x, d = w.y;
  const T ac = a * c, bd = b * d, ad = a * d, bc = b * c;
  const T x = ac - bd, y = ad + bc;
  if (!(c_is_nan(x) && c_is_nan(y))) return c_make(x, y);
  // Recovery: an infinite operand's parts become +-1 or +-0, and the other operand's nans (or, where finite
  // products overflowed, every nan) +-0.
  const bool z_infinite = c_is_inf(a) || c_is_inf(b), w_infinite = c_is_inf(c) || c_is_inf(d);
  if (!(z_infinite || w_infinite || c_is_inf(ac) || c_is_inf(bd) || c_is_inf(ad) || c_is_inf(bc))) return c_make(x, y);
  const T ra = z_infinite ? c_unit_or_zero(a) : c_nan_to_zero(a), rb = z_infinite ? c_unit_or_zero(b) : c_nan_to_zero(b);
  const T rc = w_infinite ? c_unit_or_zero(c) : c_nan_to_zero(c), rd = w_infinite ? c_unit_or_zero(d) : c_nan_to_zero(d);
  const T p = ra * rc, q = rb * rd, r = ra * rd, t = rb * rc;
  return c_make((T)INFINITY * (p - q), (T)INFINITY * (r + t));
}
// Division as the CPU's C library computes it, signs of zero included: complex64 in double where the device
// has it, otherwise Smith's (scaled by the larger part of w, so that neither |w|^2 nor the products
// overflow; the other order where the ratio is subnormal).
__attribute__((always_inline)) inline C c_div(C z, C w) {
#pragma OPENCL FP_CONTRACT OFF
  T a = z.x, b = z.y, c = w.x, d = w.y;
  const T tiny = sizeof(T) == 8 ? (T)DBL_MIN : (T)FLT_MIN;
  T x, y;
#if defined(ACC_FP64)
  if (sizeof(T) == 4) {  // complex64: the textbook formula in double, which has the range to spare, as C's
    const double da = a, db = b, dc = c, dd = d, denom = dc * dc + dd * dd;
    x = (T)((da * dc + db * dd) / denom);
    y = (T)((db * dc - da * dd) / denom);
  } else
#endif
  if (fabs(c) < fabs(d)) {
    const T ratio = c / d, denom = c * ratio + d;
    if (fabs(ratio) > tiny) {
      x = (a * ratio + b) / denom;
      y = (b * ratio - a) / denom;
    } else {
      x = (c * (a / d) + b) / denom;
      y = (c * (b / d) - a) / denom;
    }
  } else {
    const T ratio = d / c, denom = d * ratio + c;
    if (fabs(ratio) > tiny) {
      x = (b * ratio + a) / denom;
      y = (b - a * ratio) / denom;
    } else {
      x = (a + d * (b / c)) / denom;
      y = (b - d * (a / c)) / denom;
    }
  }
  if (isnan(x) && isnan(y)) {
    if (c == 0 && d == 0 && (!isnan(a) || !isnan(b))) {  // over a zero: infinite, signed by the zero's real part
      x = copysign((T)INFINITY, c) * a;
      y = copysign((T)INFINITY, c) * b;
    } else if ((isinf(a) || isinf(b)) && isfinite(c) && isfinite(d)) {  // infinite over finite
      a = copysign(isinf(a) ? (T)1 : (T)0, a);
      b = copysign(isinf(b) ? (T)1 : (T)0, b);
      const T p = a * c, q = b * d, r = b * c, s = a * d;
      x = (T)INFINITY * (p + q);
      y = (T)INFINITY * (r - s);
    } else if ((isinf(c) || isinf(d)) && isfinite(a) && isfinite(b)) {  // finite over infinite
      c = copysign(isinf(c) ? (T)1 : (T)0, c);
      d = copysign(isinf(d) ? (T)1 : (T)0, d);
      const T p = a * c, q = b * d, r = b * c, s = a * d;
      x = (T)0 * (p + q);
      y = (T)0 * (r - s);
    }
  }
  return c_make(x, y);
}
// |z| as m sqrt(1 + r^2) (m the larger part, r <= 1): no overflow, within 2 ulp of hypot, and far faster
// than the hypot of some OpenCL libraries.
inline T c_abs(C z) {
  const T x = fabs(z.x), y = fabs(z.y);
  if (isinf(x) || isinf(y)) return (T)INFINITY;  // even beside a nan, as hypot
  if (isnan(x) || isnan(y)) return (T)NAN;        // fmax and fmin below would drop a nan part
  const T m = fmax(x, y), n = fmin(x, y);
  if (!(m > 0)) return m + n;  // zero
  const T r = n / m;
  return m * sqrt(1 + r * r);
}
inline C c_conj(C z) { return c_make(z.x, -z.y); }
// i z and -i z.
inline C c_times_i(C z) { return c_make(-z.y, z.x); }
inline C c_times_minus_i(C z) { return c_make(z.y, -z.x); }

inline C c_exp(C z) {
  if (z.y == 0) return c_make(exp(z.x), z.y);  // real arguments stay exactly real
  // Annex G: an infinite real part beside an infinite or nan imaginary part gives +inf + i nan, or 0 for -inf.
  if (isinf(z.x) && !isfinite(z.y)) return z.x > 0 ? c_make(z.x, (T)NAN) : c_make((T)0, copysign((T)0, z.y));
  const T m = exp(z.x);
  return c_make(m * cos(z.y), m * sin(z.y));
}
// log |z|; where |z| overflows although both parts are finite, as log(m) + log1p(r^2) / 2 (m the larger
// part, r <= 1 the ratio), which stays finite (log of 1e308 + 1e308 i is 709.9 + 0.785 i).
inline T c_log_abs(C z) {
  const T a = c_abs(z);
  if (!isinf(a) || !isfinite(z.x) || !isfinite(z.y)) return log(a);
  const T m = fmax(fabs(z.x), fabs(z.y)), r = fmin(fabs(z.x), fabs(z.y)) / m;
  return log(m) + log1p(r * r) / 2;
}
inline C c_log(C z) { return c_make(c_log_abs(z), atan2(z.y, z.x)); }
// Principal square root without cancellation: the larger part from sqrt((|x| + |z|) / 2), the other by
// division.
// Near the top of the range, where |x| + |z| overflows, sqrt(z) = 2 sqrt(z / 4) (both scalings exact).
inline C c_sqrt(C z) {
  if (z.x == 0 && z.y == 0) return c_make((T)0, z.y);
  if (isinf(z.y)) return c_make((T)INFINITY, z.y);
  T scale = 1;
  if (isfinite(z.x) && isfinite(z.y) && isinf(fabs(z.x) + c_abs(z))) z = c_make(z.x / 4, z.y / 4), scale = 2;
  const T t = sqrt((fabs(z.x) + c_abs(z)) / 2);
  if (z.x >= 0) return c_make(scale * t, scale * (z.y / (2 * t)));
  return c_make(scale * (fabs(z.y) / (2 * t)), scale * copysign(t, z.y));
}
// sinh and cosh with Annex G's special values: a zero imaginary part stays exactly zero (no inf * 0 for a
// huge real part), an infinite real part gives inf cis(y), and a zero real part beside an infinite or nan
// imaginary part keeps that zero. y - y is nan for an infinite or nan y.
inline C c_sinh(C z) {
  const T x = z.x, y = z.y;
  if (y == 0) return c_make(sinh(x), y);
  if (x == 0 && !isfinite(y)) return c_make(x, y - y);
  if (isinf(x)) return isfinite(y) ? c_make(x * cos(y), fabs(x) * sin(y)) : c_make(fabs(x), y - y);
  return c_make(sinh(x) * cos(y), cosh(x) * sin(y));
}
inline C c_cosh(C z) {
  const T x = z.x, y = z.y;
  if (y == 0) return c_make(cosh(x), isnan(x) ? y : copysign((T)0, x) * y);
  if (x == 0 && !isfinite(y)) return c_make(y - y, (T)0);  // the zero's sign is unspecified: +0, as glibc
  if (isinf(x)) return isfinite(y) ? c_make(fabs(x) * cos(y), x * sin(y)) : c_make(fabs(x), y - y);
  return c_make(cosh(x) * cos(y), sinh(x) * sin(y));
}
// Kahan's tanh: no overflow of sinh and cosh for large |x|.
inline C c_tanh(C z) {
  if (z.y == 0) return c_make(tanh(z.x), z.y);
  if (z.x == 0 && !isfinite(z.y)) return c_make(z.x, z.y - z.y);
  // Annex G: an infinite real part gives +-1 and a zero imaginary part signed as sin(2y).
  if (isinf(z.x)) return c_make(copysign((T)1, z.x), copysign((T)0, isfinite(z.y) ? sin(2 * z.y) : z.y));
  if (!isfinite(z.y)) return c_make(z.y - z.y, z.y - z.y);  // a finite real part: nan + i nan
  const T limit = sizeof(T) == 8 ? (T)22 : (T)9;  // beyond it tanh(x) rounds to +-1
  if (fabs(z.x) > limit) {
    return c_make(copysign((T)1, z.x), 4 * sin(z.y) * cos(z.y) * exp(-2 * fabs(z.x)));
  }
  const T t = tan(z.y), b = 1 + t * t, s = sinh(z.x), rho = sqrt(1 + s * s), d = 1 + b * s * s;
  return c_make(b * s * rho / d, t / d);
}
// C99's definitions, which carry sinh's and cosh's special values over: sin z = -i sinh(i z), cos z = cosh(i z).
inline C c_sin(C z) {
  // An infinite imaginary part beside an infinite or nan real one: nan + i inf, the sign of inf (unspecified
  // by Annex G) positive, as glibc's.
  if (isinf(z.y) && !isfinite(z.x)) return c_make(z.x - z.x, fabs(z.y));
  return c_times_minus_i(c_sinh(c_times_i(z)));
}
inline C c_cos(C z) { return c_cosh(c_times_i(z)); }
inline C c_tan(C z) { return c_times_minus_i(c_tanh(c_times_i(z))); }

// Kahan's asin for finite arguments below sqrt(max) / 4.
inline C c_asin_finite(C z) {
  const C a = c_sqrt(c_make(1 - z.x, -z.y)), b = c_sqrt(c_make(1 + z.x, z.y));
  return c_make(atan2(z.x, a.x * b.x - a.y * b.y), asinh(a.x * b.y - a.y * b.x));
}
// asinh with Annex G's special values; beyond sqrt(max) / 4, asinh z = log(2 z) for Re z >= 0 (odd
// otherwise), where Kahan's square roots would overflow.
inline C c_asinh(C z) {
  const T x = z.x, y = z.y, half_pi = atan2((T)1, (T)0);
  if (isinf(x) || isinf(y)) {
    if (isnan(x)) return c_make(fabs(y), x);                                  // nan + i inf: inf + i nan
    if (isnan(y)) return c_make(x, y);                                        // +-inf + i nan
    if (isinf(x) && isinf(y)) return c_make(x, copysign(half_pi / 2, y));     // +-inf + i inf: pi/4
    if (isinf(x)) return c_make(x, copysign((T)0, y));                        // +-inf + i y
    return c_make(copysign(fabs(y), x), copysign(half_pi, y));                // x + i inf
  }
  if (isnan(x) || isnan(y)) return y == 0 ? c_make(x, y) : c_make((T)NAN, (T)NAN);
  const T big = sizeof(T) == 8 ? (T)1e150 : (T)1e18;
  if (fabs(x) > big || fabs(y) > big) {
    const bool negative = signbit(x);
    C l = c_log(negative ? c_make(-x, -y) : z);
    l.x += log((T)2);
    return negative ? c_make(-l.x, -l.y) : l;
  }
  return c_times_minus_i(c_asin_finite(c_times_i(z)));
}
// C99's definition, which carries asinh's special values over: asin z = -i asinh(i z); for +-inf + i nan the
// unspecified sign of the infinite imaginary part is glibc's (positive).
inline C c_asin(C z) {
  if (isinf(z.x) && isnan(z.y)) return c_make(z.y, fabs(z.x));
  return c_times_minus_i(c_asinh(c_times_i(z)));
}
// The angle Annex G gives acos (and acosh's imaginary part) for an infinite real part x beside y: pi/4 or
// 3pi/4 beside an infinite y, else 0 or pi.
inline T c_infinite_angle(T x, T y) {
  const T half_pi = atan2((T)1, (T)0);
  if (isinf(y)) return x > 0 ? half_pi / 2 : 3 * half_pi / 2;
  return x > 0 ? (T)0 : 2 * half_pi;
}
// acos and acosh: Kahan's formulas for finite arguments, Annex G's special values for the others (where it
// leaves a sign unspecified, glibc's choice).
inline C c_acos(C z) {
  const T x = z.x, y = z.y, half_pi = atan2((T)1, (T)0);
  if (isinf(x) || isinf(y)) {
    if (isnan(x)) return c_make(x, -y);                      // nan + i inf: nan - i inf
    if (isnan(y)) return c_make(y, -fabs(x));                // +-inf + i nan
    if (isfinite(x)) return c_make(half_pi, -y);             // x + i inf: pi/2 - i inf
    return c_make(c_infinite_angle(x, y), -copysign((T)INFINITY, y));
  }
  if (isnan(x) || isnan(y)) return x == 0 ? c_make(half_pi, y) : c_make((T)NAN, (T)NAN);
  const C a = c_sqrt(c_make(1 - x, -y)), b = c_sqrt(c_make(1 + x, y));
  return c_make(2 * atan2(a.x, b.x), asinh(b.x * a.y - b.y * a.x));
}
inline C c_acosh(C z) {
  const T x = z.x, y = z.y, half_pi = atan2((T)1, (T)0);
  if (isinf(x) || isinf(y)) {
    if (isnan(x)) return c_make(fabs(y), x);                 // nan + i inf: inf + i nan
    if (isnan(y)) return c_make(fabs(x), y);                 // +-inf + i nan: inf + i nan
    if (isfinite(x)) return c_make((T)INFINITY, copysign(half_pi, y));
    return c_make((T)INFINITY, copysign(c_infinite_angle(x, y), y));
  }
  if (isnan(x) || isnan(y)) return x == 0 ? c_make(y, half_pi) : c_make((T)NAN, (T)NAN);
  const C a = c_sqrt(c_make(x - 1, y)), b = c_sqrt(c_make(x + 1, y));
  return c_make(asinh(a.x * b.x + a.y * b.y), 2 * atan2(a.y, b.x));
}
// log(1 + z) without the cancellation of the real part near 0.
inline C c_log1p(C z) {
  const T large = sizeof(T) == 8 ? (T)1e150 : (T)1e18;
  if (!(fabs(z.x) < large && fabs(z.y) < large)) return c_log(c_make(1 + z.x, z.y));
  return c_make(log1p(z.x * (2 + z.x) + z.y * z.y) / 2, atan2(z.y, 1 + z.x));
}
// atanh with C99's Annex G special values. Finite z: Kahan's form, real part log1p(4x / ((1 - x)^2 + y^2)) / 4
// (exact signs of zero, no cancellation near 0) and imaginary part atan2(2y, (1 - x)(1 + x) - y^2) / 2 (the
// branch cuts' sides from the sign of y); beyond sqrt(max) / 4 it is 1/z's real part and +-pi/2.
inline C c_atanh(C z) {
  const T x = z.x, y = z.y, half_pi = atan2((T)1, (T)0);
  if (isinf(x) || isinf(y)) return c_make(copysign((T)0, x), isnan(y) ? y : copysign(half_pi, y));
  if (isnan(x) || isnan(y)) return x == 0 ? c_make(x, y) : c_make((T)NAN, (T)NAN);
  const T big = sizeof(T) == 8 ? (T)1e150 : (T)1e18;
  if (fabs(x) > big || fabs(y) > big)  // 1/z: its real part x / |z|^2 has the sign of x
    return c_make(copysign(fabs(c_div(c_make((T)1, (T)0), z).x), x), copysign(half_pi, y));
  const T one_minus = 1 - x;
  return c_make(log1p(4 * x / (one_minus * one_minus + y * y)) / 4, atan2(2 * y, one_minus * (1 + x) - y * y) / 2);
}
inline C c_atan(C z) { return c_times_minus_i(c_atanh(c_times_i(z))); }
// exp(z) - 1 without the cancellation of the real part near 0.
inline C c_expm1(C z) {
  if (!isfinite(z.x) || !isfinite(z.y)) {
    const C e = c_exp(z);
    return c_make(e.x - 1, e.y);
  }
  const T h = sin(z.y / 2);
  return c_make(expm1(z.x) * cos(z.y) - 2 * h * h, exp(z.x) * sin(z.y));
}
inline C c_sign(C z) {
  if (isnan(z.x) || isnan(z.y)) return c_make((T)NAN, (T)NAN);
  if (z.x == 0 && z.y == 0) return c_make((T)0, (T)0);
  if (isinf(z.x) || isinf(z.y)) {
    const T a = isinf(z.x) ? copysign((T)1, z.x) : (T)0, b = isinf(z.y) ? copysign((T)1, z.y) : (T)0;
    const T n = sqrt(a * a + b * b);  // a and b are 0 or +-1
    return c_make(a / n, b / n);
  }
  const T n = c_abs(z);
  return c_make(z.x / n, z.y / n);
}
// The array API's pow: x ** 0 is 1 for every x; 0 ** w is 0 for a positive real w.
inline C c_pow(C a, C b) {
  if (b.x == 0 && b.y == 0) return c_make((T)1, (T)0);
  if (a.x == 0 && a.y == 0 && b.y == 0 && b.x > 0) return c_make((T)0, (T)0);
  return c_exp(c_mul(b, c_log(a)));
}
inline C c_square(C z) { return c_mul(z, z); }
inline C c_reciprocal(C z) { return c_div(c_make((T)1, (T)0), z); }
inline C c_log2(C z) {
  const C l = c_log(z);
  const T ln2 = log((T)2);
  return c_make(l.x / ln2, l.y / ln2);
}
inline C c_log10(C z) {
  const C l = c_log(z);
  const T ln10 = log((T)10);
  return c_make(l.x / ln10, l.y / ln10);
}
