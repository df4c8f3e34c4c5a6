// matmul against a float64 reference: every operand layout (BLAS no-trans, trans, packed), 1-D operands,
// batch broadcasting, empty extents, promotion and errors.
#include <omp.h>

#include <algorithm>
#include <cstdlib>

#include "accelera/cpu_blas.hpp"
#include "backends/cpu/blas.hpp"
#include "backends/cpu/simd/simd_kernels.hpp"
#include "helpers.hpp"

using namespace accelera;
using namespace acc_test;

namespace {

// NumPy matmul written out with loops. mag[i] is the whole error allowance: (k + 2) eps sum_k |a_ik b_kj|,
// the standard bound for a dot product computed in the result's precision.
Ref ref_matmul(const Tensor& a, const Tensor& b, DType out_dtype) {
  const bool a1 = a.ndim() == 1, b1 = b.ndim() == 1;
  const auto& ad = a.shape().dims();
  const auto& bd = b.shape().dims();
  const std::int64_t m = a1 ? 1 : ad[ad.size() - 2], k = ad.back(), n = b1 ? 1 : bd.back();
  const Shape a_batch(std::vector<std::int64_t>(ad.begin(), ad.end() - (a1 ? 1 : 2)));
  const Shape b_batch(std::vector<std::int64_t>(bd.begin(), bd.end() - (b1 ? 1 : 2)));
  Shape batch;
  EXPECT_TRUE(ref_broadcast(a_batch, b_batch, batch));
  std::vector<std::int64_t> out_dims = batch.dims();
  if (!a1) out_dims.push_back(m);
  if (!b1) out_dims.push_back(n);
  Ref r{Shape(out_dims), {}, {}};
  const double eps = eps_of(out_dtype);
  for_each_index(batch, [&](const Index& bi, std::int64_t) {
    Index ia = broadcast_index(bi, a_batch), ib = broadcast_index(bi, b_batch);
    ia.resize(ia.size() + (a1 ? 1 : 2));
    ib.resize(ib.size() + (b1 ? 1 : 2));
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        double s = 0, mag = 0;
        for (std::int64_t p = 0; p < k; ++p) {
          if (a1) {
            ia.back() = p;
          } else {
            ia[ia.size() - 2] = i;
            ia.back() = p;
          }
          if (b1) {
            ib.back() = p;
          } else {
            ib[ib.size() - 2] = p;
            ib.back() = j;
          }
          const double x = get(a, ia) * get(b, ib);
          s += x;
          mag += std::fabs(x);
        }
        r.v.push_back(s);
        r.mag.push_back(static_cast<double>(k + 2) * eps * mag);
      }
    }
  });
  return r;
}

void check_matmul(const Tensor& a, const Tensor& b, const std::string& what) {
  SCOPED_TRACE(fmt::format("{}: {} {} @ {} {}", what, dtype_name(a.dtype()), a.shape().str(), dtype_name(b.dtype()),
                           b.shape().str()));
  const DType out_dtype = promote_types(a.dtype(), b.dtype());
  const Ref ref = ref_matmul(a, b, out_dtype);
  const auto a_bytes = storage_bytes(a), b_bytes = storage_bytes(b);
  poison_cache(static_cast<std::size_t>(ref.shape.numel()) * dtype_size(out_dtype));
  const Tensor out = matmul(a, b);
  EXPECT_EQ(out.dtype(), out_dtype);
  EXPECT_FALSE(out.shares_storage_with(a) || out.shares_storage_with(b));
  EXPECT_TRUE(matches(out, ref, Tol{1.0, 0.0}));
  EXPECT_EQ(storage_bytes(a), a_bytes);
  EXPECT_EQ(storage_bytes(b), b_bytes);
}

struct Mkn {
  std::int64_t m, k, n;
};
const Mkn kShapes[] = {{1, 1, 1},  {7, 13, 31}, {31, 127, 13}, {13, 7, 1}, {1, 31, 7}, {127, 1, 13},
                       {0, 5, 3},  {5, 0, 3},   {5, 3, 0},     {0, 0, 0},  {2, 3, 2}};

}  // namespace

