#pragma once
// Internal logging: one spdlog logger named "accelera" writing to stderr, level from ACCELERA_LOG_LEVEL.
#include <spdlog/spdlog.h>

namespace accelera::detail {
spdlog::logger& logger();
}  // namespace accelera::detail

#define ACC_LOG_DEBUG(...) ::accelera::detail::logger().debug(__VA_ARGS__)
#define ACC_LOG_INFO(...) ::accelera::detail::logger().info(__VA_ARGS__)
#define ACC_LOG_WARN(...) ::accelera::detail::logger().warn(__VA_ARGS__)
#define ACC_LOG_ERROR(...) ::accelera::detail::logger().error(__VA_ARGS__)
