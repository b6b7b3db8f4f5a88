#include "cli/output.hpp"

#include <fmt/ranges.h>

#include <algorithm>
#include <iostream>

#include "llm/session.hpp"
#include "probity/engine.hpp"
#include "probity/error.hpp"
#include "probity/metric.hpp"
#include "probity/text.hpp"

namespace probity::cli {

std::vector<util::NamedInput> command_inputs(const std::vector<DataInput>& data,
                                             const std::vector<std::string>& metrics,
                                             const Engine* engine) {
  std::vector<util::NamedInput> inputs;
  for (const auto& d : data)
    if (d.kind != DataInput::Kind::kMemory) inputs.push_back({d.name(), "--data"});
  for (const auto& text : metrics)
    for (const auto& file : MetricSpec::parse(text).named_files())
      inputs.push_back({file, "--metric " + text});
  if (const auto* session = engine != nullptr ? engine->llm_or_null().get() : nullptr) {
    inputs.push_back({session->config().cache_path, "--cache"});
    inputs.push_back({session->config().path, "--config"});
  }
  return inputs;
}

void print_skipped(const std::vector<SkipRecord>& records) {
  if (records.empty()) return;
  fmt::print(stderr, "skipped {} invalid item(s):\n", records.size());
  constexpr std::size_t kShown = 50;
  for (std::size_t i = 0; i < records.size() && i < kShown; ++i) {
    const auto& s = records[i];
    fmt::print(stderr, "  {}:{}: {}{}\n", s.file, s.line,
               s.field.empty() ? "" : fmt::format("field '{}': ", s.field), s.message);
  }
  if (records.size() > kShown) fmt::print(stderr, "  ... and {} more\n", records.size() - kShown);
}

void EmptyTextNotes::add(const Dataset& ds) {
  for (const auto& t : ds.tasks) {
    for (const auto& r : t.references)
      if (text::is_blank(r.text)) {
        tasks_.push_back(t.task_id);
        break;
      }
    for (const auto& c : t.candidates) empty_candidates_ += text::is_blank(c.text) ? 1 : 0;
  }
}

void EmptyTextNotes::print() const {
  if (!tasks_.empty()) {
    constexpr std::size_t kShown = 10;
    std::vector<std::string> shown(
        tasks_.begin(),
        tasks_.begin() + static_cast<std::ptrdiff_t>(std::min(kShown, tasks_.size())));
    fmt::print(stderr,
               "warning: {} task(s) have an empty reference: {}{} (overlap metrics score them "
               "as sacreBLEU and rouge-score do; MI metrics and ExPerT are undefined there)\n",
               tasks_.size(), fmt::join(shown, ", "),
               tasks_.size() > kShown ? fmt::format(" and {} more", tasks_.size() - kShown) : "");
  }
  if (empty_candidates_ > 0)
    fmt::print(stderr, "note: {} empty candidate(s) are scored as the outputs they are\n",
               empty_candidates_);
}

std::string describe_files(const std::vector<std::string>& files) {
  return fmt::format("'{}'", fmt::join(files, "', '"));
}

nlohmann::ordered_json files_json(const std::vector<std::string>& files) {
  if (files.size() == 1) return files.front();
  return files;
}

std::vector<ScoreColumn> read_score_files(const std::vector<std::string>& files, const Dataset& ds,
                                          std::span<const ItemRef> items,
                                          const std::vector<std::string>& metrics,
                                          bool allow_missing) {
  if (std::count(files.begin(), files.end(), "-") > 1)
    throw UsageError("--scores: standard input ('-') can be read once");
  // Each metric comes from one file: a metric in two files is ambiguous.
  std::vector<ScoreColumn> out;
  std::vector<std::string> origin;  // the file of each column
  for (const auto& file : files) {
    // One file is asked for the metrics named; of several, each is read whole and keeps those
    // named (a file need not hold every metric asked for).
    const std::vector<std::string> asked = files.size() == 1 ? metrics : std::vector<std::string>{};
    std::vector<ScoreColumn> columns =
        file == "-" ? read_scores(std::cin, "<stdin>", ds, items, asked, {allow_missing})
                    : read_scores(file, ds, items, asked, {allow_missing});
    if (!metrics.empty())
      std::erase_if(columns, [&](const ScoreColumn& c) {
        return std::find(metrics.begin(), metrics.end(), c.metric) == metrics.end();
      });
    for (auto& c : columns) {
      for (std::size_t i = 0; i < out.size(); ++i)
        if (out[i].metric == c.metric)
          throw UsageError(fmt::format(
              "metric '{}' has scores in both '{}' and '{}': give each metric's scores once",
              c.metric, origin[i], file));
      if (c.missing > 0)
        fmt::print(stderr, "note: {} of {} items have no score of '{}' in '{}' (--allow-missing)\n",
                   c.missing, items.size(), c.metric, file);
      origin.push_back(file);
      out.push_back(std::move(c));
    }
  }
  // In the order the metrics were named, as one file gives them.
  if (!metrics.empty())
    std::stable_sort(out.begin(), out.end(), [&](const ScoreColumn& a, const ScoreColumn& b) {
      return std::find(metrics.begin(), metrics.end(), a.metric) <
             std::find(metrics.begin(), metrics.end(), b.metric);
    });
  return out;
}

ScoredData load_scored(const DataInput& data, const std::vector<std::string>& scores,
                       const std::vector<std::string>& metrics,
                       const std::vector<std::string>& dimensions, bool skip_invalid,
                       bool allow_missing, bool need_ratings) {
  ScoredData l;
  l.ds = data.load({skip_invalid});
  print_skipped(l.ds.skipped);
  l.items = all_items(l.ds);
  if (l.items.empty())
    throw InputError(data.name(), 0, "",
                     l.ds.skipped.empty()
                         ? std::string("no valid items: the dataset holds no candidates")
                         : fmt::format("no valid items: all {} were skipped", l.ds.skipped.size()));
  if (data.kind == DataInput::Kind::kFile && data.path == "-" &&
      std::find(scores.begin(), scores.end(), "-") != scores.end())
    throw UsageError("--data and --scores cannot both read standard input ('-')");
  l.columns = read_score_files(scores, l.ds, l.items, metrics, allow_missing);
  for (const auto& m : metrics) {
    const bool present = std::any_of(l.columns.begin(), l.columns.end(), [&](const auto& c) {
      return c.metric == m && c.missing < c.values.size();
    });
    if (!present)
      throw UsageError(fmt::format("metric '{}' has no scores in {}", m, describe_files(scores)));
  }
  if (l.columns.empty()) throw UsageError(fmt::format("no scores in {}", describe_files(scores)));
  const auto available = l.ds.dimensions();
  if (dimensions.empty()) {
    l.dims = available;
  } else {
    for (const auto& d : dimensions)
      if (std::find(available.begin(), available.end(), d) == available.end())
        throw UsageError(fmt::format("dimension '{}' is not in '{}' (dimensions: {})", d,
                                     data.name(), fmt::join(available, ", ")));
    l.dims = dimensions;
  }
  if (l.dims.empty() && need_ratings)
    throw UsageError(fmt::format("'{}' has no human ratings", data.name()));
  return l;
}

void print_table(const std::vector<std::vector<std::string>>& table, std::size_t left_columns) {
  std::vector<std::size_t> width(table[0].size(), 0);
  for (const auto& row : table)
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  for (std::size_t r = 0; r < table.size(); ++r) {
    std::string line;
    for (std::size_t i = 0; i < table[r].size(); ++i)
      line += i < left_columns ? fmt::format("{:<{}}  ", table[r][i], width[i])
                               : fmt::format("{:>{}}  ", table[r][i], width[i]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    fmt::print("{}\n", line);
    if (r == 0) fmt::print("{}\n", std::string(line.size(), '-'));
  }
}

ScoredData load_scored(const ScoredInputs& inputs, bool need_ratings) {
  return load_scored(inputs.data, inputs.scores, inputs.metrics, inputs.dimensions,
                     inputs.skip_invalid, inputs.allow_missing, need_ratings);
}

}  // namespace probity::cli