TEST(Matmul, AllOperandLayouts) {
  std::mt19937_64 rng(61);
  for (DType dt : {DType::f32, DType::f64}) {
    for (const Mkn& s : kShapes) {
      for (Layout la : kAllLayouts) {
        for (Layout lb : kAllLayouts) {
          const Tensor a = make_input(Shape{s.m, s.k}, dt, la, rng);
          const Tensor b = make_input(Shape{s.k, s.n}, dt, lb, rng);
          check_matmul(a, b, std::string(layout_name(la)) + " @ " + layout_name(lb));
        }
      }
    }
  }
}

TEST(Matmul, LargerMatrices) {
  std::mt19937_64 rng(67);
  for (DType dt : {DType::f32, DType::f64}) {
    for (auto [la, lb] : {std::pair{Layout::contiguous, Layout::contiguous},
                          std::pair{Layout::transposed, Layout::step2},
                          std::pair{Layout::negstep, Layout::transposed}}) {
      check_matmul(make_input(Shape{127, 257}, dt, la, rng), make_input(Shape{257, 131}, dt, lb, rng),
                   std::string(layout_name(la)) + " @ " + layout_name(lb));
    }
  }
}

TEST(Matmul, TransposedOperandsViaT) {
  std::mt19937_64 rng(71);
  const Tensor a = random_tensor(Shape{13, 7}, DType::f32, rng), b = random_tensor(Shape{31, 13}, DType::f32, rng);
  check_matmul(a.T(), b.T(), "a.T() @ b.T()");
  check_matmul(b, a, "b @ a");
  check_matmul(a.T(), a, "a.T() @ a (shared storage)");
}

// Row and column vectors with strides that BLAS can take directly or that need packing.
TEST(Matmul, SingleRowsAndColumnsWithOddStrides) {
  std::mt19937_64 rng(73);
  const Tensor base = random_tensor(Shape{9, 11}, DType::f64, rng);
  const Tensor row = base.slice(0, 2, 3).slice(1, 0, 11, 2);    // (1, 6), column stride 2
  const Tensor col = base.slice(1, 4, 5).slice(0, 8, -100, -1);  // (9, 1), row stride -11
  const Tensor col6 = base.slice(1, 3, 4).slice(0, 0, 6);       // (6, 1), row stride 11
  check_matmul(row, col6, "strided row @ strided column");
  check_matmul(col, row, "reversed column @ strided row");
  check_matmul(col6.T(), random_tensor(Shape{6, 5}, DType::f64, rng), "column.T() @ matrix");
  check_matmul(random_tensor(Shape{5, 9}, DType::f64, rng), col, "matrix @ reversed column");
}

TEST(Matmul, OneDimensionalOperands) {
  std::mt19937_64 rng(79);
  for (DType dt : {DType::f32, DType::f64}) {
    for (Layout lv : kAllLayouts) {
      for (std::int64_t k : {0, 1, 13}) {
        const Tensor v = make_input(Shape{k}, dt, lv, rng), w = make_input(Shape{k}, dt, lv, rng);
        const Tensor m = make_input(Shape{k, 7}, dt, Layout::transposed, rng);
        const Tensor mt = make_input(Shape{5, k}, dt, Layout::step2, rng);
        check_matmul(v, m, "vector @ matrix");
        check_matmul(mt, v, "matrix @ vector");
        check_matmul(v, w, "vector @ vector");
        check_matmul(v, make_input(Shape{2, k, 3}, dt, Layout::contiguous, rng), "vector @ batch");
        check_matmul(make_input(Shape{2, 3, k}, dt, Layout::negstep, rng), v, "batch @ vector");
      }
    }
  }
  EXPECT_EQ(matmul(ones(Shape{4}), ones(Shape{4})).shape(), (Shape{}));
  EXPECT_EQ(get(matmul(ones(Shape{4}), ones(Shape{4})), {}), 4.0);
  EXPECT_EQ(matmul(ones(Shape{4}), ones(Shape{4, 3})).shape(), (Shape{3}));
  EXPECT_EQ(matmul(ones(Shape{2, 4}), ones(Shape{4})).shape(), (Shape{2}));
}

