// masked_select and flat_nonzero by compaction (Note [Compaction] in ops/compress.hpp).
#include "ops/compress.hpp"

#include <algorithm>

#include "accelera/core/registry.hpp"
#include "accelera/ops.hpp"
#include "ops/common.hpp"

namespace accelera {

using namespace ops_detail;

std::int64_t compaction_chunk(const Device& device, std::int64_t n) {
  constexpr std::int64_t kGroupChunk = 4096;
  const DeviceInfo info = device_interface(device).device_info(device.index);
  if (info.is_accelerator) return kGroupChunk;
  // Four chunks per core, so that a slow core does not hold the others up; whole cache lines.
  const std::int64_t wanted = 4 * std::max(info.compute_units, 1);
  const std::int64_t chunk = (n + wanted - 1) / wanted;
  return std::max(kGroupChunk, (chunk + 63) / 64 * 64);
}

namespace {

// The mask as the kernels take it, its chunking, and each chunk's slots in the output.
struct Compaction {
  Tensor mask;  // contiguous bool, 1-d
  std::int64_t chunk = 0;
  Tensor offsets;  // int64, one per chunk and the total
  std::int64_t total = 0;
};

Compaction plan_compaction(const Tensor& mask) {
  Compaction c;
  const std::int64_t flat[] = {-1};
  c.mask = cast_to(mask, DType::boolean).contiguous().reshape(flat);
  const std::int64_t n = c.mask.numel();
  c.chunk = compaction_chunk(mask.device(), n);
  const Tensor counts = Tensor::empty(Shape{(n + c.chunk - 1) / c.chunk}, DType::i64, mask.device());
  kernel_for(op::mask_counts, mask.device(), DType::boolean)(c.mask, c.chunk, counts);
  c.offsets = cumulative_sum(counts, 0, std::nullopt, true);
  // The one host read: the output's length.
  const std::int64_t chunks = counts.numel();
  c.total = *c.offsets.slice(0, chunks, chunks + 1).to(Device::cpu()).data<std::int64_t>();
  return c;
}

}  // namespace

Tensor masked_select(const Tensor& x, const Tensor& mask) {
  check_defined(x, "masked_select", "x");
  check_defined(mask, "masked_select", "the mask");
  check_same_device(x, mask, "masked_select");
  ACC_CHECK(x.shape() == mask.shape(), ShapeError, "masked_select: the mask's shape {} differs from x's {}",
            mask.shape().str(), x.shape().str());
  if (x.numel() == 0) return Tensor::empty(Shape{0}, x.dtype(), x.device());
  if (is_complex(x.dtype())) {  // pairs of reals, the mask repeated along them
    const Tensor pairs = x.view_as_real();
    const Tensor kept = masked_select(pairs, mask.unsqueeze(-1).broadcast_to(pairs.shape()));
    const std::int64_t shape[] = {-1, 2};
    return kept.reshape(shape).view_as_complex();
  }
  const auto kernel = kernel_for(op::compress, x.device(), x.dtype());
  const Compaction c = plan_compaction(mask);
  Tensor out = Tensor::empty(Shape{c.total}, x.dtype(), x.device());
  const std::int64_t flat[] = {-1};
  if (c.total > 0) kernel(x.contiguous().reshape(flat), c.mask, c.chunk, c.offsets, out);
  return out;
}

Tensor flat_nonzero(const Tensor& x) {
  check_defined(x, "nonzero", "x");
  if (x.numel() == 0) return Tensor::empty(Shape{0}, DType::i64, x.device());
  const auto kernel = kernel_for(op::compress, x.device(), DType::i64);
  const Compaction c = plan_compaction(x);
  Tensor positions = Tensor::empty(Shape{c.total}, DType::i64, x.device());
  if (c.total > 0) kernel(Tensor(), c.mask, c.chunk, c.offsets, positions);
  return positions;
}

}  // namespace accelera
