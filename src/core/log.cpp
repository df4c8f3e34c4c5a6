#include "core/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

#include "accelera/core/config.hpp"
#include "accelera/core/error.hpp"

namespace accelera {

namespace {
spdlog::level::level_enum parse_level(const std::string& level) {
  const auto parsed = spdlog::level::from_str(level);
  // from_str maps unknown names to "off"; only accept "off" when it was asked for.
  ACC_CHECK(parsed != spdlog::level::off || level == "off", ValueError,
            "unknown log level '{}': expected trace, debug, info, warn, error, critical or off", level);
  return parsed;
}
}  // namespace

namespace detail {
spdlog::logger& logger() {
  static const std::shared_ptr<spdlog::logger> instance = [] {
    auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    auto l = std::make_shared<spdlog::logger>("accelera", sink);
    l->set_pattern("[accelera %l] %v");
    l->set_level(parse_level(config().log_level));
    return l;
  }();
  return *instance;
}
}  // namespace detail

void set_log_level(const std::string& level) { detail::logger().set_level(parse_level(level)); }

}  // namespace accelera
