#include "output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "accelera/core/error.hpp"
#include "interrupt.hpp"

namespace accelera::cli {

namespace {

std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string name_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

mode_t new_file_mode() {
  // The umask can only be read by setting it; it is put back at once.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

void sync_directory(const std::string& directory, const std::string& path) {
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const bool synced = fd >= 0 && ::fsync(fd) == 0;
  const int error = errno;
  if (fd >= 0) ::close(fd);
  ACC_CHECK(synced, ValueError, "{} is in place, but its directory {} could not be written to disk: {}", path,
            directory, std::strerror(error));
}

}  // namespace

mode_t check_output_path(const std::string& path, const std::vector<InputFile>& inputs) {
  ACC_CHECK(!path.empty() && path.back() != '/', ValueError, "the output path '{}' does not name a file", path);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    ACC_CHECK(errno == ENOENT, ValueError, "cannot write the output {}: {}", path, std::strerror(errno));
    return new_file_mode();
  }
  const FileIdentity identity{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
  for (const InputFile& input : inputs) {
    ACC_CHECK(identity != input.identity, ValueError,
              "refusing to write the output {}: it is the same file as the input {} (the same path, a symlink or a "
              "hard link), and writing it would destroy the input; choose another output path",
              path, input.path);
  }
  ACC_CHECK(S_ISREG(st.st_mode), ValueError, "cannot write the output {}: it exists and is not a regular file{}", path,
            S_ISDIR(st.st_mode) ? " (a directory)" : "");
  return st.st_mode & 07777;
}

std::unique_ptr<OutputFile> OutputFile::create(const std::string& path, std::uint64_t bytes,
                                               std::vector<InputFile> inputs) {
  const mode_t mode = check_output_path(path, inputs);
  throw_if_interrupted();
  std::unique_ptr<OutputFile> out(new OutputFile());
  out->m_path = path;
  out->m_inputs = std::move(inputs);
  const std::string directory = directory_of(path);
  const auto slash = path.rfind('/');
  std::string pattern =
      (slash == std::string::npos ? std::string() : path.substr(0, slash + 1)) + "." + name_of(path) + ".XXXXXX";
  out->m_fd = ::mkostemp(pattern.data(), O_CLOEXEC);
  ACC_CHECK(out->m_fd >= 0, ValueError, "cannot create a temporary file in {} for the output {}: {}", directory, path,
            std::strerror(errno));
  out->m_temporary = pattern;
  out->m_slot = detail::register_temporary(out->m_temporary);
  ACC_CHECK(::fchmod(out->m_fd, mode) == 0, ValueError, "cannot set the permissions of {}: {}", out->m_temporary,
            std::strerror(errno));
  if (bytes > 0) {
    const int error = ::posix_fallocate(out->m_fd, 0, static_cast<off_t>(bytes));
    ACC_CHECK(error == 0, ValueError, "cannot reserve {} bytes in {} for the output {}: {}", bytes, directory, path,
              std::strerror(error));
  }
  return out;
}

void OutputFile::commit() {
  ACC_ASSERT(!m_committed, "{} committed twice", m_path);
  ACC_CHECK(::fsync(m_fd) == 0, ValueError, "cannot write the output {} to disk: {}", m_path, std::strerror(errno));
  check_output_path(m_path, m_inputs);  // the path may have changed during the run
  if (!detail::claim_temporary(m_slot)) {
    throw_if_interrupted();
    ACC_ASSERT(false, "the temporary of {} was removed without an interrupt", m_path);
  }
  if (::rename(m_temporary.c_str(), m_path.c_str()) != 0) {
    const int error = errno;
    detail::unclaim_temporary(m_slot);
    throw ValueError(
        fmt::format("cannot move the finished output {} to {}: {}", m_temporary, m_path, std::strerror(error)));
  }
  detail::release_temporary(m_slot);
  m_slot = -1;
  m_committed = true;
  sync_directory(directory_of(m_path), m_path);
}

OutputFile::~OutputFile() {
  if (m_slot >= 0) {
    detail::discard_temporary(m_slot);
  } else if (!m_committed && !m_temporary.empty()) {
    ::unlink(m_temporary.c_str());  // made, but its registration failed
  }
  if (m_fd >= 0) ::close(m_fd);
}

}  // namespace accelera::cli
