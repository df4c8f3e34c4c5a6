// Half-precision flash attention on cuda:0 (label `gpu`; every test skips, saying why, where no CUDA device
// answers): float16 and bfloat16 forward on the tensor-core path (head_dim % 16 == 0) and on the SIMT path
// (other head dims), and the backward, against the float64 reference evaluated on the rounded half inputs.
// Note [CUDA attention kernels] in src/backends/cuda/attention.cpp says which path runs where. float32 and
// float64 run in the shared suite (test_attention.cpp) on every device, cuda:0 included.
#include <cmath>
#include <cstring>
#include <latch>
#include <thread>

#include "attention_ref.hpp"
#include "nn_helpers.hpp"

namespace acc_test {
namespace {

using namespace acc_test::nn;

const Device kCuda{accelera::DeviceKind::cuda, 0};

// Error allowed relative to the results' magnitude: a few roundings of the probabilities and outputs to
// the format (11 significant bits for float16, 8 for bfloat16). lse is computed in float32 throughout.
double half_rtol(DType dt) { return dt == DType::f16 ? 2e-3 : 1.6e-2; }
constexpr double kLseRtol = 1e-4;

struct HalfCase {
  std::int64_t lq, lk, d;
  bool causal;
};

std::string case_name(const HalfCase& c, DType dt) {
  return fmt::format("{} lq{} lk{} d{}{}", dtype_name(dt), c.lq, c.lk, c.d, c.causal ? " causal" : "");
}

Ref with_magnitude(const Shape& shape, std::vector<double> v, double magnitude) {
  Ref r{shape, std::move(v), {}};
  r.mag.assign(r.v.size(), magnitude);
  return r;
}

// A contiguous device tensor of `shape` that starts one element past an allocation (so 2 bytes off the
// 16-byte alignment for the half types), holding `values`' elements.
Tensor misaligned_on_device(const Tensor& values) {
  const std::int64_t n = values.numel();
  const Tensor flat = Tensor::empty(Shape{n + 1}, values.dtype());
  std::memcpy(static_cast<std::byte*>(flat.data_ptr()) + values.itemsize(), values.data_ptr(), values.nbytes());
  const Tensor on_device = flat.to(kCuda).slice(0, 1, n + 1).reshape(values.shape().dims());
  EXPECT_NE(reinterpret_cast<std::uintptr_t>(on_device.data_ptr()) % 16, 0u);
  return on_device;
}

class CudaHalfAttention : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_compiled()) GTEST_SKIP() << "built without CUDA support";
    if (const std::string why = device_absence(kCuda); !why.empty()) GTEST_SKIP() << why;
  }

  // Forward on (batch 2, heads 1) with the default scale; `misaligned` puts q, k and v at an odd offset.
  void check_forward(const HalfCase& c, DType dt, bool misaligned = false) {
    const Shape qs{2, 1, c.lq, c.d}, kvs{2, 1, c.lk, c.d};
    const Tensor q = random_tensor(qs, dt, rng), k = random_tensor(kvs, dt, rng), v = random_tensor(kvs, dt, rng);
    poison_outputs(kCuda, {static_cast<std::int64_t>(q.nbytes()), 2 * c.lq * 4});
    const auto place = [&](const Tensor& t) { return misaligned ? misaligned_on_device(t) : on(t, kCuda); };
    const auto got = accelera::attention(place(q), place(k), place(v), std::nullopt, c.causal);
    ASSERT_EQ(got.out.dtype(), dt);
    ASSERT_EQ(got.lse.dtype(), DType::f32);
    const double scale = 1.0 / std::sqrt(static_cast<double>(c.d));
    const auto ref =
        attention_ref(values_of(q), values_of(k), values_of(v), {}, 2, c.lq, c.lk, c.d, scale, c.causal);
    // Outputs are averages of values in [-1, 1]: magnitude 1.
    EXPECT_TRUE(matches(host(got.out), with_magnitude(qs, ref.out, 1.0), {half_rtol(dt), 0.0}))
        << case_name(c, dt) << (misaligned ? " misaligned" : "");
    Ref lse_ref{Shape{2, 1, c.lq}, ref.lse, {}};
    for (double l : ref.lse) lse_ref.mag.push_back(std::isinf(l) ? 0.0 : std::fabs(l) + 1.0);
    EXPECT_TRUE(matches(host(got.lse), lse_ref, {kLseRtol, 0.0})) << "lse " << case_name(c, dt);
  }

  // Backward on (batch 1, heads 2) from the device's own forward (its rounded output and its lse).
  void check_backward(const HalfCase& c, DType dt) {
    const Shape qs{1, 2, c.lq, c.d}, kvs{1, 2, c.lk, c.d};
    const Tensor q = random_tensor(qs, dt, rng), k = random_tensor(kvs, dt, rng), v = random_tensor(kvs, dt, rng);
    const Tensor g = random_tensor(qs, dt, rng);
    const double scale = 0.3;
    const auto fwd = accelera::attention(on(q, kCuda), on(k, kCuda), on(v, kCuda), scale, c.causal);
    poison_outputs(kCuda, {static_cast<std::int64_t>(q.nbytes()), static_cast<std::int64_t>(k.nbytes())});
    const auto got = accelera::attention_backward(on(g, kCuda), on(q, kCuda), on(k, kCuda), on(v, kCuda), fwd.out,
                                                  fwd.lse, scale, c.causal);
    ASSERT_EQ(got.dq.dtype(), dt);
    const auto ref =
        attention_ref(values_of(q), values_of(k), values_of(v), values_of(g), 2, c.lq, c.lk, c.d, scale, c.causal);
    // Gradients sum over up to max(lq, lk) terms of unit size.
    const double mag = 1.0 + 0.05 * static_cast<double>(std::max(c.lq, c.lk));
    const Tol tol{half_rtol(dt), 0.0};
    EXPECT_TRUE(matches(host(got.dq), with_magnitude(qs, ref.dq, mag), tol)) << "dq " << case_name(c, dt);
    EXPECT_TRUE(matches(host(got.dk), with_magnitude(kvs, ref.dk, mag), tol)) << "dk " << case_name(c, dt);
    EXPECT_TRUE(matches(host(got.dv), with_magnitude(kvs, ref.dv, mag), tol)) << "dv " << case_name(c, dt);
  }

  std::mt19937_64 rng{23};
};

