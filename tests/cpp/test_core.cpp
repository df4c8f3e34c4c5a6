// Core value types: Device, DType, Shape, the backend registry and Config.
#include <cstdlib>
#include <map>
#include <optional>
#include <string>

#include "helpers.hpp"

using namespace accelera;

// ---- Device -----------------------------------------------------------------------------------------

TEST(Device, ParsesGoodStrings) {
  struct Case {
    const char* text;
    DeviceKind kind;
    int index;
  };
  for (const Case& c : {Case{"cpu", DeviceKind::cpu, 0}, Case{"cpu:0", DeviceKind::cpu, 0},
                        Case{"cuda", DeviceKind::cuda, 0}, Case{"cuda:1", DeviceKind::cuda, 1},
                        Case{"cuda:12", DeviceKind::cuda, 12}, Case{"opencl", DeviceKind::opencl, 0},
                        Case{"opencl:0", DeviceKind::opencl, 0}, Case{"opencl:3", DeviceKind::opencl, 3}}) {
    SCOPED_TRACE(c.text);
    const Device d = Device::parse(c.text);
    EXPECT_EQ(d.kind, c.kind);
    EXPECT_EQ(d.index, c.index);
  }
  EXPECT_EQ(Device::parse("cuda:1").str(), "cuda:1");
  EXPECT_EQ(Device::parse("opencl:0").str(), "opencl:0");
  EXPECT_EQ(Device::parse("cpu").str(), "cpu");
  EXPECT_EQ(Device::parse("cpu"), Device::cpu());
  EXPECT_TRUE(Device::cpu().is_cpu());
  EXPECT_FALSE(Device::parse("cuda").is_cpu());
}

TEST(Device, RejectsBadStrings) {
  for (const char* bad : {"", "gpu", "cuda:", "cuda:-1", "cuda:x", "CUDA", "cpu:0:1", ":0", "cuda:1x", " cpu",
                          "cpu ", "cuda: 1", "cuda:+1", "cuda:99999999999"}) {
    SCOPED_TRACE(std::string("'") + bad + "'");
    try {
      Device::parse(bad);
      ADD_FAILURE() << "no exception";
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos) << e.what();
    }
  }
}

// ---- DType ------------------------------------------------------------------------------------------

TEST(DType, NamesRoundTrip) {
  const std::pair<DType, const char*> expected[] = {
      {DType::f32, "float32"}, {DType::f64, "float64"}, {DType::f16, "float16"}, {DType::bf16, "bfloat16"},
      {DType::i8, "int8"},     {DType::i16, "int16"},   {DType::i32, "int32"},   {DType::i64, "int64"},
      {DType::u8, "uint8"},    {DType::u16, "uint16"},  {DType::u32, "uint32"},  {DType::u64, "uint64"},
      {DType::boolean, "bool"}};
  for (auto [dt, name] : expected) {
    EXPECT_EQ(dtype_name(dt), name);
    EXPECT_EQ(dtype_from_name(dtype_name(dt)), dt);
  }
  EXPECT_EQ(dtype_from_name("f32"), DType::f32);
  EXPECT_EQ(dtype_from_name("f64"), DType::f64);
  EXPECT_EQ(dtype_from_name("f16"), DType::f16);
  EXPECT_EQ(dtype_from_name("bf16"), DType::bf16);
  EXPECT_EQ(dtype_from_name("i32"), DType::i32);
  EXPECT_EQ(dtype_from_name("i64"), DType::i64);
  EXPECT_EQ(dtype_from_name("u8"), DType::u8);
  EXPECT_EQ(dtype_from_name("i16"), DType::i16);
  const std::size_t sizes[] = {4, 8, 2, 2, 1, 2, 4, 8, 1, 2, 4, 8, 1, 8, 16};
  static_assert(std::size(sizes) == std::size(all_dtypes));
  for (std::size_t i = 0; i < std::size(sizes); ++i) EXPECT_EQ(dtype_size(all_dtypes[i]), sizes[i]);
}

