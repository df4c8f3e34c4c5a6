#pragma once
// LAPACK on the CPU: the Fortran routines of the library that matrix products run on (the linked OpenBLAS,
// or NumPy's, whose symbols are scipy_<name>_64_ with 64-bit integers; Note [Sharing NumPy's BLAS] in
// blas.cpp), so that LAPACK and GEMM share one thread pool. Column-major, every argument by pointer;
// character arguments carry their hidden lengths. Lapack<T> resolves the routines once per kernel call and
// hides the integer width: sizes go in as int64, pivots and info come out as int (LAPACK's values fit).
// T is float, double, std::complex<float> or std::complex<double> (the s, d, c and z routines; for the
// complex types orgqr is ungqr and syevd is heevd, and heevd and gesdd take real workspaces besides).
// Eigenvalues and singular values are real (Real<T>) for every T.
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>

#include "accelera/core/error.hpp"
#include "backends/cpu/blas.hpp"
#include "backends/cpu/linalg_batch.hpp"

namespace accelera::cpu {

template <typename T>
class Lapack {
 public:
  using Real = decltype(std::real(T{}));

  Lapack()
      : m_wide(blas::lapack_routine(name("getrf").c_str()).integer_bits == 64), m_getrf(find("getrf")),
        m_gesv(find("gesv")), m_potrf(find("potrf")), m_syevd(find(kComplex ? "heevd" : "syevd")),
        m_gesdd(find("gesdd")), m_geqrf(find("geqrf")), m_orgqr(find(kComplex ? "ungqr" : "orgqr")) {}

  void getrf(std::int64_t m, std::int64_t n, T* a, int* piv, int* info) const {
    m_wide ? getrf_as<std::int64_t>(m, n, a, piv, info) : getrf_as<int>(m, n, a, piv, info);
  }
  void gesv(std::int64_t n, std::int64_t k, T* a, T* b, int* info) const {
    m_wide ? gesv_as<std::int64_t>(n, k, a, b, info) : gesv_as<int>(n, k, a, b, info);
  }
  void potrf(std::int64_t n, T* a, int* info) const {
    m_wide ? potrf_as<std::int64_t>(n, a, info) : potrf_as<int>(n, a, info);
  }
  // jobz 'V' (vectors into a) or 'N'; lower triangle (heevd for complex T).
  void syevd(char jobz, std::int64_t n, T* a, Real* w, int* info) const {
    m_wide ? syevd_as<std::int64_t>(jobz, n, a, w, info) : syevd_as<int>(jobz, n, a, w, info);
  }
  // jobz 'N', 'S' (u: m x min(m, n)) or 'A' (u: m x m); vt: n x n (m >= n).
  void gesdd(char jobz, std::int64_t m, std::int64_t n, T* a, Real* s, T* u, T* vt, int* info) const {
    m_wide ? gesdd_as<std::int64_t>(jobz, m, n, a, s, u, vt, info) : gesdd_as<int>(jobz, m, n, a, s, u, vt, info);
  }
  void geqrf(std::int64_t m, std::int64_t n, T* a, T* tau, int* info) const {
    m_wide ? geqrf_as<std::int64_t>(m, n, a, tau, info) : geqrf_as<int>(m, n, a, tau, info);
  }
  void orgqr(std::int64_t m, std::int64_t n, std::int64_t k, T* a, const T* tau, int* info) const {
    m_wide ? orgqr_as<std::int64_t>(m, n, k, a, tau, info) : orgqr_as<int>(m, n, k, a, tau, info);
  }

 private:
  static constexpr bool kComplex = std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;
  static std::string name(const char* base) {
    const char* prefix = std::is_same_v<T, float>                ? "s"
                         : std::is_same_v<T, double>             ? "d"
                         : std::is_same_v<T, std::complex<float>> ? "c"
                                                                  : "z";
    return std::string(prefix) + base;
  }
  static void* find(const char* base) { return blas::lapack_routine(name(base).c_str()).address; }

  template <typename Int>
  static Int size(std::int64_t v) {
    ACC_CHECK(static_cast<std::int64_t>(static_cast<Int>(v)) == v, NotSupportedError,
              "extent {} exceeds the {}-bit sizes of the CPU's LAPACK", v, 8 * sizeof(Int));
    return static_cast<Int>(v);
  }
  template <typename Int>
  static void copy_pivots(const Int* from, int* to, std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i) to[i] = static_cast<int>(from[i]);
  }

