#include "util/output_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <streambuf>
#include <vector>

#include "probity/error.hpp"

namespace probity::util {
namespace {

namespace fs = std::filesystem;

std::string os_message(int err) {
  return std::strerror(err);
}

// A streambuf over a file descriptor that remembers the first failed write (errno) instead of
// losing it, as std::ofstream does.
class FdBuf final : public std::streambuf {
 public:
  explicit FdBuf(int fd) : fd_(fd), buffer_(1 << 16) {
    setp(buffer_.data(), buffer_.data() + buffer_.size());
  }
  int error() const { return error_; }
  bool flush_all() { return drain() && error_ == 0; }

 protected:
  int_type overflow(int_type ch) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    const char* p = pbase();
    std::size_t left = static_cast<std::size_t>(pptr() - pbase());
    while (left > 0 && error_ == 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        error_ = errno;
        break;
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return error_ == 0;
  }
  int fd_;
  std::vector<char> buffer_;
  int error_ = 0;
};

// Temporary files to remove when the process is interrupted (SIGINT, SIGTERM, SIGHUP): a fixed
// table the signal handler can read without locks or allocation.
constexpr std::size_t kSlots = 64;
constexpr std::size_t kPathMax = 4096;
std::array<std::array<char, kPathMax>, kSlots> g_temp_paths{};
std::array<std::atomic<bool>, kSlots> g_claimed{};  // slot taken by a live OutputFile
std::array<std::atomic<bool>, kSlots> g_active{};   // its path is written and may be removed
std::once_flag g_handlers_once;

extern "C" void remove_temps_and_reraise(int sig) {
  for (std::size_t i = 0; i < kSlots; ++i)
    if (g_active[i].load()) ::unlink(g_temp_paths[i].data());
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_handlers() {
  std::call_once(g_handlers_once, [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      ::sigaction(sig, nullptr, &old);
      // Leave handlers others installed (Python's SIGINT handler) alone.
      if (old.sa_handler != SIG_DFL) continue;
      struct sigaction sa {};
      sa.sa_handler = remove_temps_and_reraise;
      sigemptyset(&sa.sa_mask);
      ::sigaction(sig, &sa, nullptr);
    }
  });
}

int register_temp(const std::string& path) {
  if (path.size() >= kPathMax) return -1;
  for (std::size_t i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (g_claimed[i].compare_exchange_strong(expected, true)) {
      std::memcpy(g_temp_paths[i].data(), path.c_str(), path.size() + 1);
      g_active[i] = true;
      return static_cast<int>(i);
    }
  }
  return -1;  // more than 64 open outputs: these are not removed on Ctrl-C
}

void unregister_temp(int slot) {
  if (slot < 0) return;
  g_active[static_cast<std::size_t>(slot)] = false;
  g_claimed[static_cast<std::size_t>(slot)] = false;
}

// Temporaries of runs that were killed outright (SIGKILL) carry their process id: remove those
// whose process is gone.
void remove_stale_temps(const fs::path& dir, const std::string& stem) {
  std::error_code ec;
  const std::string prefix = "." + stem + ".probity-";
  for (const auto& e : fs::directory_iterator(dir.empty() ? fs::path(".") : dir, ec)) {
    const std::string name = e.path().filename().string();
    if (!name.starts_with(prefix) || !name.ends_with(".tmp")) continue;
    const std::string pid_text =
        name.substr(prefix.size(), name.find('-', prefix.size()) - prefix.size());
    char* end = nullptr;
    const long pid = std::strtol(pid_text.c_str(), &end, 10);
    if (end == pid_text.c_str() || pid <= 0) continue;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) fs::remove(e.path(), ec);
  }
}

std::atomic<unsigned> g_counter{0};

// The file a path leads to through its links (as editors and compilers write through a link,
// keeping it a link); a dangling link leads to the file it names, which the write creates.
fs::path follow_links(fs::path path) {
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(path, ec))) return path;
    fs::path target = fs::read_symlink(path, ec);
    if (ec) return path;
    path = target.is_absolute() ? target : path.parent_path() / target;
  }
  return path;  // a loop: the open below reports it
}

}  // namespace

struct OutputFile::Impl {
  int fd = -1;
  bool own_fd = true;
  bool in_place = false;  // not a regular file: written directly
  std::string temp;
  std::string target;  // the file renamed over: the path, or where its links lead
  int slot = -1;
  std::unique_ptr<FdBuf> buf;
  std::unique_ptr<std::ostream> stream;
  bool committed = false;
};

OutputFile::OutputFile(std::string path) : path_(std::move(path)), impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  if (path_ == "-") {
    std::fflush(stdout);
    std::cout.flush();
    m.fd = STDOUT_FILENO;
    m.own_fd = false;
    m.in_place = true;
  } else {
    struct stat st {};
    const bool exists = ::stat(path_.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) throw OutputError(shown(), "it is a directory");
    if (exists && !S_ISREG(st.st_mode)) {
      // A device or a pipe: renaming over it would replace the device node.
      m.fd = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
      if (m.fd < 0) throw OutputError(shown(), os_message(errno));
      m.in_place = true;
    } else {
      const fs::path target = follow_links(path_);
      m.target = target.string();
      const fs::path dir = target.parent_path();
      const std::string stem = target.filename().string();
      remove_stale_temps(dir, stem);
      m.temp = (dir / ("." + stem + ".probity-" + std::to_string(::getpid()) + "-" +
                       std::to_string(g_counter++) + ".tmp"))
                   .string();
      install_handlers();
      m.slot = register_temp(m.temp);
      m.fd = ::open(m.temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (m.fd < 0) {
        const int err = errno;
        unregister_temp(m.slot);
        throw OutputError(shown(), os_message(err));
      }
      if (exists) ::fchmod(m.fd, st.st_mode & 07777);  // keep the target's permissions
    }
  }
  m.buf = std::make_unique<FdBuf>(m.fd);
  m.stream = std::make_unique<std::ostream>(m.buf.get());
}

