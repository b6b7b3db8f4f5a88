#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "probity/report.hpp"

namespace probity::report {

namespace {

void write_file(const std::filesystem::path& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(errno));
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  if (!out) throw std::runtime_error("error writing " + path.string());
}

}  // namespace

void write_all(const AuditReport& report, const std::string& dir) {
  std::filesystem::path root(dir.empty() ? "." : dir);
  std::error_code ec;
  std::filesystem::create_directories(root, ec);
  if (ec)
    throw std::runtime_error("cannot create directory " + root.string() + ": " + ec.message());
  // Render everything first so that a rendering error leaves no half-written set behind.
  std::string json = to_json(report), md = to_markdown(report), html = to_html(report);
  write_file(root / "report.json", json);
  write_file(root / "report.md", md);
  write_file(root / "report.html", html);
}

}  // namespace probity::report
