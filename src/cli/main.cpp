#include <fmt/format.h>

int main() {
  fmt::print("probity\n");
  return 0;
}
