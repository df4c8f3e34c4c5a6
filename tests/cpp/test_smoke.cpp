#include <gtest/gtest.h>
#include "accelera/accelera.hpp"
TEST(Smoke, MatmulRuns) {
  auto a = accelera::ones(accelera::Shape{3, 4});
  auto b = accelera::ones(accelera::Shape{4, 5});
  auto c = accelera::matmul(a, b);
  EXPECT_EQ(c.shape(), (accelera::Shape{3, 5}));
  EXPECT_FLOAT_EQ(c.data<float>()[0], 4.0f);
}
