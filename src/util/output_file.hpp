#pragma once
// Output files that are complete or not there at all. The content goes to a temporary file in the
// target's directory; commit() checks that every write succeeded, fsyncs, and renames it over the
// target. Without commit() (an exception, an early return, Ctrl-C) the temporary is removed and
// the target keeps what it held before. A target that is not a regular file (a device such as
// /dev/stdout or /dev/full, a pipe) is written in place, every write checked; "-" is standard
// output. Failures throw OutputError with the path and the operating system's message.
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace probity::util {

class OutputFile {
 public:
  explicit OutputFile(std::string path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::ostream& stream();
  void write(std::string_view data) { stream() << data; }
  // Throws OutputError when a write has failed so far (long writers call it between chunks, so
  // that a full disk stops the run at once).
  void check();
  // Makes the file the target: flush, check, fsync, close, rename. Throws OutputError.
  void commit();
  const std::string& path() const { return path_; }

 private:
  std::string shown() const;  // the path as error messages name it
  struct Impl;
  std::string path_;
  std::unique_ptr<Impl> impl_;
};

// Writes `content` to `path` as an OutputFile.
void write_file_atomically(const std::string& path, std::string_view content);

// A file a command reads, and the option that named it (for messages).
struct NamedInput {
  std::string path;
  std::string option;
};

// What a command will write: a file, or a directory and the names it writes there ("report.json";
// one '*' stands for any text: "fig-*.svg").
struct PlannedOutput {
  std::string path;
  std::string option;
  std::vector<std::string> names;  // empty: `path` is the file itself
};

// Throws UsageError before anything is written when a planned output is one of the inputs: the
// same file (also through a link), an input inside an output directory under a name written
// there, or an output directory that is an input file.
void refuse_overwriting_inputs(std::span<const NamedInput> inputs,
                               std::span<const PlannedOutput> outputs);

// True when both paths name the same existing file (the same device and inode), or the same
// path once made absolute and normal when `b` does not exist yet.
bool same_file(const std::string& a, const std::string& b);

// Standard output, flushed and checked: throws OutputError("standard output", ...) when a
// write to it failed (a full disk, a closed pipe).
void check_stdout();

}  // namespace probity::util
