// embed=file:<path>: a word-vector file, memory-mapped; vectors are read from the mapping when a
// token is looked up, so a multi-gigabyte file costs its index (word -> offset), not its floats.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <stdexcept>
#include <unordered_map>

#include "metrics/bertscore.hpp"
#include "util/hash.hpp"

namespace probity::metrics::bertscore {

namespace {

class Mapping {
 public:
  explicit Mapping(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) throw std::invalid_argument(fmt::format("cannot open vector file '{}'", path));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || st.st_size == 0) {
      ::close(fd);
      throw std::invalid_argument(fmt::format("vector file '{}' is empty or unreadable", path));
    }
    size_ = static_cast<std::size_t>(st.st_size);
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED) throw std::invalid_argument(fmt::format("cannot map '{}'", path));
    data_ = static_cast<const char*>(p);
  }
  ~Mapping() { ::munmap(const_cast<char*>(data_), size_); }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  std::string_view view() const { return {data_, size_}; }

 private:
  const char* data_ = nullptr;
  std::size_t size_ = 0;
};

bool parse_size(std::string_view s, std::size_t& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

std::vector<std::string_view> fields(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

class VectorFile final : public Embedder {
 public:
  VectorFile(const std::string& path, const std::string& format, bool lowercase)
      : path_(path), map_(path), lowercase_(lowercase) {
    binary_ = format == "binary" || (format == "auto" && path.size() >= 4 &&
                                     path.compare(path.size() - 4, 4, ".bin") == 0);
    const std::string_view all = map_.view();
    std::size_t pos = 0;
    auto next_line = [&](std::string_view& line) {
      if (pos >= all.size()) return false;
      std::size_t end = all.find('\n', pos);
      if (end == std::string_view::npos) end = all.size();
      line = all.substr(pos, end - pos);
      pos = end + 1;
      return true;
    };
    std::string_view first;
    next_line(first);
    const auto head = fields(first);
    std::size_t count = 0;
    const bool has_header =
        head.size() == 2 && parse_size(head[0], count) && parse_size(head[1], dim_);
    if (binary_) {
      if (!has_header)
        throw std::invalid_argument(
            fmt::format("'{}': a word2vec binary file starts with '<words> <dim>'", path));
      for (std::size_t n = 0; n < count; ++n) {
        while (pos < all.size() && (all[pos] == '\n' || all[pos] == ' ')) ++pos;
        const std::size_t sp = all.find(' ', pos);
        if (sp == std::string_view::npos || sp + 1 + dim_ * 4 > all.size())
          throw std::invalid_argument(
              fmt::format("'{}': truncated at word {} of {}", path, n + 1, count));
        index_.emplace(std::string(all.substr(pos, sp - pos)), sp + 1);
        pos = sp + 1 + dim_ * 4;
      }
    } else {
      if (!has_header) pos = 0;  // GloVe: no header line
      std::string_view line;
      std::size_t line_no = has_header ? 1 : 0;
      while (next_line(line)) {
        ++line_no;
        const std::size_t sp = line.find(' ');
        if (line.empty() || line == "\r") continue;
        if (sp == std::string_view::npos)
          throw std::invalid_argument(fmt::format("'{}' line {}: no vector", path, line_no));
        if (dim_ == 0) dim_ = fields(line.substr(sp + 1)).size();
        index_.emplace(std::string(line.substr(0, sp)),
                       static_cast<std::size_t>(line.data() + sp + 1 - all.data()));
      }
    }
    if (dim_ == 0 || index_.empty())
      throw std::invalid_argument(fmt::format("'{}' holds no vectors", path));
    specials_ = index_.count("[CLS]") > 0 && index_.count("[SEP]") > 0;
  }

  std::string signature() const override {
    return fmt::format("embed:file|file:{}|format:{}|dim:{}|words:{}|lower:{}|special:{}",
                       path_.substr(path_.rfind('/') + 1), binary_ ? "binary" : "text", dim_,
                       index_.size(), lowercase_ ? "yes" : "no", specials_ ? "cls-sep" : "none");
  }

  EmbeddedText embed(std::string_view text) const override {
    EmbeddedText out;
    out.dim = dim_;
    auto add = [&](const std::string& token, bool special) {
      const auto it = index_.find(token);
      if (it == index_.end()) return;
      const std::size_t at = out.vectors.size();
      out.vectors.resize(at + dim_);
      read(it->second, out.vectors.data() + at, token);
      out.tokens.push_back(token);
      out.special.push_back(special ? 1 : 0);
    };
    if (specials_) add("[CLS]", true);
    // bert_score strips the text; an empty one is only the special tokens
    for (const auto& t : word_tokens(text, lowercase_)) add(t, false);
    if (specials_) add("[SEP]", true);
    return out;
  }

 private:
  void read(std::size_t offset, double* out, const std::string& token) const {
    const std::string_view all = map_.view();
    if (binary_) {
      for (std::size_t k = 0; k < dim_; ++k) {
        float f = 0;
        std::memcpy(&f, all.data() + offset + 4 * k, 4);
        out[k] = f;
      }
      return;
    }
    std::size_t end = all.find('\n', offset);
    if (end == std::string_view::npos) end = all.size();
    const auto values = fields(all.substr(offset, end - offset));
    if (values.size() != dim_)
      throw std::invalid_argument(fmt::format("'{}': the vector of '{}' has {} values, not {}",
                                              path_, token, values.size(), dim_));
    for (std::size_t k = 0; k < dim_; ++k) {
      auto [p, ec] = std::from_chars(values[k].data(), values[k].data() + values[k].size(), out[k]);
      if (ec != std::errc() || p != values[k].data() + values[k].size())
        throw std::invalid_argument(fmt::format("'{}': '{}' in the vector of '{}' is not a number",
                                                path_, values[k], token));
    }
  }

  std::string path_;
  Mapping map_;
  bool lowercase_ = true, binary_ = false, specials_ = false;
  std::size_t dim_ = 0;
  std::unordered_map<std::string, std::size_t> index_;  // word -> offset of its vector
};

}  // namespace

std::unique_ptr<Embedder> make_vector_file_embedder(const std::string& path,
                                                    const std::string& format, bool lowercase) {
  return std::make_unique<VectorFile>(path, format, lowercase);
}

}  // namespace probity::metrics::bertscore
