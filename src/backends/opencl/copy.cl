// dst = convert(src) over a strided layout (operands 0: dst, 1: src), between any two stored dtypes.
// SRC_* and DST_* select the storage types; CT is the conversion type (double where the device has it).
// Conversions follow the CPU backend (core/convert.hpp): float to int keeps the low bits of a 32- or 64-bit
// conversion, whose out-of-range and nan give its minimum;
// half formats round once, to nearest even.
#if defined(SRC_F16)
#define S ushort
#define LOAD(p, i) ((CT)vload_half((i), (__global const half*)(p)))
#elif defined(SRC_BF16)
#define S ushort
#define LOAD(p, i) ((CT)as_float(((uint)(p)[i]) << 16))
#elif defined(SRC_BOOL)
#define S uchar
#define LOAD(p, i) ((CT)((p)[i] != 0))
#else
#define LOAD(p, i) ((CT)(p)[i])
#endif

#if defined(DST_F16) || defined(DST_BF16)
// Rounds to float with round-to-odd, so that a later round to a half format is a single rounding.
inline float to_float_odd(CT v) {
  float f = (float)v;
#ifdef ACC_FP64
  if ((CT)f != v && f == f) {
    if (fabs((CT)f) > fabs(v)) f = as_float(as_uint(f) - 1u);
    f = as_float(as_uint(f) | 1u);
  }
#endif
  return f;
}

inline ushort float_to_bf16(float f) {
  const uint x = as_uint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (ushort)((x >> 16) | 0x40u);
  return (ushort)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
#endif

#if defined(DST_F16)
#define D ushort
#define STORE(p, i, v) vstore_half_rte(to_float_odd(v), (i), (__global half*)(p))
#elif defined(DST_BF16)
#define D ushort
#define STORE(p, i, v) ((p)[i] = float_to_bf16(to_float_odd(v)))
#elif defined(DST_BOOL)
#define D uchar
#define STORE(p, i, v) ((p)[i] = (uchar)((v) != (CT)0))
#elif defined(DST_INT_FROM_FLOAT)
inline VIA float_to_via(CT v) { return (v >= (CT)VIA_MIN && v < -(CT)VIA_MIN) ? (VIA)v : (VIA)VIA_MIN; }
#if defined(DST_U64)
#define STORE(p, i, v) ((p)[i] = ((v) >= (CT)0x1p63 && (v) < (CT)0x1p64) ? (D)(v) : (D)float_to_via(v))
#else
#define STORE(p, i, v) ((p)[i] = (D)float_to_via(v))
#endif
#else
#define STORE(p, i, v) ((p)[i] = (D)(v))
#endif

__kernel void copy(const int ndim, const long n, const Layout L, __global D* dst, const long dofs,
                   __global const S* src, const long sofs) {
  const long i = get_global_id(0);
  if (i >= n) return;
#if defined(ACC_CONTIGUOUS)
  STORE(dst, dofs + i, LOAD(src, sofs + i));  // both dense: no index arithmetic
#else
  long id = dofs, is = sofs, unused = 0;
  ACC_OFFSETS(L, ndim, i, id, is, unused);
  STORE(dst, id, LOAD(src, is));
#endif
}
