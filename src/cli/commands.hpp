#pragma once
// The subcommands of the `probity` tool. main.cpp parses flags into these structs.
#include <cstdint>
#include <string>
#include <vector>

namespace probity::cli {

struct ScoreArgs {
  std::vector<std::string> data;
  std::vector<std::string> metrics;
  std::string out;  // empty: stdout
  bool skip_invalid = false;
  unsigned threads = 0;
};
int run_score(const ScoreArgs& args);

struct CorrelateArgs {
  std::string data;
  std::string scores;
  std::vector<std::string> metrics;     // empty: every metric in the scores file
  std::vector<std::string> dimensions;  // empty: every dimension of the dataset
  std::size_t bootstrap = 1000;
  double confidence = 0.95;
  std::uint64_t seed = 0;
  bool json = false;
  bool skip_invalid = false;
  unsigned threads = 0;
};
int run_correlate(const CorrelateArgs& args);

struct CompareArgs {
  std::string data;
  std::string scores;
  std::vector<std::string> metrics;  // exactly two
  std::vector<std::string> dimensions;
  std::string correlation = "spearman";
  std::size_t permutations = 1000;
  std::uint64_t seed = 0;
  bool json = false;
  bool skip_invalid = false;
  unsigned threads = 0;
};
int run_compare(const CompareArgs& args);

struct AuditArgs {
  std::vector<std::string> data;
  std::vector<std::string> metrics;
  std::vector<std::string> degradations{"all"};
  std::vector<std::string> manipulations{"all"};
  std::size_t sample = 0;
  std::uint64_t seed = 0;
  std::size_t bootstrap = 1000;
  double alpha = 0.05;
  std::string out;
  unsigned threads = 0;
  bool skip_invalid = false;
  bool ascii = false;
};
int run_audit(const AuditArgs& args);

int run_metrics(bool json);

}  // namespace probity::cli
