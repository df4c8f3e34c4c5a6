// DataLoader (include/accelera/nn/data.hpp).
#include "accelera/nn/data.hpp"

#include "accelera/core/error.hpp"
#include "accelera/core/registry.hpp"
#include "accelera/ops.hpp"
#include "accelera/random.hpp"

namespace accelera::nn {

DataLoader::DataLoader(std::vector<Tensor> arrays, DataLoaderOptions options)
    : m_arrays(std::move(arrays)), m_options(std::move(options)),
      m_device(m_options.device ? *m_options.device : default_device()) {
  if (m_arrays.empty()) throw ValueError("DataLoader needs at least one array");
  for (std::size_t i = 0; i < m_arrays.size(); ++i) {
    const Tensor& a = m_arrays[i];
    if (!a.defined() || a.ndim() < 1)
      throw ValueError(fmt::format("DataLoader array {} needs an axis of rows, got {}", i,
                                   a.defined() ? a.shape().str() : std::string("an undefined tensor")));
    if (a.dim(0) != m_arrays[0].dim(0))
      throw ShapeError(fmt::format("DataLoader arrays differ in length: array 0 has {} rows, array {} has {}",
                                   m_arrays[0].dim(0), i, a.dim(0)));
  }
  if (m_options.batch_size < 1)
    throw ValueError(fmt::format("batch_size must be positive, got {}", m_options.batch_size));
  m_rows = m_arrays[0].dim(0);
}

std::int64_t DataLoader::size() const {
  const std::int64_t b = m_options.batch_size;
  return m_options.drop_last ? m_rows / b : (m_rows + b - 1) / b;
}

DataLoader::Batch DataLoader::gather(const Tensor& order, std::int64_t batch) const {
  const std::int64_t start = batch * m_options.batch_size, stop = std::min(m_rows, start + m_options.batch_size);
  Batch out;
  for (const Tensor& a : m_arrays) {
    if (order.defined()) {
      const Tensor rows = order.slice(0, start, stop).to(a.device());
      out.push_back(take(a, rows, 0).to(m_device));
    } else {
      out.push_back(a.slice(0, start, stop).to(m_device).contiguous());
    }
  }
  return out;
}

DataLoader::Iterator DataLoader::begin() {
  Tensor order;
  if (m_options.shuffle) {
    order = random_permutation(m_rows, Device::cpu(), m_options.seed, m_offset);
    m_offset += random_blocks(m_rows);
  }
  return Iterator(this, std::move(order), size());
}

DataLoader::Iterator::Iterator(const DataLoader* loader, Tensor order, std::int64_t count)
    : m_loader(loader), m_order(std::move(order)), m_count(count) {
  if (m_count > 0) {
    m_current = m_loader->gather(m_order, 0);
    load(1);
  }
}

void DataLoader::Iterator::load(std::int64_t index) {
  if (index >= m_count || !m_loader->m_options.prefetch) return;
  m_next = std::async(std::launch::async, [loader = m_loader, order = m_order, index] { return loader->gather(order, index); });
}

DataLoader::Iterator& DataLoader::Iterator::operator++() {
  ++m_index;
  if (m_index >= m_count) {
    m_current.clear();
    return *this;
  }
  m_current = m_next.valid() ? m_next.get() : m_loader->gather(m_order, m_index);
  load(m_index + 1);
  return *this;
}

}  // namespace accelera::nn
