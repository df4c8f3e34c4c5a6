// Streams, events, asynchronous copies and staging buffers on every device (Note [Streams and events]).
#include <cmath>
#include <cstring>

#include "accelera/ops.hpp"
#include "ops/elementwise.hpp"
#include "helpers.hpp"

namespace acc_test {
namespace {

using accelera::DeviceInterface;
using accelera::EventPtr;
using accelera::Stream;

class StreamsTest : public ::testing::TestWithParam<Device> {
 protected:
  void SetUp() override {
    if (const std::string why = device_absence(GetParam()); !why.empty()) GTEST_SKIP() << why;
  }
};

TEST_P(StreamsTest, StagingBufferIsUsableHostMemory) {
  const Device device = GetParam();
  DeviceInterface& backend = accelera::device_interface(device);
  auto buffer = backend.allocate_host(device.index, 1000);
  ASSERT_NE(buffer->data(), nullptr);
  EXPECT_EQ(buffer->size(), 1000u);
  EXPECT_EQ(buffer->pinned(), !device.is_cpu());
  std::memset(buffer->data(), 0x5a, buffer->size());
  EXPECT_EQ(static_cast<unsigned char*>(buffer->data())[999], 0x5a);
}

// A three-stage pipeline over two device slots: upload chunk i into slot i % 2, exp on the compute stream,
// download on the download stream. Only events order the stages; reuse of a slot waits for the kernel and
// the download that last used it. Any missing wait shows up as a wrong chunk.
TEST_P(StreamsTest, PipelineOrderedByEventsOnly) {
  const Device device = GetParam();
  DeviceInterface& backend = accelera::device_interface(device);
  const int index = device.index;
  constexpr std::int64_t chunk = 65537;  // prime: no chunk lines up with anything
  constexpr int chunks = 9;
  std::mt19937_64 rng(7);
  Tensor host_in = random_tensor(Shape({chunks * chunk}), DType::f32, rng, -2.0, 2.0);
  auto staging_in = backend.allocate_host(index, chunks * chunk * sizeof(float));
  auto staging_out = backend.allocate_host(index, chunks * chunk * sizeof(float));
  std::memcpy(staging_in->data(), host_in.data_ptr(), staging_in->size());
  std::memset(staging_out->data(), 0xff, staging_out->size());  // NaN poison

  Tensor in_slots[2] = {Tensor::empty(Shape({chunk}), DType::f32, device),
                        Tensor::empty(Shape({chunk}), DType::f32, device)};
  Tensor out_slots[2] = {Tensor::empty(Shape({chunk}), DType::f32, device),
                         Tensor::empty(Shape({chunk}), DType::f32, device)};
  EventPtr kernel_done[2], download_done[2];
  for (int i = 0; i < chunks; ++i) {
    const int s = i % 2;
    const auto* src = static_cast<const float*>(staging_in->data()) + i * chunk;
    auto* dst = static_cast<float*>(staging_out->data()) + i * chunk;
    if (kernel_done[s]) backend.stream_wait(index, Stream::upload, *kernel_done[s]);
    backend.copy_from_host_async(in_slots[s], src, Stream::upload);
    EventPtr uploaded = backend.record_event(index, Stream::upload);
    backend.stream_wait(index, Stream::compute, *uploaded);
    if (download_done[s]) backend.stream_wait(index, Stream::compute, *download_done[s]);
    accelera::kernel_for(accelera::op::exp, device, DType::f32)(in_slots[s], out_slots[s]);  // on compute
    kernel_done[s] = backend.record_event(index, Stream::compute);
    backend.stream_wait(index, Stream::download, *kernel_done[s]);
    backend.copy_to_host_async(dst, out_slots[s], Stream::download);
    download_done[s] = backend.record_event(index, Stream::download);
  }
  download_done[(chunks - 1) % 2]->synchronize();
  EXPECT_TRUE(download_done[0]->query());
  EXPECT_TRUE(download_done[1]->query());
  const auto* in = static_cast<const float*>(host_in.data_ptr());
  const auto* out = static_cast<const float*>(staging_out->data());
  std::int64_t bad = 0;
  for (std::int64_t k = 0; k < chunks * chunk; ++k) {
    const double ref = std::exp(static_cast<double>(in[k]));
    if (!(std::abs(out[k] - ref) <= 4e-7 * ref)) ++bad;
  }
  EXPECT_EQ(bad, 0);
}

TEST_P(StreamsTest, SynchronizeStreamWaitsForItsCopies) {
  const Device device = GetParam();
  DeviceInterface& backend = accelera::device_interface(device);
  std::vector<double> src(1001), dst(1001, -1.0);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<double>(i) * 0.5;
  Tensor t = Tensor::empty(Shape({1001}), DType::f64, device);
  backend.copy_from_host_async(t, src.data(), Stream::upload);
  backend.synchronize_stream(device.index, Stream::upload);
  backend.copy_to_host_async(dst.data(), t, Stream::download);
  backend.synchronize_stream(device.index, Stream::download);
  EXPECT_EQ(dst, src);
}

INSTANTIATE_TEST_SUITE_P(Devices, StreamsTest, ::testing::ValuesIn(with_cuda_placeholder(all_devices())), device_name);

}  // namespace
}  // namespace acc_test
