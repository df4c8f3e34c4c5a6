#pragma once
// MPI status checks and communicators freed on every way out.
#include <memory>
#include <string>

#include "accelera/core/error.hpp"
#include "accelera/dist.hpp"

namespace accelera::dist {

// Throws Error naming the call and MPI's own message for anything but MPI_SUCCESS.
inline void check_mpi(int status, const char* what) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(status, text, &length);
  throw Error(fmt::format("{} failed: {}", what, std::string(text, static_cast<std::size_t>(length))));
}

// An owner that frees `comm` when the last copy goes.
inline std::shared_ptr<void> owned_comm(MPI_Comm comm) {
  return std::shared_ptr<void>(new MPI_Comm(comm), [](void* p) {
    auto* c = static_cast<MPI_Comm*>(p);
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && *c != MPI_COMM_NULL) MPI_Comm_free(c);
    delete c;
  });
}

}  // namespace accelera::dist
