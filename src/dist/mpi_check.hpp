#pragma once
// MPI status checks and communicators freed on every way out.
#include <climits>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

#include "accelera/core/error.hpp"
#include "accelera/dist.hpp"

namespace accelera::dist {

// MPI's datatype for the element types accelera::dist multiplies.
template <class T>
MPI_Datatype mpi_type() {
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, float>, "dist computes float32 and float64");
  return std::is_same_v<T, double> ? MPI_DOUBLE : MPI_FLOAT;
}

// Throws Error naming the call and MPI's own message for anything but MPI_SUCCESS.
inline void check_mpi(int status, const char* what) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(status, text, &length);
  throw Error(fmt::format("{} failed: {}", what, std::string(text, static_cast<std::size_t>(length))));
}

// Every rank of `comm` says whether it failed (`mine`, null when it did not); when any did, every rank
// throws together, so that none is left waiting in a collective: a failed rank its own error, the others
// PeerError naming the first failed rank and its message.
template <class PeerError>
void agree(MPI_Comm comm, const std::exception_ptr& mine, std::string_view what) {
  int rank = 0;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  int first = mine ? rank : INT_MAX;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (first == INT_MAX) return;
  std::string text;
  if (first == rank) {
    try {
      std::rethrow_exception(mine);
    } catch (const std::exception& e) {
      text = e.what();
    }
  }
  int length = static_cast<int>(text.size());
  check_mpi(MPI_Bcast(&length, 1, MPI_INT, first, comm), "MPI_Bcast");
  text.resize(static_cast<std::size_t>(length));
  check_mpi(MPI_Bcast(text.data(), length, MPI_CHAR, first, comm), "MPI_Bcast");
  if (mine) std::rethrow_exception(mine);
  throw PeerError(fmt::format("{}: grid rank {} failed, so every rank stops: {}", what, first, text));
}

// Runs f, returning what it threw (null when nothing).
template <class F>
std::exception_ptr failure_of(F&& f) {
  try {
    f();
  } catch (...) {
    return std::current_exception();
  }
  return nullptr;
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

// `count` runs of `run` elements of T, `stride` elements apart, committed; freed when the last copy goes.
template <class T>
std::shared_ptr<MPI_Datatype> committed_vector(int count, int run, int stride) {
  auto type = std::shared_ptr<MPI_Datatype>(new MPI_Datatype(MPI_DATATYPE_NULL), [](MPI_Datatype* t) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && *t != MPI_DATATYPE_NULL) MPI_Type_free(t);
    delete t;
  });
  check_mpi(MPI_Type_vector(count, run, stride, mpi_type<T>(), type.get()), "MPI_Type_vector");
  check_mpi(MPI_Type_commit(type.get()), "MPI_Type_commit");
  return type;
}

}  // namespace accelera::dist