OutputFile::~OutputFile() {
  Impl& m = *impl_;
  if (!m.committed && !m.in_place && !m.temp.empty()) {
    if (m.fd >= 0) ::close(m.fd);
    ::unlink(m.temp.c_str());
    unregister_temp(m.slot);
  } else if (!m.committed && m.own_fd && m.fd >= 0) {
    ::close(m.fd);
  }
}

std::string OutputFile::shown() const {
  return path_ == "-" ? "standard output" : path_;
}

std::ostream& OutputFile::stream() {
  return *impl_->stream;
}

void OutputFile::check() {
  Impl& m = *impl_;
  if (m.buf->error() != 0) throw OutputError(shown(), os_message(m.buf->error()));
}

void OutputFile::commit() {
  Impl& m = *impl_;
  if (m.committed) return;
  if (!m.buf->flush_all()) throw OutputError(shown(), os_message(m.buf->error()));
  if (m.in_place) {
    m.committed = true;
    if (m.own_fd && ::close(m.fd) != 0) throw OutputError(shown(), os_message(errno));
    return;
  }
  // The data must be on disk before the name points at it, or a crash could leave an empty file.
  if (::fsync(m.fd) != 0) throw OutputError(shown(), os_message(errno));
  const int fd = m.fd;
  m.fd = -1;
  if (::close(fd) != 0) throw OutputError(shown(), os_message(errno));
  if (::rename(m.temp.c_str(), m.target.c_str()) != 0)
    throw OutputError(shown(), os_message(errno));
  unregister_temp(m.slot);
  m.committed = true;
  // The rename itself survives a crash once the directory is on disk (best effort).
  const fs::path dir = fs::path(m.target).parent_path();
  const int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

void write_file_atomically(const std::string& path, std::string_view content) {
  OutputFile out(path);
  out.write(content);
  out.commit();
}

bool same_file(const std::string& a, const std::string& b) {
  if (a == "-" || b == "-") return false;
  struct stat sa {
  }, sb{};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  std::error_code ec1, ec2;
  const auto ca = fs::weakly_canonical(a, ec1), cb = fs::weakly_canonical(b, ec2);
  return !ec1 && !ec2 && ca == cb;
}

namespace {

// `name` against a planned name with at most one '*'.
bool name_matches(std::string_view name, std::string_view pattern) {
  const auto star = pattern.find('*');
  if (star == std::string_view::npos) return name == pattern;
  const auto prefix = pattern.substr(0, star), suffix = pattern.substr(star + 1);
  return name.size() >= prefix.size() + suffix.size() && name.starts_with(prefix) &&
         name.ends_with(suffix);
}

bool any_name_matches(std::string_view name, const std::vector<std::string>& patterns) {
  for (const auto& p : patterns)
    if (name_matches(name, p)) return true;
  return false;
}

[[noreturn]] void refuse(const PlannedOutput& out, const std::string& written,
                         const NamedInput& in) {
  const std::string by = in.option.empty() ? "" : " (" + in.option + ")";
  if (out.names.empty() || written.empty())
    throw UsageError(
        fmt::format("{} '{}' is also an input{}: writing it would destroy the input; "
                    "write to another {}",
                    out.option, out.path, by, out.names.empty() ? "file" : "directory"));
  throw UsageError(
      fmt::format("{} '{}' would overwrite the input '{}'{} with its {}: write to "
                  "another directory",
                  out.option, out.path, in.path, by, written));
}

}  // namespace

void refuse_overwriting_inputs(std::span<const NamedInput> inputs,
                               std::span<const PlannedOutput> outputs) {
  for (const auto& out : outputs) {
    if (out.path.empty() || out.path == "-") continue;
    for (const auto& in : inputs) {
      if (in.path.empty() || in.path == "-") continue;
      if (same_file(out.path, in.path)) refuse(out, "", in);
      if (out.names.empty()) continue;
      const fs::path input(in.path);
      const std::string name = input.filename().string();
      const std::string parent = input.has_parent_path() ? input.parent_path().string() : ".";
      if (any_name_matches(name, out.names) && same_file(parent, out.path)) refuse(out, name, in);
    }
    if (out.names.empty()) continue;
    // A name already in the directory may be a link to an input: the write would go through it.
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(out.path, ec)) {
      const std::string name = e.path().filename().string();
      if (!any_name_matches(name, out.names)) continue;
      for (const auto& in : inputs)
        if (!in.path.empty() && in.path != "-" && same_file(e.path().string(), in.path))
          refuse(out, name, in);
    }
  }
}

void check_stdout() {
  errno = 0;
  std::cout.flush();
  int err = errno;
  if (std::fflush(stdout) != 0 && errno != 0) err = errno;
  if (std::ferror(stdout) || std::cout.fail())
    throw OutputError("standard output", os_message(err != 0 ? err : EIO));
}

}  // namespace probity::util
