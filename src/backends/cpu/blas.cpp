// The CPU backend's BLAS: the linked OpenBLAS, or a library chosen at run time (use_cpu_blas).
// Note [Sharing NumPy's BLAS]: NumPy wheels carry their own OpenBLAS with its own thread pool. After a
// product, OpenBLAS's workers spin for a while (about 0.1 s) before they sleep; a product on the other pool in
// that window shares the cores with spinning threads and, split statically, runs slower (acc.matmul right
// after np.matmul: 0.53x NumPy at n = 1024 and 0.83x at 2048 on a 2-core Zen 3; 1.00-1.03x on one pool).
// The Python package therefore points the CPU backend at NumPy's library, which is already loaded, so that
// both run on one pool. A library is opened once and never closed, and providers are never destroyed (a
// product may still run in another thread, or from Python after static destructors at exit); the chosen
// provider is swapped atomically, so a product runs wholly on one library.
// Note [oneDNN products]: the CPU backend's own kernels, and oneDNN's convolutions, run on OpenMP's pool.
// OpenBLAS's pthreads spin for about 0.1 s after each product, so every OpenMP kernel in that window shared
// the cores with them: in a CNN training step, oneDNN's convolutions ran 2-8x slower than alone. With
// oneDNN present, float32 products therefore run on oneDNN's sgemm, on the same OpenMP pool (and with
// kernels compiled at run time for the CPU at hand: on AVX-512 machines about twice the GFLOP/s of
// OpenBLAS 0.3.21, whose kernels predate them); float64 products and LAPACK stay on the linked OpenBLAS.
#include "accelera/cpu_blas.hpp"

#include <cblas.h>
#include <dlfcn.h>
#include <omp.h>
#ifdef ACCELERA_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cctype>
#include <climits>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

#include "accelera/core/error.hpp"
#include "backends/cpu/blas.hpp"
#include "backends/cpu/simd/simd_kernels.hpp"

