// The op test table's runner: every row on every device, in every dtype the kernel table registers for
// that device, against float64 references; and the coverage check and matrix (Note [Op test table]).
#include <map>
#include <set>

#include "core/kernel_table.hpp"
#include "nn_helpers.hpp"
#include "op_table.hpp"

namespace acc_test::op_table {
namespace {

struct Param {
  std::size_t row = 0;
  Device device;
};

std::string param_name(const ::testing::TestParamInfo<Param>& info) {
  return std::string(accelera::device_kind_name(info.param.device.kind)) + std::to_string(info.param.device.index) +
         "_" + rows()[info.param.row].op;
}

std::vector<Param> params() {
  std::vector<Param> out;
  for (const Device& device : with_cuda_placeholder(all_devices())) {
    for (std::size_t r = 0; r < rows().size(); ++r) out.push_back({r, device});
  }
  return out;
}

// Whether any device kind registers `op` in `dtype`: the dtypes worth asking a device that lacks them for.
bool registered_anywhere(const std::string& op, DType dtype) {
  for (const auto& entry : accelera::op_table()) {
    if (entry.op == op && std::find(entry.dtypes.begin(), entry.dtypes.end(), dtype) != entry.dtypes.end()) return true;
  }
  return false;
}

std::vector<Tensor> on_device(const std::vector<Input>& inputs, const Device& device) {
  std::vector<Tensor> out;
  for (const Input& in : inputs) out.push_back(in.on(device));
  return out;
}

class OpTableTest : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    if (const std::string why = device_absence(GetParam().device); !why.empty()) GTEST_SKIP() << why;
  }
};

TEST_P(OpTableTest, MatchesFloat64InEveryRegisteredDtype) {
  const Row& row = rows()[GetParam().row];
  const Device device = GetParam().device;
  const auto registered = accelera::detail::registered_dtypes(row.op, device.kind);
  const auto& interface = accelera::device_interface(device);
  std::mt19937_64 rng(1234);
  int tested = 0;
  for (DType dt : accelera::all_dtypes) {
    const bool runs = registered && registered->contains(dt) && interface.device_computes(device.index, dt);
    if (!runs && !registered_anywhere(row.op, dt)) continue;  // the op is not defined in dt at all
    SCOPED_TRACE(std::string(accelera::dtype_name(dt)));
    const std::vector<Case> cases = row.cases(dt, rng);
    ASSERT_FALSE(cases.empty()) << "the row has no cases";
    // float16/bfloat16 where the device registers float32 but not them: the op either computes in float32
    // and rounds once (the element-wise functions, reductions and scans; then every case must match the
    // reference within the half format's tolerance), or refuses as below.
    // Likewise integer sums and products where the device's kernel reads int64 only: the op accumulates
    // in int64 (Note [Integer accumulation] in ops/common.hpp).
    const bool accumulates = row.op == "sum" || row.op == "prod";
    const bool may_widen =
        ((dt == DType::f16 || dt == DType::bf16) && registered && registered->contains(DType::f32) &&
         interface.device_computes(device.index, DType::f32)) ||
        (accumulates && accelera::is_integral(dt) && registered && registered->contains(DType::i64));
    bool widened = false;
    if (!runs) {
      // Computed elsewhere, not here: a NotSupportedError that names the op, the device and the dtype.
      const Case& c = cases.front();
      try {
        c.run(on_device(c.inputs, device), device);
        widened = may_widen;  // then checked like a registered dtype below
        if (!widened) {
          ADD_FAILURE() << row.op << " ran in " << accelera::dtype_name(dt) << " on " << device.str()
                        << " though no kernel is registered for it";
        }
      } catch (const accelera::NotSupportedError& e) {
        // A backward row's case runs its forward first, which is refused first: it names the forward op.
        const std::string msg = e.what();
        const std::string op = row.op.ends_with("_backward") ? row.op.substr(0, row.op.size() - 9) : row.op;
        for (const std::string part : {op, device.str(), std::string(accelera::dtype_name(dt))}) {
          EXPECT_NE(msg.find(part), std::string::npos) << part << " missing from: " << msg;
        }
      }
      if (!widened) continue;
    }
    for (const Case& c : cases) {
      SCOPED_TRACE(c.label);
      std::vector<std::int64_t> sizes;
      for (const Ref& r : c.expected) {
        for (std::int64_t item : {2, 4, 8}) sizes.push_back(r.shape.numel() * item);
      }
      const std::vector<Tensor> inputs = on_device(c.inputs, device);
      nn::poison_outputs(device, {});
      for (std::int64_t bytes : sizes) nn::poison_outputs(device, {bytes});
      const std::vector<Tensor> results = c.run(inputs, device);
      ASSERT_EQ(results.size(), c.expected.size());
      for (std::size_t i = 0; i < results.size(); ++i) {
        EXPECT_TRUE(matches(results[i].to(Device::cpu()), c.expected[i], c.tol)) << "result " << i;
      }
      ++tested;
    }
  }
  if (registered) EXPECT_GT(tested, 0) << row.op << " is registered on " << device.str() << " but nothing ran";
}

INSTANTIATE_TEST_SUITE_P(OpTable, OpTableTest, ::testing::ValuesIn(params()), param_name);

std::string short_name(DType dt) {
  switch (dt) {
    case DType::f32: return "f32";
    case DType::f64: return "f64";
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
    case DType::i32: return "i32";
    case DType::i64: return "i64";
    case DType::boolean: return "bool";
  }
  return "?";
}

// Every registered (op, kind) has a row and every row names a registered op; prints which dtypes the
// table runs where, and which kinds are present on this machine.
TEST(OpTableCoverage, EveryRegisteredKernelHasARow) {
  std::set<std::string> row_ops;
  for (const Row& row : rows()) {
    EXPECT_TRUE(row_ops.insert(row.op).second) << "two rows for " << row.op;
  }
  std::map<std::string, std::map<accelera::DeviceKind, std::vector<DType>>> matrix;
  for (const auto& entry : accelera::op_table()) {
    if (entry.op.rfind("kernel_table_test", 0) == 0) continue;  // test_kernel_table.cpp's own op
    matrix[entry.op][entry.kind] = entry.dtypes;
    EXPECT_TRUE(row_ops.count(entry.op)) << entry.op << " is registered for "
                                         << accelera::device_kind_name(entry.kind) << " but the op table has no row";
  }
  for (const std::string& op : row_ops) EXPECT_TRUE(matrix.count(op)) << "row " << op << " names no registered op";
  std::string table = "\nOp test table coverage (dtypes run per device kind; '-': no kernel; absent kinds skip):\n";
  table += fmt::format("{:<22} {:<28} {:<28} {:<28}\n", "op", "cpu", "opencl", "cuda");
  for (const auto& [op, kinds] : matrix) {
    std::string line = fmt::format("{:<22}", op);
    for (auto kind : {accelera::DeviceKind::cpu, accelera::DeviceKind::opencl, accelera::DeviceKind::cuda}) {
      std::string cell = "-";
      if (auto it = kinds.find(kind); it != kinds.end()) {
        cell.clear();
        for (DType dt : it->second) cell += (cell.empty() ? "" : " ") + short_name(dt);
        if (!accelera::backend_absent_reason(kind).empty()) cell += " (absent)";
      }
      line += fmt::format(" {:<28}", cell);
    }
    table += line + "\n";
  }
  std::cout << table;
}

}  // namespace
}  // namespace acc_test::op_table
