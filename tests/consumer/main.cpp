#include <accelera/accelera.hpp>

#include <cstdio>

int main() {
  const auto a = accelera::full(accelera::Shape{3, 4}, 2.0);
  const auto b = accelera::ones(accelera::Shape{4, 5});
  const auto c = accelera::matmul(a, b);
  const bool ok = c.shape() == accelera::Shape{3, 5} && c.data<float>()[0] == 8.0f;
  std::printf("accelera %s consumer: %s\n", ACCELERA_VERSION, ok ? "ok" : "wrong result");
  return ok ? 0 : 1;
}
