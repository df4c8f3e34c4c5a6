#pragma once
// DataLoader: shuffled batches of equally long tensors (rows along axis 0), on a device, the next batch
// gathered and uploaded on a worker thread while the caller computes on the current one, as Python's
// accelera.nn.DataLoader.
#include <cstdint>
#include <future>
#include <iterator>
#include <optional>
#include <vector>

#include "accelera/core/device.hpp"
#include "accelera/core/export.hpp"
#include "accelera/core/tensor.hpp"

namespace accelera::nn {

struct DataLoaderOptions {
  std::int64_t batch_size = 32;
  bool shuffle = true;              // a new Philox permutation every epoch (the same on every device)
  std::uint64_t seed = 0;
  std::optional<Device> device;     // where batches go; default: default_device()
  bool drop_last = false;           // drop a last batch shorter than batch_size
  bool prefetch = true;             // gather and upload the next batch on a worker thread
};

class ACC_API DataLoader {
 public:
  using Batch = std::vector<Tensor>;  // one tensor per array, in the order given

  // ValueError for no arrays, arrays of different lengths or without an axis, or batch_size < 1.
  explicit DataLoader(std::vector<Tensor> arrays, DataLoaderOptions options = {});

  std::int64_t size() const;  // batches per epoch
  const Device& device() const { return m_device; }

  // One pass over the data: for (const auto& batch : loader) { ... }. Each pass is a new epoch.
  class ACC_API Iterator {
   public:
    using value_type = Batch;
    using difference_type = std::ptrdiff_t;
    Iterator(Iterator&&) noexcept = default;
    Iterator& operator=(Iterator&&) noexcept = default;
    const Batch& operator*() const { return m_current; }
    const Batch* operator->() const { return &m_current; }
    Iterator& operator++();
    bool operator==(std::default_sentinel_t) const { return m_index >= m_count; }

   private:
    friend class DataLoader;
    Iterator(const DataLoader* loader, Tensor order, std::int64_t count);
    void load(std::int64_t index);

    const DataLoader* m_loader = nullptr;
    Tensor m_order;
    std::int64_t m_index = 0, m_count = 0;
    Batch m_current;
    std::future<Batch> m_next;
  };
  Iterator begin();
  std::default_sentinel_t end() const { return {}; }

 private:
  Batch gather(const Tensor& order, std::int64_t batch) const;

  std::vector<Tensor> m_arrays;
  DataLoaderOptions m_options;
  Device m_device;
  std::int64_t m_rows = 0;
  std::uint64_t m_offset = 0;  // Philox counter of the next epoch's permutation
};

}  // namespace accelera::nn