namespace accelera {

namespace {

// The CBLAS interface fixes these values for every implementation.
constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;

template <typename Int, typename T>
using GemmFn = void (*)(int, int, int, Int, Int, Int, T, const T*, Int, const T*, Int, T, T*, Int);

struct Provider {
  CpuBlasInfo info;
  // Exactly one pair is set, by the width of the library's sizes.
  GemmFn<int, float> sgemm32 = nullptr;
  GemmFn<int, double> dgemm32 = nullptr;
  GemmFn<std::int64_t, float> sgemm64 = nullptr;
  GemmFn<std::int64_t, double> dgemm64 = nullptr;
  int (*num_threads)() = nullptr;
  const char* (*core_name)() = nullptr;
  int (*thread_timeout)() = nullptr;  // OpenBLAS's openblas_thread_timeout: the variable as it was read
  // Where LAPACK's Fortran routines are looked up: the library's handle and its symbol naming (the
  // linked OpenBLAS: the process's global symbols, plain names).
  void* handle = RTLD_DEFAULT;
  std::string symbol_prefix, symbol_suffix;
  bool onednn_sgemm = false;  // float32 products on oneDNN (Note [oneDNN products])
};

// The library's path as the loader found it, without ".." (NumPy's extension modules reach their OpenBLAS
// through relative RPATHs).
std::string loaded_path(void* symbol, const std::string& fallback) {
  Dl_info where{};
  if (dladdr(symbol, &where) == 0 || where.dli_fname == nullptr) return fallback;
  std::error_code ignored_if_unresolvable;  // the path stays as the loader gave it then
  const auto canonical = std::filesystem::weakly_canonical(where.dli_fname, ignored_if_unresolvable);
  return canonical.empty() ? std::string(where.dli_fname) : canonical.string();
}

// `name` in the shared library that holds `known` (one of its symbols), or null.
void* linked_symbol(void* known, const char* name) {
  Dl_info where{};
  if (dladdr(known, &where) == 0 || where.dli_fname == nullptr) return nullptr;
  void* library = dlopen(where.dli_fname, RTLD_LAZY | RTLD_NOLOAD);  // already loaded: no new mapping
  if (library == nullptr) return nullptr;
  void* found = dlsym(library, name);
  dlclose(library);  // drops the reference dlopen added; the library stays loaded
  return found;
}

// The linked OpenBLAS through wrappers with its typed CBLAS signature (its enums, and blasint for sizes).
template <typename Int>
void set_linked_gemm(Provider& p) {
  const auto sgemm = [](int o, int ta, int tb, Int m, Int n, Int k, float alpha, const float* a, Int lda,
                        const float* b, Int ldb, float beta, float* c, Int ldc) {
    cblas_sgemm(static_cast<CBLAS_ORDER>(o), static_cast<CBLAS_TRANSPOSE>(ta), static_cast<CBLAS_TRANSPOSE>(tb), m, n,
                k, alpha, a, lda, b, ldb, beta, c, ldc);
  };
  const auto dgemm = [](int o, int ta, int tb, Int m, Int n, Int k, double alpha, const double* a, Int lda,
                        const double* b, Int ldb, double beta, double* c, Int ldc) {
    cblas_dgemm(static_cast<CBLAS_ORDER>(o), static_cast<CBLAS_TRANSPOSE>(ta), static_cast<CBLAS_TRANSPOSE>(tb), m, n,
                k, alpha, a, lda, b, ldb, beta, c, ldc);
  };
  if constexpr (sizeof(Int) == 8) {
    p.sgemm64 = sgemm;
    p.dgemm64 = dgemm;
    p.info.integer_bits = 64;
  } else {
    p.sgemm32 = sgemm;
    p.dgemm32 = dgemm;
    p.info.integer_bits = 32;
  }
}

const Provider& builtin_provider() {
  static const Provider& provider = *new Provider([] {
    Provider p;
    set_linked_gemm<blasint>(p);
    p.num_threads = [] { return openblas_get_num_threads(); };
    p.info.library = loaded_path(reinterpret_cast<void*>(&cblas_sgemm), "libopenblas");
    p.info.symbols = "cblas_sgemm";
    p.info.config = openblas_get_config();
    p.core_name = [] { return static_cast<const char*>(openblas_get_corename()); };
    // Not in OpenBLAS's header (and absent from old versions): looked up in the linked library itself, since
    // NumPy's OpenBLAS exports the same name without its prefix.
    p.thread_timeout = reinterpret_cast<int (*)()>(linked_symbol(reinterpret_cast<void*>(&cblas_sgemm),
                                                                 "openblas_thread_timeout"));
    p.info.builtin = true;
    return p;
  }());
  return provider;
}

#ifdef ACCELERA_HAVE_ONEDNN
const Provider& onednn_provider() {
  static const Provider& provider = *new Provider([] {
    Provider p = builtin_provider();  // float64 products and LAPACK
    const dnnl_version_t* v = dnnl_version();
    p.onednn_sgemm = true;
    p.num_threads = [] { return omp_get_max_threads(); };
    // core_name stays the linked OpenBLAS's: float64 products run on its kernels (Note [OpenBLAS core type]).
    p.info.library = loaded_path(reinterpret_cast<void*>(&dnnl_sgemm), "libdnnl");
    p.info.symbols = "dnnl_sgemm";
    p.info.config = fmt::format("oneDNN {}.{}.{} ({}): float32 products; float64 and LAPACK on {}", v->major,
                                v->minor, v->patch, v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "threads",
                                builtin_provider().info.library);
    p.info.builtin = false;
    return p;
  }());
  return provider;
}

const Provider& default_provider() { return onednn_provider(); }
#else
const Provider& default_provider() { return builtin_provider(); }
#endif

std::atomic<const Provider*>& current() {
  static std::atomic<const Provider*> provider{&default_provider()};
  return provider;
}

#ifdef ACCELERA_HAVE_ONEDNN
// OpenMP's thread count for regions the calling thread opens, set for a scope (a per-thread setting).
class OpenMpThreads {
 public:
  explicit OpenMpThreads(int threads) : before_(omp_get_max_threads()) { omp_set_num_threads(threads); }
  ~OpenMpThreads() { omp_set_num_threads(before_); }
  OpenMpThreads(const OpenMpThreads&) = delete;
  OpenMpThreads& operator=(const OpenMpThreads&) = delete;