constexpr std::pair<std::int64_t, std::int64_t> kPairs[] = {{1, 1}, {239, 1}, {113, 203}, {203, 113}};
// 64, 80 and 128 take the tensor-core kernel; 40 the SIMT kernel.
constexpr std::int64_t kHeadDims[] = {64, 80, 128, 40};

TEST_F(CudaHalfAttention, ForwardMatchesFloat64) {
  for (DType dt : {DType::f16, DType::bf16}) {
    for (const auto& [lq, lk] : kPairs) {
      for (bool causal : {false, true}) {
        for (std::int64_t d : kHeadDims) check_forward({lq, lk, d, causal}, dt);
      }
    }
  }
}

TEST_F(CudaHalfAttention, ForwardHeadDimBucketEdges) {
  // The smallest and largest tensor-core head dims, and SIMT head dims at and past the lane-group edges.
  for (DType dt : {DType::f16, DType::bf16}) {
    for (std::int64_t d : {16, 256, 1, 65, 129, 200}) check_forward({113, 203, d, true}, dt);
  }
}

TEST_F(CudaHalfAttention, ForwardLongSequences) {
  // Many key tiles per block and many query blocks; the causal limit crosses tiles inside a block.
  for (DType dt : {DType::f16, DType::bf16}) {
    check_forward({1023, 1024, 64, false}, dt);
    check_forward({1023, 1024, 128, true}, dt);
    check_forward({517, 300, 96, true}, dt);
  }
}

