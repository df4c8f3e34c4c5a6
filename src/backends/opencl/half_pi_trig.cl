// Sine and cosine of a reduced argument in double lanes, for the programs that compute float sin, cos and
// tan in double on CPU devices (elementwise_math.cl) and Box-Muller's cosine and sine (random.cl), as the
// CPU backend computes them (Note [Vector transcendental functions], backends/cpu/simd/math-inl.h):
// x = n pi/2 + r with n = rint(x 2/pi) and r in three Cody-Waite parts (exact for |x| < 2^20), then
// Cephes' double sin and cos polynomials on r in [-pi/4, pi/4]. Included as a prelude, after common.cl.
// Written for PoCL's code generator: mad, not fma (a correctly rounded library call where the target lacks
// an FMA; no step needs one: n times the first part of pi/2 is exact), and n rounded by adding 1.5 * 2^52,
// whose low bits are then n as an integer (rint and convert_long8 cost as much again as the rest).
#if defined(ACC_FP64)
#define ACC_DEFINE_HALF_PI_TRIG(D, L, AS_L)                                                                 \
  /* r = x - n pi/2; returns n in the low bits of an integer (quadrant tests take them mod 4). */          \
  inline L acc_reduce_half_pi_##D(D x, D* r) {                                                             \
    const D shifted = x * 0.63661977236758134308 + 6755399441055744.0; /* 1.5 * 2^52: rounds to n */      \
    const D n = shifted - 6755399441055744.0;                                                              \
    D rest = mad(-n, 1.57079625129699707031e+00, x);                                                       \
    rest = mad(-n, 7.54978941586159635335e-08, rest);                                                      \
    *r = mad(-n, 5.39030285815811905290e-15, rest);                                                        \
    return AS_L(shifted);                                                                                  \
  }                                                                                                        \
  /* sin r and cos r for |r| <= pi/4, z = r * r. */                                                        \
  inline D acc_sin_reduced_##D(D r, D z) {                                                                 \
    D s = 1.58962301576546568060e-10;                                                                      \
    s = mad(s, z, -2.50507477628578072866e-8);                                                             \
    s = mad(s, z, 2.75573136213857245213e-6);                                                              \
    s = mad(s, z, -1.98412698295895385996e-4);                                                             \
    s = mad(s, z, 8.33333333332211858878e-3);                                                              \
    s = mad(s, z, -1.66666666666666307295e-1);                                                             \
    return mad(r * z, s, r);                                                                               \
  }                                                                                                        \
  inline D acc_cos_reduced_##D(D z) {                                                                      \
    D c = -1.13585365213876817300e-11;                                                                     \
    c = mad(c, z, 2.08757008419747316778e-9);                                                              \
    c = mad(c, z, -2.75573141792967388112e-7);                                                             \
    c = mad(c, z, 2.48015872888517045348e-5);                                                              \
    c = mad(c, z, -1.38888888888730564116e-3);                                                             \
    c = mad(c, z, 4.16666666666665929218e-2);                                                              \
    return mad(z * z, c, mad(z, -0.5, 1.0));                                                               \
  }
ACC_DEFINE_HALF_PI_TRIG(double, long, as_long)
ACC_DEFINE_HALF_PI_TRIG(double8, long8, as_long8)
#endif
