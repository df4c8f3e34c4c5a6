#pragma once
// Files that appear whole or not at all (the safetensors writer, the profiler's Chrome trace).
#include <cstddef>
#include <functional>
#include <string>

namespace accelera::nn::detail {

// Appends bytes to the temporary that write_file_atomically fills.
class FileWriter {
 public:
  FileWriter(int fd, const std::string& path) : m_fd(fd), m_path(path) {}
  void write(const void* data, std::size_t bytes) const;

 private:
  int m_fd;
  const std::string& m_path;
};

// Writes `path` through a temporary beside it: `fill` writes the contents, which are flushed to disk, given
// the mode a plain new file gets (0666 less the umask), and renamed over `path`. If anything throws, the
// temporary is removed and `path` is left as it was.
void write_file_atomically(const std::string& path, const std::function<void(const FileWriter&)>& fill);

}  // namespace accelera::nn::detail
