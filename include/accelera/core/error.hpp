#pragma once
// The error hierarchy. Every failure a user can cause is one of these types, with a message that says
// what was wrong and with which values. Python maps them onto ValueError, TypeError, RuntimeError,
// MemoryError and NotImplementedError subclasses.
#include <stdexcept>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include "accelera/core/export.hpp"

namespace accelera {

class ACC_API Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message), m_message(message) {}
  const char* what() const noexcept override { return m_message.c_str(); }
  // Adds what only a caller further up knows (what a failed call left behind) to the message.
  void add_note(std::string_view note) {
    m_message += "; ";
    m_message += note;
  }

 private:
  std::string m_message;
};
// A bad value: a device string, a size, an axis.
class ACC_API ValueError : public Error {
 public:
  using Error::Error;
};
// Shapes that do not fit together.
class ACC_API ShapeError : public ValueError {
 public:
  using ValueError::ValueError;
};
// A matrix a factorisation cannot take: singular (solve, inv), not positive definite (cholesky), or an
// iteration that did not converge (eigh, svd). Python sees accelera.linalg.LinAlgError, a ValueError.
class ACC_API LinAlgError : public ValueError {
 public:
  using ValueError::ValueError;
};
// A dtype that is not stored or not computed for this op.
class ACC_API DTypeError : public Error {
 public:
  using Error::Error;
};
// A device that is missing, not built in, or failed.
class ACC_API DeviceError : public Error {
 public:
  using Error::Error;
};
// A device (or the host) cannot satisfy an allocation within its budget.
class ACC_API OutOfMemoryError : public Error {
 public:
  using Error::Error;
};
// A valid request that this build or backend does not implement.
class ACC_API NotSupportedError : public Error {
 public:
  using Error::Error;
};
// A long call stopped because its progress callback asked it to; everything it allocated is freed.
class ACC_API CancelledError : public Error {
 public:
  using Error::Error;
};
// A long call stopped because the user asked (Ctrl-C): see accelera/core/interrupt.hpp.
class ACC_API InterruptedError : public CancelledError {
 public:
  using CancelledError::CancelledError;
};
// An index outside the extent it indexes (take's indices); Python sees an IndexError.
class ACC_API IndexError : public Error {
 public:
  using Error::Error;
};
// A broken invariant inside the library: always a bug in Accelera, never a user mistake.
class ACC_API InternalError : public Error {
 public:
  using Error::Error;
};

namespace detail {
[[noreturn]] ACC_API void throw_internal(const char* cond, const char* file, int line, const std::string& msg);
}  // namespace detail

}  // namespace accelera

// ACC_CHECK(cond, ErrorType, "format {}", args...) — validate user input; throws accelera::ErrorType.
#define ACC_CHECK(cond, ErrorType, ...)                                  \
  do {                                                                   \
    if (!(cond)) [[unlikely]] {                                          \
      throw ::accelera::ErrorType(::fmt::format(__VA_ARGS__));           \
    }                                                                    \
  } while (0)

// ACC_ASSERT(cond, "format", args...) — an internal invariant; failure is a library bug.
#define ACC_ASSERT(cond, ...)                                                                    \
  do {                                                                                           \
    if (!(cond)) [[unlikely]] {                                                                  \
      ::accelera::detail::throw_internal(#cond, __FILE__, __LINE__, ::fmt::format(__VA_ARGS__)); \
    }                                                                                            \
  } while (0)
