#include "accelera/core/config.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <atomic>
#include <mutex>
#include <string_view>

#include "accelera/core/error.hpp"

namespace accelera {

namespace {

std::optional<std::string> env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

template <typename T>
T parse_number(const char* name, const std::string& text) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  ACC_CHECK(ec == std::errc() && end == text.data() + text.size(), ValueError,
            "environment variable {}='{}' is not a number", name, text);
  return value;
}

bool parse_bool(const char* name, std::string text) {
  std::ranges::transform(text, text.begin(), [](unsigned char c) { return std::tolower(c); });
  if (text == "1" || text == "true" || text == "yes" || text == "on") return true;
  if (text == "0" || text == "false" || text == "no" || text == "off") return false;
  throw ValueError(fmt::format("environment variable {}='{}' is not a boolean (true/false/1/0)", name, text));
}

Config read_config() {
  Config c;
  if (auto v = env("ACCELERA_MEMORY_THRESHOLD")) {
    c.memory_threshold = parse_number<double>("ACCELERA_MEMORY_THRESHOLD", *v);
    ACC_CHECK(c.memory_threshold > 0.0 && c.memory_threshold <= 1.0, ValueError,
              "ACCELERA_MEMORY_THRESHOLD must be in (0, 1], got {}", *v);
  }
  if (auto v = env("ACCELERA_LOG_LEVEL")) {
    c.log_level = *v;
    std::ranges::transform(c.log_level, c.log_level.begin(), [](unsigned char ch) { return std::tolower(ch); });
    if (c.log_level == "warning") c.log_level = "warn";
    static constexpr std::string_view levels[] = {"trace", "debug", "info", "warn", "error", "critical", "off"};
    ACC_CHECK(std::ranges::find(levels, c.log_level) != std::end(levels), ValueError,
              "ACCELERA_LOG_LEVEL='{}' is not one of trace, debug, info, warn, error, critical, off", *v);
  }
  if (auto v = env("ACCELERA_MIN_CHUNK_SIZE")) {
    c.min_chunk_size = parse_number<std::int64_t>("ACCELERA_MIN_CHUNK_SIZE", *v);
    ACC_CHECK(c.min_chunk_size >= 1, ValueError, "ACCELERA_MIN_CHUNK_SIZE must be >= 1, got {}", *v);
  }
  if (auto v = env("ACCELERA_MAX_CHUNK_SIZE")) {
    c.max_chunk_size = parse_number<std::int64_t>("ACCELERA_MAX_CHUNK_SIZE", *v);
    ACC_CHECK(c.max_chunk_size == 0 || c.max_chunk_size >= c.min_chunk_size, ValueError,
              "ACCELERA_MAX_CHUNK_SIZE ({}) must be 0 (no limit) or >= ACCELERA_MIN_CHUNK_SIZE ({})", *v,
              c.min_chunk_size);
  }
  if (auto v = env("ACCELERA_ENABLE_PREFETCH")) c.enable_prefetch = parse_bool("ACCELERA_ENABLE_PREFETCH", *v);
  if (auto v = env("ACCELERA_NUM_THREADS")) {
    c.num_threads = parse_number<int>("ACCELERA_NUM_THREADS", *v);
    ACC_CHECK(*c.num_threads >= 1, ValueError, "ACCELERA_NUM_THREADS must be >= 1, got {}", *v);
  }
  if (auto v = env("ACCELERA_ALLOW_TF32")) c.allow_tf32 = parse_bool("ACCELERA_ALLOW_TF32", *v);
  if (auto v = env("ACCELERA_DEVICE"); v && *v != "auto") {
    try {
      c.device = Device::parse(*v);
    } catch (const ValueError&) {
      throw ValueError(fmt::format("environment variable ACCELERA_DEVICE='{}' is not a device: expected 'auto', "
                                   "'cpu', 'cuda', 'cuda:N', 'opencl' or 'opencl:N'",
                                   *v));
    }
  }
  if (auto v = env("ACCELERA_KERNEL_CACHE")) {
    c.kernel_cache_dir = *v;
  } else if (auto xdg = env("XDG_CACHE_HOME")) {
    c.kernel_cache_dir = *xdg + "/accelera/kernels";
  } else if (auto home = env("HOME")) {
    c.kernel_cache_dir = *home + "/.cache/accelera/kernels";
  } else {
    c.kernel_cache_dir = "/tmp/accelera-kernels";
  }
  return c;
}

std::mutex g_config_mutex;
std::optional<Config> g_config;
// -1: follow the environment; 0 or 1: set_allow_tf32 was called.
std::atomic<int> g_allow_tf32{-1};

}  // namespace

const Config& config() {
  std::lock_guard lock(g_config_mutex);
  if (!g_config) g_config = read_config();
  return *g_config;
}

void reload_config() {
  Config fresh = read_config();
  std::lock_guard lock(g_config_mutex);
  g_config = std::move(fresh);
}

}  // namespace accelera

namespace accelera {

bool allow_tf32() {
  const int set = g_allow_tf32.load(std::memory_order_relaxed);
  return set >= 0 ? set == 1 : config().allow_tf32;
}

void set_allow_tf32(bool allow) { g_allow_tf32.store(allow ? 1 : 0, std::memory_order_relaxed); }

}  // namespace accelera