TEST(DType, BadNamesThrowDTypeError) {
  for (const char* bad : {"", "float", "Float32", "FLOAT32", "int128", "uint", "float32 ", "f8", "boolean", "i128", "complex", "complex32"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(dtype_from_name(bad), DTypeError);
  }
}

TEST(DType, PromotionTableMatchesNumPy) {
  // Rows and columns in all_dtypes order; the table is numpy.promote_types's (NumPy 2), with bfloat16
  // (which NumPy lacks) promoting as float16 does except that it stays itself beside int8, uint8 and bool,
  // and with the complex dtypes as float16.
  using enum DType;
  constexpr std::size_t n = std::size(all_dtypes);
  const DType table[n][n] = {
      /* f32  */ {f32, f64, f32, f32, f32, f32, f64, f64, f32, f32, f64, f64, f32, c64, c128},
      /* f64  */ {f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, c128, c128},
      /* f16  */ {f32, f64, f16, f32, f16, f32, f64, f64, f16, f32, f64, f64, f16, c64, c128},
      /* bf16 */ {f32, f64, f32, bf16, bf16, f32, f64, f64, bf16, f32, f64, f64, bf16, c64, c128},
      /* i8   */ {f32, f64, f16, bf16, i8, i16, i32, i64, i16, i32, i64, f64, i8, c64, c128},
      /* i16  */ {f32, f64, f32, f32, i16, i16, i32, i64, i16, i32, i64, f64, i16, c64, c128},
      /* i32  */ {f64, f64, f64, f64, i32, i32, i32, i64, i32, i32, i64, f64, i32, c128, c128},
      /* i64  */ {f64, f64, f64, f64, i64, i64, i64, i64, i64, i64, i64, f64, i64, c128, c128},
      /* u8   */ {f32, f64, f16, bf16, i16, i16, i32, i64, u8, u16, u32, u64, u8, c64, c128},
      /* u16  */ {f32, f64, f32, f32, i32, i32, i32, i64, u16, u16, u32, u64, u16, c64, c128},
      /* u32  */ {f64, f64, f64, f64, i64, i64, i64, i64, u32, u32, u32, u64, u32, c128, c128},
      /* u64  */ {f64, f64, f64, f64, f64, f64, f64, f64, u64, u64, u64, u64, u64, c128, c128},
      /* bool */ {f32, f64, f16, bf16, i8, i16, i32, i64, u8, u16, u32, u64, boolean, c64, c128},
      /* c64  */ {c64, c128, c64, c64, c64, c64, c128, c128, c64, c64, c128, c128, c64, c64, c128},
      /* c128 */ {c128, c128, c128, c128, c128, c128, c128, c128, c128, c128, c128, c128, c128, c128, c128},
  };
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      EXPECT_EQ(promote_types(all_dtypes[i], all_dtypes[j]), table[i][j])
          << dtype_name(all_dtypes[i]) << " with " << dtype_name(all_dtypes[j]);
    }
  }
  EXPECT_TRUE(is_unsigned(DType::u8));
  EXPECT_FALSE(is_unsigned(DType::i8));
  EXPECT_TRUE(is_integral(DType::u64));
  EXPECT_EQ(float_result_dtype(DType::i8), DType::f16);
  EXPECT_EQ(float_result_dtype(DType::u16), DType::f32);
  EXPECT_EQ(float_result_dtype(DType::u32), DType::f64);
  EXPECT_EQ(float_result_dtype(DType::bf16), DType::bf16);
  EXPECT_TRUE(is_floating(DType::bf16));
  EXPECT_FALSE(is_floating(DType::i32));
  EXPECT_TRUE(is_integral(DType::i64));
  EXPECT_FALSE(is_integral(DType::boolean));
}

// ---- Shape ------------------------------------------------------------------------------------------

TEST(Shape, NegativeExtentIsValueError) {
  EXPECT_THROW((Shape{3, -1}), ValueError);
  EXPECT_THROW(Shape(std::vector<std::int64_t>{-2}), ValueError);
  const std::int64_t dims[] = {2, -5};
  EXPECT_THROW(Shape(std::span<const std::int64_t>(dims)), ValueError);
}

