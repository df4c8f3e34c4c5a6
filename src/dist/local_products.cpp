// Where a rank computes and how it adds products into its local C: dist/local_products.hpp.
#include "dist/local_products.hpp"

#include <utility>
#include <vector>

#include "accelera/core/allocator.hpp"
#include "accelera/core/registry.hpp"
#include "accelera/engine.hpp"
#include "accelera/ops.hpp"
#include "dist/mpi_check.hpp"
#include "engine/blocks.hpp"

namespace accelera::dist {

Tensor column_major(void* data, std::int64_t rows, std::int64_t cols, std::int64_t ld, DType dtype) {
  return Tensor::from_blob(data, Shape({rows, cols}), {1, ld}, dtype, Device::cpu(), [] {});
}

namespace {

// This process's rank among the grid's processes on its node (shared-memory domain), and how many there are.
// Collective over the grid.
std::pair<int, int> node_place(const ProcessGrid& g) {
  MPI_Comm node = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(g.comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  const auto owner = owned_comm(node);
  int rank = 0, size = 0;
  check_mpi(MPI_Comm_rank(node, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(node, &size), "MPI_Comm_size");
  return {rank, size};
}

}  // namespace

Device rank_device(const ProcessGrid& g) {
  // Collective over the grid whatever each node holds, so that no rank is left waiting.
  const int local = node_place(g).first;
  std::vector<Device> gpus;
  for (const DeviceInfo& info : devices()) {
    if (info.is_accelerator) gpus.push_back(info.device);
  }
  if (gpus.empty()) return Device::cpu();
  return gpus[static_cast<std::size_t>(local) % gpus.size()];
}

bool spans_nodes(const ProcessGrid& g) {
  int grid_size = 0;
  check_mpi(MPI_Comm_size(g.comm, &grid_size), "MPI_Comm_size");
  // No node holds every process exactly when some process is elsewhere: every rank sees the same answer.
  return node_place(g).second < grid_size;
}

bool overlap_pays(const ProcessGrid& g, const Device& device) {
  int pays = spans_nodes(g) || !device.is_cpu() ? 1 : 0;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &pays, 1, MPI_INT, MPI_MAX, g.comm), "MPI_Allreduce");
  return pays != 0;
}

LocalProducts::LocalProducts(Tensor c, const Device& device, std::int64_t panel_bytes, bool read_c, GemmStats& stats)
    : m_c(std::move(c)), m_device(device) {
  stats.device = device.str();
  const Tensor ct = m_c.T();
  m_work = ct.is_contiguous() ? ct : ct.contiguous();
  if (device.is_cpu()) return;
  const MemoryStats mem = allocator_for(device).stats();
  const std::int64_t room = mem.budget_bytes - mem.current_bytes;
  if (static_cast<std::int64_t>(m_work.nbytes()) + 2 * panel_bytes <= room) {
    m_resident = read_c ? m_work.to(device) : Tensor::empty(m_work.shape(), m_work.dtype(), device);
    stats.c_resident = true;
  }
}

void LocalProducts::add(const Tensor& at, const Tensor& bt, bool accumulate) {
  if (m_device.is_cpu()) {
    matmul_into(bt, at, m_work, accumulate);
  } else if (m_resident.defined()) {
    matmul_into(bt.to(m_device), at.to(m_device), m_resident, accumulate);
  } else {
    EngineOptions o;
    o.device = m_device;
    o.enable_progress = false;
    const Tensor product = MatrixEngine(o).matmul(bt, at);
    copy_into(accumulate ? accelera::add(m_work, product) : product, m_work);
  }
}

void LocalProducts::finish() {
  if (m_resident.defined()) engine::copy_across_devices(m_resident, m_work);
  const Tensor ct = m_c.T();
  if (!m_work.shares_storage_with(ct)) copy_into(m_work, ct);
}

}  // namespace accelera::dist
