// Files written through a temporary and renamed into place (src/nn/atomic_file.hpp).
#include "atomic_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "accelera/core/error.hpp"

namespace accelera::nn::detail {

namespace {

// A file descriptor closed on scope exit.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

void FileWriter::write(const void* data, std::size_t bytes) const {
  const char* p = static_cast<const char*>(data);
  while (bytes) {
    const ssize_t n = ::write(m_fd, p, bytes);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format("cannot write {}: {}", m_path, std::strerror(errno)));
    }
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
}

void write_file_atomically(const std::string& path, const std::function<void(const FileWriter&)>& fill) {
  const std::filesystem::path final_path(path);
  const std::filesystem::path directory = final_path.has_parent_path() ? final_path.parent_path() : ".";
  std::string temporary = (directory / fmt::format(".{}.XXXXXX.partial", final_path.filename().string())).string();
  Descriptor file{::mkstemps(temporary.data(), 8)};
  if (file.fd < 0) throw Error(fmt::format("cannot create a temporary beside {}: {}", path, std::strerror(errno)));
  try {
    fill(FileWriter(file.fd, path));
    // mkstemps makes 0600; the file gets what a plain new file gets (0666 less the umask, which can only be
    // read by setting it, and is put back at once).
    const mode_t mask = ::umask(0);
    ::umask(mask);
    if (::fchmod(file.fd, 0666 & ~mask) != 0) throw Error(fmt::format("cannot set the mode of {}: {}", path, std::strerror(errno)));
    if (::fsync(file.fd) != 0) throw Error(fmt::format("cannot flush {}: {}", path, std::strerror(errno)));
    ::close(file.fd);
    file.fd = -1;
    std::filesystem::rename(temporary, final_path);
  } catch (...) {
    std::error_code ignored;  // the temporary is removed; the error that stopped the write propagates
    std::filesystem::remove(temporary, ignored);
    throw;
  }
}

}  // namespace accelera::nn::detail