TEST_F(CudaHalfAttention, ForwardMisalignedOperands) {
  // Offsets that break 16-byte alignment: the tensor-core kernel stages element by element.
  for (DType dt : {DType::f16, DType::bf16}) {
    check_forward({113, 203, 64, true}, dt, true);
    check_forward({70, 70, 40, false}, dt, true);
  }
}

TEST_F(CudaHalfAttention, BackwardMatchesFloat64) {
  for (DType dt : {DType::f16, DType::bf16}) {
    for (const auto& [lq, lk] : kPairs) {
      for (bool causal : {false, true}) {
        for (std::int64_t d : kHeadDims) check_backward({lq, lk, d, causal}, dt);
      }
    }
  }
}

// Eight host threads launch the tensor-core kernel at once with different head dims of the same buckets
// (one kernel instance serves 16..64, another 80..128, another 144..256), in a fresh process (ctest runs
// each test alone): the dynamic shared-memory limit is raised once per kernel instance and device, never
// lowered by a caller with a smaller head dim between another's raise and its launch.
TEST_F(CudaHalfAttention, ConcurrentHeadDimsShareTheTensorCoreKernels) {
  constexpr std::int64_t kRounds[2][8] = {{16, 32, 48, 64, 80, 96, 112, 128}, {144, 160, 192, 256, 208, 64, 128, 240}};
  constexpr std::int64_t kLen = 130, kRepeats = 4;
  for (DType dt : {DType::f16, DType::bf16}) {
    for (const auto& dims : kRounds) {
      struct Job {
        std::int64_t d = 0;
        Tensor q, k, v;
        AttentionRef ref;
        std::string failure;
      };
      std::vector<Job> jobs(8);
      for (std::size_t t = 0; t < jobs.size(); ++t) {
        Job& j = jobs[t];
        j.d = dims[t];
        const Shape shape{2, 1, kLen, j.d};
        j.q = random_tensor(shape, dt, rng);
        j.k = random_tensor(shape, dt, rng);
        j.v = random_tensor(shape, dt, rng);
        j.ref = attention_ref(values_of(j.q), values_of(j.k), values_of(j.v), {}, 2, kLen, kLen, j.d,
                              1.0 / std::sqrt(static_cast<double>(j.d)), t % 2 == 1);
      }
      std::latch start(static_cast<std::ptrdiff_t>(jobs.size()));
      std::vector<std::thread> threads;
      for (std::size_t t = 0; t < jobs.size(); ++t) {
        threads.emplace_back([&, t] {
          Job& j = jobs[t];
          try {
            const Tensor q = on(j.q, kCuda), k = on(j.k, kCuda), v = on(j.v, kCuda);
            start.arrive_and_wait();
            for (std::int64_t r = 0; r < kRepeats && j.failure.empty(); ++r) {
              const auto got = accelera::attention(q, k, v, std::nullopt, t % 2 == 1);
              const auto ok = matches(host(got.out), with_magnitude(j.q.shape(), j.ref.out, 1.0), {half_rtol(dt), 0.0});
              if (!ok) j.failure = ok.message();
            }
          } catch (const accelera::Error& e) {
            j.failure = e.what();
          }
        });
      }
      for (auto& t : threads) t.join();
      for (const Job& j : jobs) EXPECT_EQ(j.failure, "") << dtype_name(dt) << " head_dim " << j.d;
    }
  }
}

TEST_F(CudaHalfAttention, HeadDimAbove256IsNotSupported) {
  for (DType dt : {DType::f16, DType::f32}) {
    const Tensor q = on(random_tensor(Shape{1, 1, 4, 272}, dt, rng), kCuda);
    try {
      (void)accelera::attention(q, q, q);
      ADD_FAILURE() << "head_dim 272 was accepted for " << dtype_name(dt);
    } catch (const accelera::NotSupportedError& e) {
      EXPECT_NE(std::string(e.what()).find("head_dim up to 256"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace acc_test
