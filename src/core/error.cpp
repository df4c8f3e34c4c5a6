#include "accelera/core/error.hpp"

namespace accelera::detail {

void throw_internal(const char* cond, const char* file, int line, const std::string& msg) {
  throw InternalError(fmt::format("internal error (a bug in Accelera): {} failed at {}:{}: {}", cond, file,
                                  line, msg));
}

}  // namespace accelera::detail