 private:
  int before_;
};

// Note [Small products on one thread]: oneDNN's sgemm splits even a 64 x 64 product across every OpenMP
// thread, and a product called from Python finds the workers asleep (the package's short spin, Note [OpenMP
// wait policy], is over before the next call). Each of the product's parallel regions and barriers then waits
// for a wake-up, which costs little on bare metal and up to a few hundred microseconds on a VM, more while
// another pool still spins on the cores: on a 2-vCPU Xeon VM, a 64^3 product right after NumPy's took 226 us
// on two threads and 11 on one; after a pause, 128^3 took 102 us on two and 43 on one, 256^3 378 and 216.
// (An empty region's wake-up, as Note [Parallel grain] measures it with the workers still spinning, said 1 us
// there.) So the first product measures what splitting costs: one thread's time t1 on a 256^3 product, and
// the time tT of the same product on all T threads, each the median of eight runs entered after the workers
// have gone to sleep (a 300 us pause before each). Splitting costs O = tT - t1 / T, and pays for a product
// whose one-thread time exceeds O T / (T - 1); smaller products run on the calling thread. On that VM the
// limit came out at 9-36 MFLOP (square edges of 165-260) over runs; products just above it (192^3, 256^3)
// still ran 1.2-1.8x faster on one thread in a Python loop, which pays more per split than this measurement
// sees, so the limit errs towards splitting. Where workers spin (OMP_WAIT_POLICY=active, a long
// GOMP_SPINCOUNT) O is small and products split as before. About 10 ms, once per process.
template <class Sgemm>
double median_microseconds_after_pause(Sgemm&& sgemm) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> times;
  for (int i = 0; i < 9; ++i) {
    std::this_thread::sleep_for(std::chrono::microseconds(300));
    const auto start = Clock::now();
    sgemm();
    if (i > 0) times.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

double single_thread_product_flops() {
  static const double flops = [] {
    const int threads = omp_get_max_threads();
    if (threads <= 1) return 0.0;
    constexpr std::int64_t n = 256;  // near where splitting starts to pay on VMs: smaller ones understate it
    std::vector<float> a(n * n, 0.5f), c(n * n, 0.0f);
    const auto sgemm = [&] {
      const dnnl_status_t status = dnnl_sgemm('N', 'N', n, n, n, 1.0f, a.data(), n, a.data(), n, 0.0f, c.data(), n);
      ACC_CHECK(status == dnnl_success, DeviceError, "oneDNN's sgemm failed on a {0}x{0}x{0} product (status {1})",
                n, static_cast<int>(status));
    };
    double one = 0;
    {
      const OpenMpThreads single(1);
      one = median_microseconds_after_pause(sgemm);
    }
    const double all = median_microseconds_after_pause(sgemm);
    // A cost beyond a millisecond is a stall of the machine, not what every product pays.
    const double splitting = std::clamp(all - one / threads, 0.0, 1000.0);
    const double one_thread_flops_per_microsecond = 2.0 * n * n * n / std::max(one, 1e-3);
    return splitting * one_thread_flops_per_microsecond * threads / (threads - 1);
  }();
  return flops;
}

void onednn_gemm(const char* what, bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                 std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc) {
  if (m == 0 || n == 0) return;
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  std::optional<OpenMpThreads> one_thread;
  if (!omp_in_parallel() && flops < single_thread_product_flops()) one_thread.emplace(1);
  const dnnl_status_t status =
      dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.0f, a, lda, b, ldb, beta, c, ldc);
  ACC_CHECK(status == dnnl_success, DeviceError, "{}: oneDNN's sgemm failed on a {}x{}x{} product (status {})", what,
            m, k, n, static_cast<int>(status));
}
#endif

// Entry-point names, in the order they are tried: SciPy's OpenBLAS (as NumPy wheels carry it), OpenBLAS's
// 64-bit-size suffix, then plain CBLAS.
struct Naming {
  const char* prefix;
  const char* suffix;
  bool wide;  // known 64-bit sizes; plain names are 64-bit only when OpenBLAS says USE64BITINT
};
constexpr Naming kNamings[] = {{"scipy_", "64_", true}, {"", "64_", true}, {"", "", false}};

std::unique_ptr<Provider> open_provider(const std::string& library) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    throw ValueError(
        fmt::format("use_cpu_blas: cannot open '{}': {}", library, why != nullptr ? why : "unknown error"));
  }
  // The handle is kept: products may run on the library until the process ends.
  for (const Naming& naming : kNamings) {
    const auto symbol = [&](const char* name) {
      return dlsym(handle, fmt::format("{}{}{}", naming.prefix, name, naming.suffix).c_str());
    };
    void* sgemm = symbol("cblas_sgemm");
    void* dgemm = symbol("cblas_dgemm");
    if (sgemm == nullptr || dgemm == nullptr) continue;
    auto p = std::make_unique<Provider>();
    if (void* config = symbol("openblas_get_config")) {
      p->info.config = reinterpret_cast<const char* (*)()>(config)();
    }
    if (void* core = symbol("openblas_get_corename")) {
      p->core_name = reinterpret_cast<const char* (*)()>(core);
    }
    // Exported without SciPy's prefix and suffix.
    p->thread_timeout = reinterpret_cast<int (*)()>(dlsym(handle, "openblas_thread_timeout"));
    if (void* threads = symbol("openblas_get_num_threads")) {
      p->num_threads = reinterpret_cast<int (*)()>(threads);
    }
    const bool wide = naming.wide || p->info.config.find("USE64BITINT") != std::string::npos;
    if (wide) {
      p->sgemm64 = reinterpret_cast<GemmFn<std::int64_t, float>>(sgemm);
      p->dgemm64 = reinterpret_cast<GemmFn<std::int64_t, double>>(dgemm);
    } else {
      p->sgemm32 = reinterpret_cast<GemmFn<int, float>>(sgemm);
      p->dgemm32 = reinterpret_cast<GemmFn<int, double>>(dgemm);
    }
    p->handle = handle;
    p->symbol_prefix = naming.prefix;
    p->symbol_suffix = naming.suffix;
    p->info.library = loaded_path(sgemm, library);
    p->info.symbols = fmt::format("{}cblas_sgemm{}", naming.prefix, naming.suffix);
    p->info.integer_bits = wide ? 64 : 32;
    p->info.builtin = false;
    return p;
  }
  throw ValueError(
      fmt::format("use_cpu_blas: '{}' has no CBLAS sgemm and dgemm (looked for scipy_cblas_sgemm64_, "
                  "cblas_sgemm64_ and cblas_sgemm)",
                  library));
}

