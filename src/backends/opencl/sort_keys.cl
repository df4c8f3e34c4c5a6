// The keys of Note [Sort keys] (src/ops/sort.hpp), a prelude of the sort, searchsorted and unique programs.
// Build options: E, the unsigned type of the element's bits; K, the key type (uint, or ulong for 8-byte
// elements); SIGN, E's top bit; and KEY_FLOAT=<bits of +inf>, or KEY_SIGNED, or neither (bool).
inline bool sort_is_nan(const E b) {
#ifdef KEY_FLOAT
  return (E)(b & (E)(~(E)SIGN)) > (E)KEY_FLOAT;
#else
  return false;
#endif
}

inline K sort_key(const E b) {
#if defined(KEY_FLOAT)
  const E magnitude = (E)(b & (E)(~(E)SIGN));
  if (magnitude > (E)KEY_FLOAT) return (K)(E)(~(E)0);
  if (magnitude == 0) return (K)(E)SIGN;
  return (K)((b & (E)SIGN) != 0 ? (E)(~b) : (E)(b | (E)SIGN));
#elif defined(KEY_SIGNED)
  return (K)(E)(b ^ (E)SIGN);
#else
  return (K)b;
#endif
}

// The bitonic order of (key, position) pairs: positions within a row are distinct, so no two pairs tie.
inline bool pair_after(const K ka, const ulong pa, const K kb, const ulong pb) {
  return ka > kb || (ka == kb && pa > pb);
}

// One compare-exchange of a bitonic step on the (key, position) pairs of local memory: lo and hi end up in
// `ascending` order.
inline void compare_exchange(__local K* lk, __local ulong* la, const long lo, const long hi, const bool ascending) {
  const K klo = lk[lo], khi = lk[hi];
  const ulong plo = la[lo], phi = la[hi];
  if (pair_after(klo, plo, khi, phi) == ascending) {
    lk[lo] = khi, la[lo] = phi, lk[hi] = klo, la[hi] = plo;
  }
}

// Whether sorted element i starts a group of unique_* (Note [Unique by groups] in src/ops/unique.hpp).
inline bool starts_group(__global const E* s, const long i) {
  return i == 0 || sort_key(s[i]) != sort_key(s[i - 1]) || sort_is_nan(s[i]);
}
