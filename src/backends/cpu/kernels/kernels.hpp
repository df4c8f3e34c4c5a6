#pragma once
// The CPU backend's kernels, one file each under kernels/.
#include <cstdint>
#include <span>

#include "accelera/backend.hpp"

namespace accelera::cpu {

void copy_kernel(const Tensor& src, const Tensor& dst);
void fill_kernel(const Tensor& dst, double value);
// out = a @ b, or out += a @ b with `accumulate`.
void matmul_kernel(const Tensor& a, const Tensor& b, const Tensor& out, bool accumulate = false);
void binary_kernel(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out);
void unary_kernel(UnaryOp op, const Tensor& x, const Tensor& out);
void reduce_kernel(ReduceOp op, const Tensor& x, std::span<const std::int64_t> axes, const Tensor& out);

}  // namespace accelera::cpu