TEST(Matmul, BatchedWithBroadcasting) {
  std::mt19937_64 rng(83);
  struct Case {
    Shape a, b, out;
  };
  const Case cases[] = {{Shape{2, 1, 3, 4}, Shape{5, 4, 6}, Shape{2, 5, 3, 6}},
                        {Shape{3, 4}, Shape{2, 4, 5}, Shape{2, 3, 5}},
                        {Shape{7, 1, 13, 3}, Shape{1, 5, 3, 2}, Shape{7, 5, 13, 2}},
                        {Shape{0, 3, 4}, Shape{4, 5}, Shape{0, 3, 5}},
                        {Shape{4, 2, 0}, Shape{4, 0, 3}, Shape{4, 2, 3}},
                        {Shape{1, 1, 1}, Shape{6, 1, 1}, Shape{6, 1, 1}}};
  for (DType dt : {DType::f32, DType::f64}) {
    for (const Case& c : cases) {
      for (Layout la : kAllLayouts) {
        for (Layout lb : {Layout::contiguous, Layout::broadcast, Layout::negstep}) {
          const Tensor a = make_input(c.a, dt, la, rng), b = make_input(c.b, dt, lb, rng);
          EXPECT_EQ(matmul(a, b).shape(), c.out);
          check_matmul(a, b, std::string(layout_name(la)) + " @ " + layout_name(lb));
        }
      }
    }
  }
}

TEST(Matmul, EmptyInnerExtentGivesZeros) {
  for (DType dt : {DType::f32, DType::f64}) {
    poison_cache(31 * 13 * dtype_size(dt));
    const Tensor c = matmul(ones(Shape{31, 0}, dt), ones(Shape{0, 13}, dt));
    ASSERT_EQ(c.shape(), (Shape{31, 13}));
    for_each_index(c.shape(), [&](const Index& i, std::int64_t) { ASSERT_EQ(get(c, i), 0.0); });
    EXPECT_EQ(matmul(ones(Shape{0, 4}, dt), ones(Shape{4, 3}, dt)).shape(), (Shape{0, 3}));
    EXPECT_EQ(matmul(ones(Shape{3, 4}, dt), ones(Shape{4, 0}, dt)).shape(), (Shape{3, 0}));
  }
}

TEST(Matmul, MixedPrecisionPromotesToFloat64) {
  std::mt19937_64 rng(89);
  const Tensor a = random_tensor(Shape{13, 31}, DType::f32, rng);
  const Tensor b = random_tensor(Shape{31, 7}, DType::f64, rng);
  check_matmul(a, b, "f32 @ f64");
  check_matmul(b.T(), a.T(), "f64 @ f32");
  check_matmul(make_input(Shape{31, 7}, DType::f32, Layout::step2, rng), b.T(), "strided f32 @ f64");
}