template <typename T>
void gemm_on(const Provider& p, const char* what, cpu::blas::Transpose ta, cpu::blas::Transpose tb, std::int64_t m,
             std::int64_t n, std::int64_t k, const T* a, std::int64_t lda, const T* b, std::int64_t ldb, T beta, T* c,
             std::int64_t ldc) {
  using cpu::blas::Transpose;
  // CBLAS reports bad arguments by printing and returning with nothing computed: check them here.
  ACC_ASSERT(lda >= std::max<std::int64_t>(1, ta == Transpose::no ? k : m) &&
                 ldb >= std::max<std::int64_t>(1, tb == Transpose::no ? n : k) && ldc >= std::max<std::int64_t>(1, n),
             "BLAS leading dimensions {}, {}, {} do not fit a {}x{}x{} product", lda, ldb, ldc, m, k, n);
  const int cta = ta == Transpose::no ? kNoTrans : kTrans, ctb = tb == Transpose::no ? kNoTrans : kTrans;
  constexpr bool single = std::is_same_v<T, float>;
#ifdef ACCELERA_HAVE_ONEDNN
  if constexpr (single) {
    if (p.onednn_sgemm) {
      onednn_gemm(what, ta == Transpose::yes, tb == Transpose::yes, m, n, k, a, lda, b, ldb, beta, c, ldc);
      return;
    }
  }
#endif
  if (p.info.integer_bits == 64) {
    const auto gemm = [&] {
      if constexpr (single)
        return p.sgemm64;
      else
        return p.dgemm64;
    }();
    gemm(kRowMajor, cta, ctb, m, n, k, T{1}, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  ACC_CHECK(n <= INT_MAX && k <= INT_MAX && lda <= INT_MAX && ldb <= INT_MAX && ldc <= INT_MAX, NotSupportedError,
            "{}: a row of more than 2^31 elements (n={}, k={}) exceeds the 32-bit sizes of the BLAS in use ({}); a "
            "64-bit BLAS lifts the limit (accelera::use_cpu_blas)",
            what, n, k, p.info.library);
  const auto gemm = [&] {
    if constexpr (single)
      return p.sgemm32;
    else
      return p.dgemm32;
  }();
  // Split M so that each call's sizes fit; A's row step depends on its transposition.
  const std::int64_t a_row_step = ta == Transpose::no ? lda : 1;
  for (std::int64_t m0 = 0; m0 < m; m0 += INT_MAX) {
    const auto mb = static_cast<int>(std::min<std::int64_t>(INT_MAX, m - m0));
    gemm(kRowMajor, cta, ctb, mb, static_cast<int>(n), static_cast<int>(k), T{1}, a + m0 * a_row_step,
         static_cast<int>(lda), b, static_cast<int>(ldb), beta, c + m0 * ldc, static_cast<int>(ldc));
  }
}

}  // namespace

CpuBlasInfo cpu_blas_info() {
  const Provider& p = *current().load(std::memory_order_acquire);
  CpuBlasInfo info = p.info;
  info.threads = p.num_threads != nullptr ? p.num_threads() : 0;
#ifdef ACCELERA_HAVE_ONEDNN
  if (p.onednn_sgemm) info.one_thread_below_flops = single_thread_product_flops();
#endif
  if (p.core_name != nullptr) {
    const char* core = p.core_name();
    info.core = core != nullptr ? core : "";
    info.suggested_core = cpu::blas::suggested_openblas_core(info.core, cpu::simd::supported_target_names());
  }
  if (p.thread_timeout != nullptr) {
    // OpenBLAS's blas_thread_init: 0 (unset) means its default, others are clamped to [4, 30].
    const int set = p.thread_timeout();
    info.spin_log2_cycles = set <= 0 ? 28 : std::clamp(set, 4, 30);
  }
  return info;
}

bool cpu_blas_has_onednn() {
#ifdef ACCELERA_HAVE_ONEDNN
  return true;
#else
  return false;
#endif
}

void use_cpu_blas(const std::string& library) {
  if (library == "builtin") {
    current().store(&builtin_provider(), std::memory_order_release);
    return;
  }
  if (library == "onednn") {
#ifdef ACCELERA_HAVE_ONEDNN
    current().store(&onednn_provider(), std::memory_order_release);
    return;
#else
    throw ValueError("use_cpu_blas: this build of Accelera has no oneDNN (configure with -DACCELERA_ONEDNN=ON and "
                     "libdnnl-dev installed)");
#endif
  }
  ACC_CHECK(!library.empty(), ValueError, "use_cpu_blas: expected 'builtin' or the path of a BLAS library, got ''");
  // One provider per path, kept for the life of the process.
  static std::mutex& mutex = *new std::mutex;
  static auto& opened = *new std::map<std::string, std::unique_ptr<Provider>>;
  const std::lock_guard lock(mutex);
  auto it = opened.find(library);
  if (it == opened.end()) it = opened.emplace(library, open_provider(library)).first;
  current().store(it->second.get(), std::memory_order_release);
}

namespace cpu::blas {

// Note [OpenBLAS core type]: a DYNAMIC_ARCH OpenBLAS picks its kernels from the CPU model; a model it does
// not know (a newer CPU, or a VM that hides the model) gets the generic "Prescott" kernels. Debian 12's
// OpenBLAS 0.3.21 does so on Sapphire Rapids VMs: 31 GFLOP/s float32 against 154 with
// OPENBLAS_CORETYPE=SkylakeX. The remedy is that variable, read when OpenBLAS loads; this suggests it.
std::string suggested_openblas_core(std::string_view core, const std::vector<std::string>& targets) {
  static const char* const kVectorCores[] = {"Haswell",        "Zen",        "SkylakeX", "CooperLake",
                                             "SapphireRapids", "Zen4",       "Zen5",     "Excavator",
                                             "Steamroller",    "Piledriver", "Bulldozer"};
  if (core.empty()) return {};
  const auto same = [](std::string_view a, std::string_view b) {  // builds without DYNAMIC_ARCH say "HASWELL"
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](char x, char y) { return std::tolower(x) == std::tolower(y); });
  };
  for (const char* known : kVectorCores) {
    if (same(core, known)) return {};
  }
  const auto runs = [&](const char* name) { return std::find(targets.begin(), targets.end(), name) != targets.end(); };
  if (runs("avx512")) return "SkylakeX";
  if (runs("avx2")) return "Haswell";
  return {};
}

LapackRoutine lapack_routine(const char* name) {
  // LAPACK runs on the library that products run on, so that one thread pool serves both (Note [Sharing
  // NumPy's BLAS]); providers are never destroyed, so the address stays valid.
  const Provider& p = *current().load(std::memory_order_acquire);
  const std::string symbol = fmt::format("{}{}_{}", p.symbol_prefix, name, p.symbol_suffix);
  void* address = dlsym(p.handle, symbol.c_str());
  ACC_CHECK(address != nullptr, NotSupportedError, "the CPU's BLAS library {} has no LAPACK routine {}",
            p.info.library, symbol);
  return {address, p.info.integer_bits};
}

void gemm(const char* what, Transpose ta, Transpose tb, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
          std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc) {
  gemm_on(*current().load(std::memory_order_acquire), what, ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc);
}

void gemm(const char* what, Transpose ta, Transpose tb, std::int64_t m, std::int64_t n, std::int64_t k, const double* a,
          std::int64_t lda, const double* b, std::int64_t ldb, double beta, double* c, std::int64_t ldc) {
  gemm_on(*current().load(std::memory_order_acquire), what, ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace cpu::blas

}  // namespace accelera