  template <typename Int>
  void getrf_as(std::int64_t m64, std::int64_t n64, T* a, int* piv, int* info) const {
    const Int m = size<Int>(m64), n = size<Int>(n64), lda = std::max<Int>(m, 1);
    Int* p = std::is_same_v<Int, int> ? reinterpret_cast<Int*>(piv) : scratch<Int>(static_cast<std::size_t>(std::min(m, n)));
    Int result = 0;
    reinterpret_cast<void (*)(const Int*, const Int*, T*, const Int*, Int*, Int*)>(m_getrf)(&m, &n, a, &lda, p, &result);
    if constexpr (!std::is_same_v<Int, int>) copy_pivots(p, piv, std::min(m, n));
    *info = static_cast<int>(result);
  }
  template <typename Int>
  void gesv_as(std::int64_t n64, std::int64_t k64, T* a, T* b, int* info) const {
    const Int n = size<Int>(n64), k = size<Int>(k64), ld = std::max<Int>(n, 1);
    Int result = 0;
    reinterpret_cast<void (*)(const Int*, const Int*, T*, const Int*, Int*, T*, const Int*, Int*)>(m_gesv)(
        &n, &k, a, &ld, scratch<Int>(static_cast<std::size_t>(n)), b, &ld, &result);
    *info = static_cast<int>(result);
  }
  template <typename Int>
  void potrf_as(std::int64_t n64, T* a, int* info) const {
    const Int n = size<Int>(n64), ld = std::max<Int>(n, 1);
    Int result = 0;
    reinterpret_cast<void (*)(const char*, const Int*, T*, const Int*, Int*, std::size_t)>(m_potrf)("L", &n, a, &ld,
                                                                                                   &result, 1);
    *info = static_cast<int>(result);
  }
  template <typename Int>
  void syevd_as(char jobz, std::int64_t n64, T* a, Real* w, int* info) const {
    const Int n = size<Int>(n64), ld = std::max<Int>(n, 1), query = -1;
    T work_size{};
    Int iwork_size = 0, result = 0;
    if constexpr (kComplex) {
      // heevd: a real workspace (rwork) besides the complex one.
      using Fn = void (*)(const char*, const char*, const Int*, T*, const Int*, Real*, T*, const Int*, Real*,
                          const Int*, Int*, const Int*, Int*, std::size_t, std::size_t);
      const auto f = reinterpret_cast<Fn>(m_syevd);
      Real rwork_size{};
      f(&jobz, "L", &n, a, &ld, w, &work_size, &query, &rwork_size, &query, &iwork_size, &query, &result, 1, 1);
      if (result == 0) {
        const Int lwork = static_cast<Int>(std::real(work_size)), lrwork = static_cast<Int>(rwork_size),
                  liwork = iwork_size;
        f(&jobz, "L", &n, a, &ld, w, scratch<T>(static_cast<std::size_t>(lwork)), &lwork,
          scratch<Real>(static_cast<std::size_t>(lrwork)), &lrwork, scratch<Int>(static_cast<std::size_t>(liwork)),
          &liwork, &result, 1, 1);
      }
    } else {
      using Fn = void (*)(const char*, const char*, const Int*, T*, const Int*, T*, T*, const Int*, Int*, const Int*,
                          Int*, std::size_t, std::size_t);
      const auto f = reinterpret_cast<Fn>(m_syevd);
      f(&jobz, "L", &n, a, &ld, w, &work_size, &query, &iwork_size, &query, &result, 1, 1);
      if (result == 0) {
        const Int lwork = static_cast<Int>(work_size), liwork = iwork_size;
        f(&jobz, "L", &n, a, &ld, w, scratch<T>(static_cast<std::size_t>(lwork)), &lwork,
          scratch<Int>(static_cast<std::size_t>(liwork)), &liwork, &result, 1, 1);
      }
    }
    *info = static_cast<int>(result);
  }
  template <typename Int>
  void gesdd_as(char jobz, std::int64_t m64, std::int64_t n64, T* a, Real* s, T* u, T* vt, int* info) const {
    const Int m = size<Int>(m64), n = size<Int>(n64), ldu = std::max<Int>(m, 1), ldvt = std::max<Int>(n, 1);
    const Int query = -1;
    T dummy{};
    if (jobz == 'N') u = vt = &dummy;
    Int* iwork = scratch<Int>(static_cast<std::size_t>(8 * std::min(m, n)));
    T work_size{};
    Int result = 0;
    if constexpr (kComplex) {
      // The complex gesdd's real workspace: LAPACK's documented size for jobz (3.7 and later).
      using Fn = void (*)(const char*, const Int*, const Int*, T*, const Int*, Real*, T*, const Int*, T*, const Int*,
                          T*, const Int*, Real*, Int*, Int*, std::size_t);
      const auto f = reinterpret_cast<Fn>(m_gesdd);
      const std::int64_t mn = std::min(m64, n64), mx = std::max(m64, n64);
      const std::int64_t lrwork =
          jobz == 'N' ? 7 * mn : std::max(5 * mn * mn + 5 * mn, 2 * mx * mn + 2 * mn * mn + mn);
      Real* rwork = scratch<Real>(static_cast<std::size_t>(std::max<std::int64_t>(lrwork, 1)));
      f(&jobz, &m, &n, a, &ldu, s, u, &ldu, vt, &ldvt, &work_size, &query, rwork, iwork, &result, 1);
      if (result == 0) {
        const Int lwork = static_cast<Int>(std::real(work_size));
        f(&jobz, &m, &n, a, &ldu, s, u, &ldu, vt, &ldvt, scratch<T>(static_cast<std::size_t>(lwork)), &lwork, rwork,
          iwork, &result, 1);
      }
    } else {
      using Fn = void (*)(const char*, const Int*, const Int*, T*, const Int*, T*, T*, const Int*, T*, const Int*, T*,
                          const Int*, Int*, Int*, std::size_t);
      const auto f = reinterpret_cast<Fn>(m_gesdd);
      f(&jobz, &m, &n, a, &ldu, s, u, &ldu, vt, &ldvt, &work_size, &query, iwork, &result, 1);
      if (result == 0) {
        const Int lwork = static_cast<Int>(work_size);
        f(&jobz, &m, &n, a, &ldu, s, u, &ldu, vt, &ldvt, scratch<T>(static_cast<std::size_t>(lwork)), &lwork, iwork,
          &result, 1);
      }
    }
    *info = static_cast<int>(result);
  }
  template <typename Int>
  void geqrf_as(std::int64_t m64, std::int64_t n64, T* a, T* tau, int* info) const {
    using Fn = void (*)(const Int*, const Int*, T*, const Int*, T*, T*, const Int*, Int*);
    const auto f = reinterpret_cast<Fn>(m_geqrf);
    const Int m = size<Int>(m64), n = size<Int>(n64), ld = std::max<Int>(m, 1), query = -1;
    T work_size{};
    Int result = 0;
    f(&m, &n, a, &ld, tau, &work_size, &query, &result);
    if (result == 0) {
      const Int lwork = std::max<Int>(1, static_cast<Int>(std::real(work_size)));
      f(&m, &n, a, &ld, tau, scratch<T>(static_cast<std::size_t>(lwork)), &lwork, &result);
    }
    *info = static_cast<int>(result);
  }
  template <typename Int>
  void orgqr_as(std::int64_t m64, std::int64_t n64, std::int64_t k64, T* a, const T* tau, int* info) const {
    using Fn = void (*)(const Int*, const Int*, const Int*, T*, const Int*, const T*, T*, const Int*, Int*);
    const auto f = reinterpret_cast<Fn>(m_orgqr);
    const Int m = size<Int>(m64), n = size<Int>(n64), k = size<Int>(k64), ld = std::max<Int>(m, 1), query = -1;
    T work_size{};
    Int result = 0;
    f(&m, &n, &k, a, &ld, tau, &work_size, &query, &result);
    if (result == 0) {
      const Int lwork = std::max<Int>(1, static_cast<Int>(std::real(work_size)));
      f(&m, &n, &k, a, &ld, tau, scratch<T>(static_cast<std::size_t>(lwork)), &lwork, &result);
    }
    *info = static_cast<int>(result);
  }

  bool m_wide;
  void *m_getrf, *m_gesv, *m_potrf, *m_syevd, *m_gesdd, *m_geqrf, *m_orgqr;
};

}  // namespace accelera::cpu
