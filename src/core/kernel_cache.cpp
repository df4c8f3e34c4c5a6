#include "core/kernel_cache.hpp"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <thread>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "accelera/core/config.hpp"
#include "core/log.hpp"

namespace accelera::detail {

namespace {

constexpr std::string_view kMagic = "ACCELERA-KERNEL-CACHE 1\n";

struct Counters {
  std::atomic<std::int64_t> hits{0}, misses{0}, rejected{0}, stores{0}, store_failures{0};
};
Counters g_counters;

bool cache_enabled() { return !config().kernel_cache_dir.empty() && config().kernel_cache_dir != "off"; }

void reject(const std::filesystem::path& path, std::string_view why) {
  ACC_LOG_WARN("kernel cache entry {} is {}: removed, the kernel is rebuilt", path.string(), why);
  std::error_code ec;
  std::filesystem::remove(path, ec);
  ++g_counters.rejected;
  ++g_counters.misses;
}

// Entries are kernel binaries of a few megabytes at most; anything larger is not ours.
constexpr std::int64_t kMaxEntryBytes = std::int64_t{256} << 20;

// The whole file at `path` when it is a regular file of sensible size, read without following a symbolic
// link (an entry that points at /dev/zero would be read forever) and without blocking (a FIFO would hang
// the caller); otherwise nullopt with `why` set. A missing file gives nullopt with `why` empty.
std::optional<std::string> read_entry(const std::filesystem::path& path, std::string& why) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT) why = errno == ELOOP ? "a symbolic link, not a regular file" : std::strerror(errno);
    return std::nullopt;
  }
  struct stat st {};
  std::optional<std::string> data;
  if (::fstat(fd, &st) != 0) {
    why = std::strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    why = "not a regular file";
  } else if (st.st_size > kMaxEntryBytes) {
    why = fmt::format("{} bytes long, more than any kernel binary", st.st_size);
  } else {
    std::string file(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t done = 0;
    while (done < file.size()) {
      const ssize_t n = ::read(fd, file.data() + done, file.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    if (done == file.size()) {
      data = std::move(file);
    } else {
      why = "shorter than its size when read (changing underneath)";
    }
  }
  ::close(fd);
  return data;
}

}  // namespace

std::uint64_t fnv1a64(std::string_view bytes) noexcept {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string kernel_cache_path(std::string_view key) {
  if (!cache_enabled()) return {};
  return fmt::format("{}/{:016x}.bin", config().kernel_cache_dir, fnv1a64(key));
}

std::optional<std::string> kernel_cache_load(std::string_view key) {
  if (!cache_enabled()) return std::nullopt;
  const std::filesystem::path path = kernel_cache_path(key);
  std::string why;
  const auto read = read_entry(path, why);
  if (!read) {
    if (why.empty()) {
      ++g_counters.misses;
    } else {
      reject(path, why);
    }
    return std::nullopt;
  }
  const std::string& file = *read;
  // Layout: magic, key length (decimal) '\n', key, payload length '\n', checksum (hex) '\n', payload.
  std::size_t pos = 0;
  auto read_line = [&](std::string& out) {
    const std::size_t end = file.find('\n', pos);
    if (end == std::string::npos) return false;
    out = file.substr(pos, end - pos);
    pos = end + 1;
    return true;
  };
  if (file.compare(0, kMagic.size(), kMagic) != 0) {
    reject(path, "not a cache entry");
    return std::nullopt;
  }
  pos = kMagic.size();
  std::string key_length, payload_length, checksum;
  if (!read_line(key_length)) {
    reject(path, "truncated");
    return std::nullopt;
  }
  const std::size_t key_size = std::strtoull(key_length.c_str(), nullptr, 10);
  if (file.size() - pos < key_size || file.compare(pos, key_size, key) != 0 || key_size != key.size()) {
    reject(path, "for another key (stale or colliding)");
    return std::nullopt;
  }
  pos += key_size;
  if (!read_line(payload_length) || !read_line(checksum)) {
    reject(path, "truncated");
    return std::nullopt;
  }
  const std::size_t payload_size = std::strtoull(payload_length.c_str(), nullptr, 10);
  if (file.size() - pos != payload_size) {
    reject(path, file.size() - pos < payload_size
                     ? fmt::format("truncated ({} of {} payload bytes)", file.size() - pos, payload_size)
                     : fmt::format("followed by {} bytes of junk", file.size() - pos - payload_size));
    return std::nullopt;
  }
  std::string payload = file.substr(pos);
  if (checksum != fmt::format("{:016x}", fnv1a64(payload))) {
    reject(path, "corrupt (checksum mismatch)");
    return std::nullopt;
  }
  ++g_counters.hits;
  return payload;
}

void kernel_cache_store(std::string_view key, std::string_view payload) {
  if (!cache_enabled()) return;
  const std::filesystem::path path = kernel_cache_path(key);
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  const std::filesystem::path temp =
      path.string() + fmt::format(".tmp{}.{}", getpid(), std::hash<std::thread::id>{}(std::this_thread::get_id()));
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << kMagic << key.size() << '\n' << key << payload.size() << '\n'
        << fmt::format("{:016x}", fnv1a64(payload)) << '\n' << payload;
    out.close();
    if (!out) {
      ACC_LOG_WARN("cannot write the kernel cache entry {}: the kernel is rebuilt next time", temp.string());
      std::filesystem::remove(temp, ec);
      ++g_counters.store_failures;
      return;
    }
  }
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    ACC_LOG_WARN("cannot write the kernel cache entry {}: {}", path.string(), ec.message());
    std::filesystem::remove(temp, ec);
    ++g_counters.store_failures;
    return;
  }
  ++g_counters.stores;
}

void kernel_cache_discard(std::string_view key, std::string_view why) {
  if (!cache_enabled()) return;
  --g_counters.hits;  // the load that returned it counted a hit: it is a miss after all
  reject(kernel_cache_path(key), why);
}

}  // namespace accelera::detail

namespace accelera {

KernelCacheStats kernel_cache_stats() {
  const auto& c = detail::g_counters;
  return {c.hits.load(), c.misses.load(), c.rejected.load(), c.stores.load(), c.store_failures.load()};
}

}  // namespace accelera
