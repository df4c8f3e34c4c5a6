#pragma once
// Note [Safe outputs]
// A result may take hours and its inputs may be the user's only copy, so an output file is never written in
// place:
// - It is created as a hidden temporary beside its final path (.c.npy.XXXXXX, mkstemp, so in the same file
//   system and directory) with its disk space reserved up front: a full disk is an error before the run,
//   not a SIGBUS while the result is written through a mapping.
// - Only commit() puts it in place: fsync, then rename over the final path (atomic: readers see the old file
//   or the complete new one), then fsync of the directory so that the rename survives a crash.
// - Until then nothing at the final path is opened, truncated or touched; a failed run (an exception)
//   removes the temporary in the destructor, a signal in its handler (Note [Interrupted runs] in
//   interrupt.cpp).
// - An output that is one of the run's inputs is refused before anything is created, by file identity
//   (device and inode, as stat() sees them through symlinks), so the same path, "./a.npy", a symlink or a
//   hard link to an input are all caught; the check is made again just before the rename.
// - A final path that is a symlink to some other file is replaced by the new file; the file it pointed to
//   is left as it was.
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace accelera::cli {

struct FileIdentity {
  std::uint64_t device = 0, inode = 0;
  bool operator==(const FileIdentity&) const = default;
};

// An input file, by the name the user gave and the identity of what was opened.
struct InputFile {
  std::string path;
  FileIdentity identity;
};

class OutputFile {
 public:
  // A temporary of `bytes` bytes (disk space reserved) that commit() will rename to `path`. Throws
  // ValueError when `path` is one of `inputs`, a directory or not usable, or the temporary cannot be made;
  // CancelledError when an interrupt came first.
  static std::unique_ptr<OutputFile> create(const std::string& path, std::uint64_t bytes,
                                            std::vector<InputFile> inputs);
  // Removes the temporary unless it was committed.
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  int fd() const noexcept { return m_fd; }
  const std::string& path() const noexcept { return m_path; }
  const std::string& temporary_path() const noexcept { return m_temporary; }

  // Writes the temporary to disk and renames it to path(). Throws CancelledError if an interrupt came
  // first, ValueError if the file system refuses; the output is then not in place.
  void commit();

 private:
  OutputFile() = default;
  std::string m_path, m_temporary;
  std::vector<InputFile> m_inputs;
  int m_fd = -1;
  int m_slot = -1;  // in the interrupt handler's list of temporaries
  bool m_committed = false;
};

// Throws ValueError if `path` names the same file as one of `inputs`, or an existing non-regular file.
// Returns the permission bits of the file at `path`, or those a new file gets (0666 less the umask).
mode_t check_output_path(const std::string& path, const std::vector<InputFile>& inputs);

}  // namespace accelera::cli
