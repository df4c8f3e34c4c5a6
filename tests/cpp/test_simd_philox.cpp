// The vector Philox (Note [Vector Philox] in backends/cpu/simd/philox.cpp) on every Highway target this CPU
// supports against the scalar kernels of ops/random_bits.hpp (themselves checked against Random123's known
// answers in test_random_take.cpp and, through the op table, against an independent Philox): uniforms and
// integers bit for bit, normals within a few ulp and the same at a counter whatever the draw; for every
// count of blocks around the vector widths and partial last blocks, counters that carry into their high
// word inside a vector, and outputs fenced by guards.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ops/random_bits.hpp"
#include "simd_support.hpp"

namespace acc_test::simd {
namespace {

namespace rb = accelera::random_bits;

struct Counter {
  std::uint64_t seed, first_block;
};
// From 0, in the middle, and a few blocks before the carry into the counter's high word (so that it
// happens between lanes of one vector).
const Counter kCounters[] = {{0, 0}, {0x243F6A8885A308D3ull, 12345}, {42, 0xFFFFFFFDull}};
const std::size_t kBlocks[] = {0, 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 33, 257};

template <typename T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <typename T>
T scalar_uniform(Counter c, std::size_t k, T low, T scale) {
  const std::uint64_t block = c.first_block + k / 4;
  const int j = static_cast<int>(k % 4);
  const rb::Words high = rb::block_words(c.seed, block, 0);
  if constexpr (sizeof(T) == 4) {
    return low + scale * rb::uniform_f32(high.w[j]);
  } else {
    return low + scale * rb::uniform_f64(rb::word64(high, rb::block_words(c.seed, block, 1), j));
  }
}

template <typename T>
T scalar_integer(Counter c, std::size_t k, std::uint64_t base, std::uint64_t range) {
  const std::uint64_t block = c.first_block + k / 4;
  const int j = static_cast<int>(k % 4);
  const std::uint64_t hi = rb::word64(rb::block_words(c.seed, block, 0), rb::block_words(c.seed, block, 1), j);
  if constexpr (sizeof(T) == 4) return static_cast<T>(base + rb::bounded_from_64(hi, range));
  const std::uint64_t lo = rb::word64(rb::block_words(c.seed, block, 2), rb::block_words(c.seed, block, 3), j);
  return static_cast<T>(base + rb::bounded_from_128(hi, lo, range));
}

// Runs draw(out, count, counter) for every counter and count (whole blocks around the vector widths, and
// a partial last block) into a fenced output, then check(counter, element k, its value) for each element.
template <typename T, typename Draw, typename Check>
void for_each_draw(Draw&& draw, Check&& check) {
  for (Counter c : kCounters) {
    for (std::size_t blocks : kBlocks) {
      for (std::size_t count : {4 * blocks, 4 * blocks + 1, 4 * blocks + 3}) {
        SCOPED_TRACE(std::to_string(count) + " elements from block " + std::to_string(c.first_block));
        Poisoned<T> out(count, blocks % 3);
        draw(out.data(), static_cast<std::int64_t>(count), c);
        ASSERT_TRUE(out.guards_intact());
        for (std::size_t k = 0; k < count; ++k) ASSERT_NO_FATAL_FAILURE(check(c, k, out[k])) << "element " << k;
      }
    }
  }
}

template <typename T>
void check_uniform(T low, T scale) {
  for_each_draw<T>(
      [&](T* out, std::int64_t count, Counter c) { ks::philox_uniform(out, count, c.seed, c.first_block, low, scale); },
      [&](Counter c, std::size_t k, T got) {
        const T want = scalar_uniform(c, k, low, scale);
        ASSERT_TRUE(same_bits(got, want)) << got << ", expected " << want;
      });
}

// Normals are Box-Muller in vectors: within a few ulp of the scalar kernel's libm, relative to the draw's
// magnitude |loc| + scale (|z| + 1) (an element near zero is r cos(theta) with cancellation in theta).
template <typename T>
void check_normal(T loc, T scale) {
  const double tol = sizeof(T) == 4 ? 1e-6 : 1e-14;
  for_each_draw<T>(
      [&](T* out, std::int64_t count, Counter c) { ks::philox_normal(out, count, c.seed, c.first_block, loc, scale); },
      [&](Counter c, std::size_t k, T got) {
        const std::uint64_t block = c.first_block + k / 4;
        const int j = static_cast<int>(k % 4);
        const rb::Words high = rb::block_words(c.seed, block, 0);
        const double z =
            sizeof(T) == 4 ? rb::normal_f32(high, j) : rb::normal_f64(high, rb::block_words(c.seed, block, 1), j);
        ASSERT_NEAR(got, loc + scale * z, tol * (std::fabs(loc) + scale * (std::fabs(z) + 1)));
      });
}

template <typename T>
void check_integers(std::uint64_t base, std::uint64_t range) {
  SCOPED_TRACE("range " + std::to_string(range));
  for_each_draw<T>(
      [&](T* out, std::int64_t count, Counter c) {
        ks::philox_integers(out, count, c.seed, c.first_block, base, range);
      },
      [&](Counter c, std::size_t k, T got) { ASSERT_EQ(got, scalar_integer<T>(c, k, base, range)); });
}

TEST(SimdPhilox, UniformsAreTheScalarKernelsBits) {
  for_each_target([](const std::string&) {
    check_uniform<float>(0.0f, 1.0f);
    check_uniform<float>(-2.5f, 5.5f);  // an add and a multiply that a fused multiply-add would round once
    check_uniform<double>(0.0, 1.0);
    check_uniform<double>(-2.5, 5.5);
  });
}

TEST(SimdPhilox, NormalsWithinAFewUlpOfTheScalarKernels) {
  for_each_target([](const std::string&) {
    check_normal<float>(0.0f, 1.0f);
    check_normal<float>(1.5f, 2.0f);
    check_normal<double>(0.0, 1.0);
    check_normal<double>(-1.5, 0.25);
  });
}

// Normals are not the scalar kernels' bits, so each must come from the same code wherever it falls: the
// element at a given counter is the same whatever the draw's length and the block it starts at (a scalar
// tail, or the threads' shares, would otherwise decide between the two forms).
TEST(SimdPhilox, NormalsDependOnlyOnTheirCounter) {
  for_each_target([](const std::string&) {
    constexpr std::uint64_t seed = 77, first = 1000;
    std::vector<float> whole(4 * 301), part(4 * 301);
    std::vector<double> whole64(4 * 301), part64(4 * 301);
    ks::philox_normal(whole.data(), 4 * 301, seed, first, 0.0f, 1.0f);
    ks::philox_normal(whole64.data(), 4 * 301, seed, first, 0.0, 1.0);
    for (const std::int64_t start : {0, 1, 3, 8, 17, 299}) {  // blocks into the draw
      for (const std::int64_t count : {std::int64_t{1}, std::int64_t{5}, std::int64_t{31}, std::int64_t{64}, 4 * (301 - start)}) {
        if (4 * start + count > 4 * 301) continue;
        ks::philox_normal(part.data(), count, seed, first + start, 0.0f, 1.0f);
        ks::philox_normal(part64.data(), count, seed, first + start, 0.0, 1.0);
        for (std::int64_t k = 0; k < count; ++k) {
          ASSERT_TRUE(same_bits(part[k], whole[4 * start + k])) << "start " << start << " count " << count << " k " << k;
          ASSERT_TRUE(same_bits(part64[k], whole64[4 * start + k])) << "start " << start << " count " << count << " k " << k;
        }
      }
    }
  });
}

TEST(SimdPhilox, IntegersAreTheScalarKernelsBits) {
  for_each_target([](const std::string&) {
    for (const std::uint64_t range : {1ull, 2ull, 20ull, 1999987ull, 1ull << 32}) {
      check_integers<std::int32_t>(static_cast<std::uint64_t>(-7), range);
    }
    // int64: ranges past 2^32 need all 128 bits, 0 stands for 2^64 (every value).
    for (const std::uint64_t range : {1ull, 20ull, (1ull << 45) + 3, 0xFFFFFFFFFFFFFFC5ull, 0ull}) {
      check_integers<std::int64_t>(static_cast<std::uint64_t>(-(std::int64_t{1} << 40)), range);
    }
  });
}

}  // namespace
}  // namespace acc_test::simd