TEST(Shape, NumelAndOverflow) {
  EXPECT_EQ((Shape{}).numel(), 1);
  EXPECT_EQ((Shape{3, 0, 5}).numel(), 0);
  EXPECT_EQ((Shape{7, 13, 31}).numel(), 7 * 13 * 31);
  EXPECT_EQ((Shape{1LL << 31, 1LL << 31}).numel(), 1LL << 62);
  EXPECT_THROW((Shape{1LL << 32, 1LL << 32}).numel(), ValueError);
  EXPECT_THROW((Shape{3, 1LL << 62}).numel(), ValueError);
  EXPECT_THROW(checked_mul(std::numeric_limits<std::int64_t>::max(), 2), ValueError);
  EXPECT_THROW(checked_mul(-1, std::numeric_limits<std::int64_t>::min()), ValueError);
  EXPECT_EQ(checked_mul(1LL << 40, 1LL << 20), 1LL << 60);
}

TEST(Shape, ContiguousStridesAndStr) {
  EXPECT_EQ((Shape{2, 3, 4}).contiguous_strides(), (Strides{12, 4, 1}));
  EXPECT_EQ((Shape{}).contiguous_strides(), Strides{});
  EXPECT_EQ((Shape{3}).str(), "(3,)");
  EXPECT_EQ((Shape{2, 3}).str(), "(2, 3)");
  EXPECT_EQ((Shape{}).str(), "()");
}

TEST(Shape, NormalizeAxis) {
  EXPECT_EQ(normalize_axis(-1, 3), 2);
  EXPECT_EQ(normalize_axis(-3, 3), 0);
  EXPECT_EQ(normalize_axis(2, 3), 2);
  EXPECT_THROW(normalize_axis(3, 3), ValueError);
  EXPECT_THROW(normalize_axis(-4, 3), ValueError);
  EXPECT_THROW(normalize_axis(0, 0), ValueError);
}

