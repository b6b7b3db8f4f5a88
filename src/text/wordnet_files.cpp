#include "text/wordnet_files.hpp"

#include <cstddef>
#include <fstream>

namespace probity::text::wordnet_files {

std::vector<std::string_view> fields(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

long parse_number(std::string_view s, int base) {
  long v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return -1;
    v = v * base + d;
  }
  return v;
}

void read_index(const std::string& path,
                const std::function<void(std::string_view, std::vector<long>&&)>& entry) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line.front() == ' ') continue;  // licence header
    const auto f = fields(line);
    if (f.size() < 6) continue;
    const long synsets = parse_number(f[2], 10), pointers = parse_number(f[3], 10);
    if (synsets <= 0 || pointers < 0) continue;
    std::vector<long> offsets;
    for (std::size_t k = 4 + static_cast<std::size_t>(pointers) + 2;
         k < f.size() && offsets.size() < static_cast<std::size_t>(synsets); ++k)
      offsets.push_back(parse_number(f[k], 10));
    entry(f[0], std::move(offsets));
  }
}

void read_exceptions(
    const std::string& path,
    const std::function<void(std::string_view, std::span<const std::string_view>)>& entry) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const auto f = fields(line);
    if (f.size() < 2) continue;
    entry(f[0], std::span<const std::string_view>(f).subspan(1));
  }
}

const std::vector<std::pair<std::string_view, std::string_view>>& detachment_rules(int pos) {
  static const std::vector<std::pair<std::string_view, std::string_view>> table[5] = {
      {},
      {{"s", ""},
       {"ses", "s"},
       {"xes", "x"},
       {"zes", "z"},
       {"ches", "ch"},
       {"shes", "sh"},
       {"men", "man"},
       {"ies", "y"}},
      {{"s", ""},
       {"ies", "y"},
       {"es", "e"},
       {"es", ""},
       {"ed", "e"},
       {"ed", ""},
       {"ing", "e"},
       {"ing", ""}},
      {{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"}},
      {}};
  return table[pos];
}

}  // namespace probity::text::wordnet_files