TEST(Matmul, Errors) {
  const Tensor a = ones(Shape{3, 4}), b = ones(Shape{5, 6});
  EXPECT_THROW(matmul(a, b), ShapeError);
  EXPECT_THROW(matmul(ones(Shape{2, 3, 4}), ones(Shape{3, 4, 5})), ShapeError);
  EXPECT_THROW(matmul(ones(Shape{3}), ones(Shape{4})), ShapeError);
  EXPECT_THROW(matmul(ones(Shape{3}), ones(Shape{4, 3})), ShapeError);
  EXPECT_THROW(matmul(ones(Shape{3, 4}), ones(Shape{3})), ShapeError);
  EXPECT_THROW(matmul(full(Shape{}, 2.0), ones(Shape{3})), ShapeError);
  EXPECT_THROW(matmul(ones(Shape{3}), full(Shape{}, 2.0)), ShapeError);
  EXPECT_THROW(matmul(ones(Shape{2, 2}, DType::i32), ones(Shape{2, 2}, DType::i32)), DTypeError);
  EXPECT_THROW(matmul(ones(Shape{2, 2}, DType::i64), ones(Shape{2, 2}, DType::i32)), DTypeError);
  EXPECT_THROW(matmul(ones(Shape{2, 2}, DType::boolean), ones(Shape{2, 2}, DType::boolean)), DTypeError);
  EXPECT_THROW(matmul(Tensor(), a), ValueError);
  EXPECT_THROW(matmul(a, Tensor()), ValueError);
  try {
    matmul(a, b);
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("(3, 4)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("(5, 6)"), std::string::npos) << e.what();
  }
}

// --- The BLAS library under the CPU backend (include/accelera/cpu_blas.hpp) ------------------------------

// The library's default: oneDNN for float32 products when built with it (Note [oneDNN products]).
const char* default_cpu_blas() { return cpu_blas_has_onednn() ? "onednn" : "builtin"; }

// Every test starts on the linked OpenBLAS and ends on the default.
class CpuBlas : public ::testing::Test {
 protected:
  void SetUp() override { use_cpu_blas("builtin"); }
  void TearDown() override { use_cpu_blas(default_cpu_blas()); }
};

TEST_F(CpuBlas, OneDnnRunsFloat32ProductsWhenBuiltWithIt) {
  if (!cpu_blas_has_onednn()) {
    EXPECT_THROW(use_cpu_blas("onednn"), ValueError);
    return;
  }
  use_cpu_blas("onednn");
  const CpuBlasInfo info = cpu_blas_info();
  EXPECT_FALSE(info.builtin);
  EXPECT_EQ(info.symbols, "dnnl_sgemm");
  EXPECT_NE(info.config.find("oneDNN"), std::string::npos) << info.config;
  EXPECT_GE(info.threads, 1);
  std::mt19937_64 rng(41);
  for (DType dt : {DType::f32, DType::f64}) {  // float64 runs on the linked OpenBLAS
    for (const Mkn& s : kShapes) {
      for (Layout la : {Layout::contiguous, Layout::transposed, Layout::negstep}) {
        for (Layout lb : {Layout::contiguous, Layout::transposed}) {
          check_matmul(make_input(Shape{s.m, s.k}, dt, la, rng), make_input(Shape{s.k, s.n}, dt, lb, rng),
                       std::string(layout_name(la)) + " @ " + layout_name(lb) + " on oneDNN");
        }
      }
    }
  }
}

// Note [Small products on one thread]: products on either side of the limit are right, and the caller's
// OpenMP thread count is what it was before (the small ones run with one thread for their duration).
TEST_F(CpuBlas, OneDnnProductsOnEitherSideOfTheOneThreadLimitKeepTheCallersThreadCount) {
  if (!cpu_blas_has_onednn()) GTEST_SKIP() << "built without oneDNN";
  use_cpu_blas("onednn");
  std::mt19937_64 rng(43);
  const int threads = omp_get_max_threads();
  for (const Mkn& s : {Mkn{3, 5, 7}, Mkn{64, 64, 64}, Mkn{257, 263, 269}, Mkn{521, 512, 509}}) {
    check_matmul(make_input(Shape{s.m, s.k}, DType::f32, Layout::contiguous, rng),
                 make_input(Shape{s.k, s.n}, DType::f32, Layout::transposed, rng), "oneDNN");
    EXPECT_EQ(omp_get_max_threads(), threads);
  }
}

TEST_F(CpuBlas, BuiltinIsTheLinkedOpenBlas) {
  const CpuBlasInfo info = cpu_blas_info();
  EXPECT_TRUE(info.builtin);
  EXPECT_EQ(info.symbols, "cblas_sgemm");
  EXPECT_NE(info.library.find("blas"), std::string::npos) << info.library;
  EXPECT_NE(info.config.find("OpenBLAS"), std::string::npos) << info.config;
  EXPECT_TRUE(info.integer_bits == 32 || info.integer_bits == 64) << info.integer_bits;
  EXPECT_GE(info.threads, 1);
}

// A library opened by path (here the same OpenBLAS file, through dlopen) computes every layout right.
TEST_F(CpuBlas, ALibraryOpenedByPathComputesEveryLayout) {
  const std::string path = cpu_blas_info().library;
  use_cpu_blas(path);
  const CpuBlasInfo info = cpu_blas_info();
  EXPECT_FALSE(info.builtin);
  EXPECT_EQ(info.library, path);
  EXPECT_NE(info.config.find("OpenBLAS"), std::string::npos) << info.config;
  std::mt19937_64 rng(97);
  for (DType dt : {DType::f32, DType::f64}) {
    for (const Mkn& s : kShapes) {
      for (Layout la : {Layout::contiguous, Layout::transposed, Layout::negstep}) {
        check_matmul(make_input(Shape{s.m, s.k}, dt, la, rng), make_input(Shape{s.k, s.n}, dt, Layout::transposed, rng),
                     std::string(layout_name(la)) + " @ transposed");
      }
    }
  }
  const Tensor x = random_tensor(Shape{37, 19}, DType::f32, rng), w = random_tensor(Shape{23, 19}, DType::f32, rng);
  const Tensor on_path = linear_gelu(x, w, Tensor());
  use_cpu_blas("builtin");
  EXPECT_TRUE(cpu_blas_info().builtin);
  const Tensor on_builtin = linear_gelu(x, w, Tensor());
  for_each_index(on_path.shape(), [&](const Index& i, std::int64_t) { ASSERT_EQ(get(on_path, i), get(on_builtin, i)); });
}

TEST_F(CpuBlas, UnusableLibrariesAreValueErrorsAndChangeNothing) {
  const std::string before = cpu_blas_info().library;
  EXPECT_THROW(use_cpu_blas("/nonexistent/libblas.so"), ValueError);
  EXPECT_THROW(use_cpu_blas(""), ValueError);
  try {
    use_cpu_blas("libm.so.6");  // loads, but has no CBLAS
    ADD_FAILURE() << "libm accepted as a BLAS";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("no CBLAS sgemm"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(cpu_blas_info().builtin);
  EXPECT_EQ(cpu_blas_info().library, before);
  check_matmul(ones(Shape{3, 4}), ones(Shape{4, 5}), "after refused libraries");
}

// With 32-bit BLAS sizes, a row longer than 2^31 is refused before BLAS sees it (no memory is touched).
TEST_F(CpuBlas, SizesBeyondThe32BitRangeAreRefusedByA32BitLibrary) {
  ASSERT_EQ(cpu_blas_info().integer_bits, 32) << "the linked OpenBLAS uses 64-bit sizes; this test needs 32";
  const std::int64_t wide = std::int64_t{1} << 31;
  float c = 0;
  try {
    cpu::blas::gemm("matmul", cpu::blas::Transpose::no, cpu::blas::Transpose::no, 1, wide, 1, &c, 1, &c, wide, 0.0f, &c,
                    wide);
    ADD_FAILURE() << "a 2^31-column product reached a 32-bit BLAS";
  } catch (const NotSupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("32-bit"), std::string::npos) << e.what();
  }
}

// Note [OpenBLAS core type]: generic kernels on a vector CPU get a suggestion; vector kernels never do.
TEST(CpuBlasCore, GenericKernelsOnAVectorCpuGetTheFittingCoreType) {
  using cpu::blas::suggested_openblas_core;
  const std::vector<std::string> avx512{"avx512", "avx2", "sse4", "scalar"}, avx2{"avx2", "sse4", "scalar"},
      sse4{"sse4", "scalar"};
  EXPECT_EQ(suggested_openblas_core("Prescott", avx512), "SkylakeX");
  EXPECT_EQ(suggested_openblas_core("Prescott", avx2), "Haswell");
  EXPECT_EQ(suggested_openblas_core("Nehalem", avx2), "Haswell");
  EXPECT_EQ(suggested_openblas_core("Prescott", sse4), "");
  for (const char* fine : {"Haswell", "HASWELL", "SkylakeX", "Cooperlake", "SapphireRapids", "Zen"}) {
    EXPECT_EQ(suggested_openblas_core(fine, avx512), "") << fine;
  }
  EXPECT_EQ(suggested_openblas_core("", avx512), "");
}

TEST_F(CpuBlas, InfoNamesTheLinkedOpenBlasKernels) {
  const CpuBlasInfo info = cpu_blas_info();
  EXPECT_FALSE(info.core.empty());
  EXPECT_EQ(info.suggested_core, cpu::blas::suggested_openblas_core(info.core, cpu::simd::supported_target_names()));
}

// Note [OpenBLAS thread timeout]: the spin the float64 products' OpenBLAS was loaded with.
TEST_F(CpuBlas, InfoGivesTheOpenBlasWorkersSpin) {
  const char* set = std::getenv("OPENBLAS_THREAD_TIMEOUT");
  const int read = set != nullptr ? std::atoi(set) : 0;
  EXPECT_EQ(cpu_blas_info().spin_log2_cycles, read <= 0 ? 28 : std::clamp(read, 4, 30));
}
