// The shared input flags (input_options.hpp).
#include "cli/input_options.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <list>

#include "probity/error.hpp"
#include "probity/inputs.hpp"

namespace probity::cli {
namespace {

struct InputFlags {
  std::string map, format, mtme, lp;
  std::vector<std::string> hyp, ref, human;
};

// The flags of every command; CLI11 keeps pointers into them, so they never move.
std::list<InputFlags>& all_flags() {
  static std::list<InputFlags> flags;
  return flags;
}

// An existing file, or "-" for standard input.
CLI::Validator file_or_stdin() {
  return CLI::Validator(
      [](std::string& s) -> std::string { return s == "-" ? std::string() : CLI::ExistingFile(s); },
      "FILE|-");
}

void print_note(const std::string& message) {
  fmt::print(stderr, "note: {}\n", message);
}

// Checks the flags and says how to read the data: `data` holds the --data files as given.
std::vector<DataInput> resolve(const InputFlags& f, std::vector<DataInput> data,
                               bool data_required) {
  const bool plain = !f.hyp.empty(), mtme = !f.mtme.empty();
  if (int(!data.empty()) + int(plain) + int(mtme) > 1)
    throw CLI::ValidationError("--data, --hyp and --mtme",
                               "give the data one way: --data FILE, --hyp FILE --ref FILE, or "
                               "--mtme DIR --lp PAIR");
  if (!plain && (!f.ref.empty() || !f.human.empty()))
    throw CLI::ValidationError("--ref/--human", "plain-text references and scores go with --hyp");
  // --mtme without --lp is refused where the pair is read (it lists the pairs there), since
  // rank --protocol takes the protocol's pairs by default.
  if (!mtme && !f.lp.empty())
    throw CLI::ValidationError("--mtme/--lp", "--lp PAIR (e.g. en-de) goes with --mtme DIR");
  if ((plain || mtme) && (!f.map.empty() || !f.format.empty()))
    throw CLI::ValidationError("--map/--format", "apply to --data files, not to --hyp or --mtme");
  if (data.empty() && !plain && !mtme) {
    if (data_required)
      throw CLI::RequiredError("--data (or --hyp FILE --ref FILE, or --mtme DIR --lp PAIR)");
    return data;
  }
  DataInput input;
  if (plain) {
    input.kind = DataInput::Kind::kPlainText;
    input.plain.hypotheses = f.hyp;
    input.plain.references = f.ref;
    input.plain.human = f.human;
    if (!f.human.empty() && f.human.size() != f.hyp.size())
      throw CLI::ValidationError("--human", fmt::format("given {} time(s) for {} --hyp file(s): "
                                                        "one file of scores per hypothesis file",
                                                        f.human.size(), f.hyp.size()));
    return {input};
  }
  if (mtme) {
    input.kind = DataInput::Kind::kMtme;
    input.path = f.mtme;
    input.lp = f.lp;
    input.spec.note = print_note;
    return {input};
  }
  try {
    if (!f.format.empty()) input.spec.format = parse_data_format(f.format);
    if (!f.map.empty()) input.spec.map = read_column_map(f.map);
  } catch (const std::exception& e) {
    throw CLI::ValidationError(f.format.empty() || !f.map.empty() ? "--map" : "--format", e.what());
  }
  input.spec.note = print_note;
  for (auto& d : data) d.spec = input.spec;
  return data;
}

template <class Target>
void add(CLI::App* cmd, Target& data) {
  InputFlags& f = all_flags().emplace_back();
  CLI::Option* data_option = cmd->get_option("--data");
  const bool required = data_option->get_required();
  data_option->required(false);
  // Its CLI::ExistingFile (the first, unnamed validator) gives way to one that also takes "-".
  try {
    data_option->get_validator()->active(false);
  } catch (const CLI::OptionNotFound&) {
  }
  data_option->check(file_or_stdin());
  data_option->description(data_option->get_description() +
                           ". '-' reads standard input; .jsonl, .json, .csv and .tsv by extension "
                           "(or --format); flat rows through --map");
  cmd->add_option("--map", f.map,
                  "Column map for flat CSV/TSV/JSONL/JSON rows (one candidate per row), e.g. "
                  "task=doc_id,candidate=prediction,reference=ref,human=score,system=model, or "
                  "@FILE; a dotted path (meta.doc_id, refs.0) reaches into nested JSON; "
                  "unmapped columns are ignored (listed in a note)");
  cmd->add_option("--format", f.format,
                  "Format of --data: jsonl, json, csv or tsv (default: by "
                  "extension; JSONL for '-')");
  cmd->add_option("--hyp", f.hyp,
                  "Plain-text hypotheses, one segment per line (sacreBLEU style; task ids are "
                  "line numbers); repeatable, one system per file; '-' reads standard input "
                  "(one of --hyp, --ref and --human may be '-')")
      ->check(file_or_stdin());
  cmd->add_option("--ref", f.ref, "Plain-text references for --hyp, line by line; repeatable")
      ->check(file_or_stdin());
  cmd->add_option("--human", f.human,
                  "Plain-text human scores for --hyp (one number or None per line); one file "
                  "per --hyp, in the same order")
      ->check(file_or_stdin());
  cmd->add_option("--mtme", f.mtme,
                  "An mt-metrics-eval test-set directory (sources/, references/, "
                  "system-outputs/, human-scores/), with --lp")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--lp", f.lp, "Language pair of --mtme, e.g. en-de");
  cmd->parse_complete_callback([&f, &data, required] {
    std::vector<DataInput> inputs;
    if constexpr (std::is_same_v<Target, DataInput>) {
      if (!data.path.empty()) inputs.push_back(data);
    } else {
      inputs = data;
    }
    inputs = resolve(f, std::move(inputs), required);
    if constexpr (std::is_same_v<Target, DataInput>) {
      data = inputs.empty() ? DataInput() : inputs.front();
    } else {
      data = std::move(inputs);
    }
  });
}

}  // namespace

void add_input_options(CLI::App* cmd, DataInput& data) {
  add(cmd, data);
}

void add_input_options(CLI::App* cmd, std::vector<DataInput>& data) {
  add(cmd, data);
}

}  // namespace probity::cli
