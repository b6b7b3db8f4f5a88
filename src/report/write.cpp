#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "probity/report.hpp"
#include "util/output_file.hpp"

namespace probity::report {

void write_all(const AuditReport& report, const std::string& dir) {
  std::filesystem::path root(dir.empty() ? "." : dir);
  std::error_code ec;
  std::filesystem::create_directories(root, ec);
  if (ec)
    throw std::runtime_error("cannot create directory " + root.string() + ": " + ec.message());
  // Render everything first so that a rendering error leaves no half-written set behind.
  std::string json = to_json(report), md = to_markdown(report), html = to_html(report);
  // Each file complete or as it was: a full disk leaves the previous report in place.
  util::write_file_atomically((root / "report.json").string(), json);
  util::write_file_atomically((root / "report.md").string(), md);
  util::write_file_atomically((root / "report.html").string(), html);
}

}  // namespace probity::report