TEST(Shape, BroadcastShapes) {
  EXPECT_EQ(broadcast_shapes(Shape{}, Shape{2, 3}), (Shape{2, 3}));
  EXPECT_EQ(broadcast_shapes(Shape{7, 1}, Shape{1, 13}), (Shape{7, 13}));
  EXPECT_EQ(broadcast_shapes(Shape{2, 1, 5}, Shape{3, 1}), (Shape{2, 3, 5}));
  EXPECT_EQ(broadcast_shapes(Shape{0}, Shape{1}), (Shape{0}));
  EXPECT_EQ(broadcast_shapes(Shape{1, 0}, Shape{4, 1}), (Shape{4, 0}));
  for (auto [a, b] : {std::pair{Shape{3}, Shape{4}}, std::pair{Shape{2, 3}, Shape{3, 2}},
                      std::pair{Shape{0}, Shape{2}}, std::pair{Shape{5, 2, 3}, Shape{4, 3}}}) {
    EXPECT_THROW(broadcast_shapes(a, b), ShapeError) << a.str() << " " << b.str();
    EXPECT_THROW(broadcast_shapes(b, a), ShapeError) << b.str() << " " << a.str();
  }
  try {
    broadcast_shapes(Shape{2, 3}, Shape{4});
    ADD_FAILURE() << "no exception";
  } catch (const ShapeError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("(2, 3)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("(4,)"), std::string::npos) << msg;
  }
}

// ---- backend registry -------------------------------------------------------------------------------

TEST(Backend, AbsentKindsSayWhy) {
  const auto compiled = compiled_backends();
  ASSERT_FALSE(compiled.empty());
  EXPECT_EQ(compiled.front(), "cpu");
  const std::pair<DeviceKind, const char*> kinds[] = {{DeviceKind::cuda, "CUDA"}, {DeviceKind::opencl, "OpenCL"}};
  for (const auto& [kind, name] : kinds) {
    const bool built = std::ranges::find(compiled, std::string(device_kind_name(kind))) != compiled.end();
    const bool present = std::ranges::any_of(devices(), [&](const DeviceInfo& d) { return d.device.kind == kind; });
    if (present) continue;
    // Not built: says so. Built but no device answers (CUDA without a GPU or driver): says that, with the
    // runtime's reason.
    const std::string why = built ? std::string("no ") + name + " device found" : std::string("built without ") + name + " support";
    try {
      device_interface(Device{kind, 0});
      ADD_FAILURE() << "no exception for " << name;
    } catch (const DeviceError& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
    EXPECT_THROW(allocator_for(Device{kind, 0}), DeviceError);
    EXPECT_THROW(Tensor::empty(Shape{2}, DType::f32, Device{kind, 0}), DeviceError);
    EXPECT_THROW(zeros(Shape{2}).to(Device{kind, 0}), DeviceError);
  }
  // An index past the last device is an error whatever was built.
  EXPECT_THROW(device_interface(Device{DeviceKind::opencl, 1000}), DeviceError);
  EXPECT_THROW(device_interface(Device{DeviceKind::cuda, 1000}), DeviceError);
  // The default is a GPU or accelerator when one answers, else the CPU.
  bool accelerator = false;
  for (const auto& info : devices()) accelerator = accelerator || info.is_accelerator;
  if (!accelerator) EXPECT_EQ(default_device(), Device::cpu());
}

// The CPU kernels read the half formats through float32 (Note [Half formats on the cpu]); OpenCL has no
// half kernels, so the op layer widens the operands instead (kernel_dtype). Both give float32's result
// rounded once, matmul included.
TEST(Backend, HalfFormatsComputeInFloat32OnEveryDevice) {
  std::mt19937_64 rng(5);
  EXPECT_TRUE(device_interface(Device::cpu()).supports("exp", DType::f16));
  EXPECT_TRUE(device_interface(Device::cpu()).supports("sum", DType::bf16));
  for (const Device& device : acc_test::all_devices()) {
    for (DType dt : {DType::f16, DType::bf16}) {
      SCOPED_TRACE(device.str() + " " + std::string(dtype_name(dt)));
      const Tensor t = acc_test::random_tensor(Shape{4, 5}, dt, rng).to(device);
      const Tensor f = t.astype(DType::f32);
      const std::pair<Tensor, Tensor> cases[] = {{add(t, t), add(f, f)},
                                                 {exp(t), exp(f)},
                                                 {sum(t, Axes{{1}}), sum(f, Axes{{1}})},
                                                 {mean(t), mean(f)},
                                                 {max(t, Axes{{0}}), max(f, Axes{{0}})},
                                                 {matmul(t, t.T()), matmul(f, f.T())}};
      for (const auto& [got, want] : cases) {
        EXPECT_EQ(got.dtype(), dt);
        EXPECT_EQ(acc_test::values_of(got.to(Device::cpu())), acc_test::values_of(want.astype(dt).to(Device::cpu())));
      }
      EXPECT_EQ(argmax(t).to(Device::cpu()).data<std::int64_t>()[0],
                argmax(f).to(Device::cpu()).data<std::int64_t>()[0]);
      // matmul_into a strided half view: staged in float32, rounded once into the view.
      const Tensor out = zeros(Shape{4, 8}, dt, device).slice(1, 0, 8, 2);
      matmul_into(t, t.T(), out, false);
      EXPECT_EQ(acc_test::values_of(out.to(Device::cpu())),
                acc_test::values_of(matmul(f, f.T()).astype(dt).to(Device::cpu())));
    }
  }
  // Mixed with float32, NumPy promotion gives float32.
  EXPECT_EQ(add(ones(Shape{4, 4}, DType::f16), ones(Shape{4}, DType::f32)).dtype(), DType::f32);
}

TEST(Config, Tf32IsOffByDefaultAndReadFromTheEnvironment) {
  ::setenv("ACCELERA_ALLOW_TF32", "1", 1);
  reload_config();
  EXPECT_TRUE(config().allow_tf32);
  ::setenv("ACCELERA_ALLOW_TF32", "sometimes", 1);
  EXPECT_THROW(reload_config(), ValueError);
  ::unsetenv("ACCELERA_ALLOW_TF32");
  reload_config();
  EXPECT_FALSE(config().allow_tf32);
  EXPECT_FALSE(allow_tf32());
  set_allow_tf32(true);
  EXPECT_TRUE(allow_tf32());
  set_allow_tf32(false);
  EXPECT_FALSE(allow_tf32());
}

TEST(Backend, CpuIndexOutOfRange) {
  const Device cpu1 = Device::parse("cpu:1");
  EXPECT_THROW(device_interface(cpu1), DeviceError);
  EXPECT_THROW(Tensor::empty(Shape{2}, DType::f32, cpu1), DeviceError);
  EXPECT_NO_THROW(device_interface(Device::cpu()));
}

// Device is a plain struct, so a negative index can reach backend_for; it is out of range.
TEST(Backend, NegativeIndexIsOutOfRange) {
  EXPECT_THROW(device_interface(Device{DeviceKind::cpu, -1}), DeviceError);
}

// The error for cpu:1 must name the device that was asked for.
TEST(Backend, CpuIndexErrorNamesTheDevice) {
  try {
    device_interface(Device{DeviceKind::cpu, 1});
    ADD_FAILURE() << "no exception";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("cpu:1"), std::string::npos) << e.what();
  }
}

TEST(Backend, DevicesListsCpuFirst) {
  const auto list = devices();
  ASSERT_FALSE(list.empty());
  EXPECT_EQ(list.front().device, Device::cpu());
  EXPECT_GT(list.front().total_memory, 0);
  EXPECT_GE(list.front().free_memory, 0);
  EXPECT_LE(list.front().free_memory, list.front().total_memory);
  EXPECT_GE(list.front().compute_units, 1);
  EXPECT_FALSE(list.front().name.empty());
  const auto stats = memory_stats(Device::cpu());
  EXPECT_GT(stats.budget_bytes, 0);
  EXPECT_LE(stats.budget_bytes, list.front().total_memory);
}

TEST(Backend, OpTableListsEveryOpOnTheCpu) {
  std::vector<std::string> cpu_ops;
  for (const auto& entry : op_table()) {
    if (entry.kind == DeviceKind::cpu) cpu_ops.push_back(entry.op);
    EXPECT_FALSE(entry.dtypes.empty()) << entry.op;
  }
  for (const char* op : {"copy", "fill", "matmul", "add", "divide", "negative", "sigmoid", "sum", "max", "gelu",
                         "layer_norm_backward", "log_softmax", "attention_backward"}) {
    EXPECT_NE(std::find(cpu_ops.begin(), cpu_ops.end(), op), cpu_ops.end()) << op;
  }
}

// ---- Config -----------------------------------------------------------------------------------------

namespace {
// Sets environment variables for one test and restores them (and the config) afterwards.
class EnvGuard {
 public:
  void set(const char* name, const char* value) {
    if (!saved_.count(name)) {
      const char* old = std::getenv(name);
      saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
    }
    ::setenv(name, value, 1);
  }
  ~EnvGuard() {
    for (const auto& [name, old] : saved_) {
      if (old) {
        ::setenv(name.c_str(), old->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
    reload_config();
  }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};
}  // namespace

TEST(Config, BadMemoryThresholdIsValueError) {
  EnvGuard env;
  for (const char* bad : {"abc", "1.5", "0", "-0.5", "nan", "0.5x", " 0.5", "inf"}) {
    SCOPED_TRACE(bad);
    env.set("ACCELERA_MEMORY_THRESHOLD", bad);
    try {
      reload_config();
      ADD_FAILURE() << "no exception";
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find("ACCELERA_MEMORY_THRESHOLD"), std::string::npos) << e.what();
    }
  }
  env.set("ACCELERA_MEMORY_THRESHOLD", "0.25");
  ASSERT_NO_THROW(reload_config());
  EXPECT_DOUBLE_EQ(config().memory_threshold, 0.25);
  env.set("ACCELERA_MEMORY_THRESHOLD", "1");
  ASSERT_NO_THROW(reload_config());
  EXPECT_DOUBLE_EQ(config().memory_threshold, 1.0);
}

TEST(Config, OtherBadVariablesAreValueErrors) {
  EnvGuard env;
  const std::pair<const char*, const char*> bad[] = {
      {"ACCELERA_NUM_THREADS", "0"},         {"ACCELERA_NUM_THREADS", "two"},
      {"ACCELERA_MIN_CHUNK_SIZE", "0"},      {"ACCELERA_ENABLE_PREFETCH", "maybe"},
      {"ACCELERA_MAX_CHUNK_SIZE", "-3"},
  };
  for (auto [name, value] : bad) {
    SCOPED_TRACE(std::string(name) + "=" + value);
    env.set(name, value);
    EXPECT_THROW(reload_config(), ValueError);
    ::unsetenv(name);
  }
  env.set("ACCELERA_ENABLE_PREFETCH", "OFF");
  env.set("ACCELERA_NUM_THREADS", "3");
  ASSERT_NO_THROW(reload_config());
  EXPECT_FALSE(config().enable_prefetch);
  EXPECT_EQ(config().num_threads, 3);
}

TEST(Config, DeviceVariableChoosesTheDefaultDevice) {
  EnvGuard env;
  for (const char* bad : {"gpu", "cuda:x", "opencl:-1", "CPU", ""}) {
    if (*bad == '\0') continue;  // empty means unset, as for every variable
    SCOPED_TRACE(bad);
    env.set("ACCELERA_DEVICE", bad);
    try {
      reload_config();
      ADD_FAILURE() << "no exception";
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find("ACCELERA_DEVICE"), std::string::npos) << e.what();
    }
  }
  env.set("ACCELERA_DEVICE", "cpu");
  ASSERT_NO_THROW(reload_config());
  EXPECT_EQ(default_device(), Device::cpu());
  env.set("ACCELERA_DEVICE", "auto");
  ASSERT_NO_THROW(reload_config());
  EXPECT_FALSE(config().device.has_value());
  for (const auto& info : devices()) {
    env.set("ACCELERA_DEVICE", info.device.str().c_str());
    ASSERT_NO_THROW(reload_config());
    EXPECT_EQ(default_device(), info.device);
  }
  // A device that does not answer is an error naming the variable, never a quiet switch to another.
  env.set("ACCELERA_DEVICE", "opencl:1000");
  ASSERT_NO_THROW(reload_config());
  try {
    default_device();
    ADD_FAILURE() << "no exception";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("ACCELERA_DEVICE=opencl:1000"), std::string::npos) << e.what();
  }
}

// config() promises a ValueError naming the variable for any malformed value, the log level included.
TEST(Config, BadLogLevelIsValueError) {
  EnvGuard env;
  env.set("ACCELERA_LOG_LEVEL", "Warning");  // case-insensitive alias
  ASSERT_NO_THROW(reload_config());
  EXPECT_EQ(config().log_level, "warn");
  env.set("ACCELERA_LOG_LEVEL", "loud");
  try {
    reload_config();
    ADD_FAILURE() << "no exception for ACCELERA_LOG_LEVEL=loud";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("ACCELERA_LOG_LEVEL"), std::string::npos) << e.what();
  }
}

// Config documents ACCELERA_MAX_CHUNK_SIZE=0 as "no limit" (the default), so setting it to 0 is valid.
TEST(Config, MaxChunkSizeZeroMeansNoLimit) {
  EnvGuard env;
  env.set("ACCELERA_MAX_CHUNK_SIZE", "0");
  EXPECT_NO_THROW(reload_config());
  EXPECT_EQ(config().max_chunk_size, 0);
}

TEST(Config, SetLogLevel) {
  EXPECT_THROW(set_log_level("verbose"), ValueError);
  EXPECT_THROW(set_log_level(""), ValueError);
  EXPECT_NO_THROW(set_log_level("off"));
  EXPECT_NO_THROW(set_log_level("debug"));
  EXPECT_NO_THROW(set_log_level("warn"));
}
