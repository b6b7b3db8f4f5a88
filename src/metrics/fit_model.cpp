// Frozen fits (probity/fit.hpp): `probity fit` writes a model file, fit=FILE reads it back into
// the metric and wraps it so that it fits nothing more.
#include <fmt/format.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "metrics/builtin.hpp"
#include "predict/pool.hpp"
#include "probity/dataset.hpp"
#include "probity/error.hpp"
#include "probity/fit.hpp"
#include "probity/llm.hpp"
#include "probity/version.hpp"
#include "util/output_file.hpp"

namespace probity {
namespace {

using json = nlohmann::json;

constexpr std::string_view kFormat = "probity-model";
constexpr std::string_view kVersionField = "|version:probity-";

// A signature without its version field: what a model file must match (a model fitted by
// another probity version loads when the metric is otherwise the same).
std::string unversioned(const std::string& signature) {
  const auto at = signature.rfind(kVersionField);
  return at == std::string::npos ? signature : signature.substr(0, at);
}

// The signature with "|fit:sha256-<digest>" before its version field.
std::string with_fit_field(const std::string& signature, const std::string& digest) {
  const std::string field = "|fit:sha256-" + digest;
  const auto at = signature.rfind(kVersionField);
  if (at == std::string::npos) return signature + field;
  return signature.substr(0, at) + field + signature.substr(at);
}

// A metric whose fit came from a model file: nothing left to fit; the rest is the inner one's.
class FrozenFit final : public Metric {
 public:
  FrozenFit(std::unique_ptr<Metric> inner, std::string digest)
      : inner_(std::move(inner)), digest_(std::move(digest)) {}

  std::string name() const override { return inner_->name(); }
  std::string signature() const override { return with_fit_field(inner_->signature(), digest_); }
  std::string default_display_name() const override { return inner_->default_display_name(); }
  std::vector<std::string> parts() const override { return inner_->parts(); }
  std::size_t primary_part() const override { return inner_->primary_part(); }
  std::size_t num_stats() const override { return inner_->num_stats(); }
  void fit(std::span<const Task> /*tasks*/) override {}
  bool needs_fit() const override { return false; }
  std::optional<std::size_t> fit_passes() const override { return 0; }
  bool needs_references() const override { return inner_->needs_references(); }
  NegativeSpec negatives() const override { return inner_->negatives(); }
  void item_stats(const MetricInput& input, std::span<double> stats) const override {
    inner_->item_stats(input, stats);
  }
  void sentence_score(std::span<const double> stats, std::span<double> parts) const override {
    inner_->sentence_score(stats, parts);
  }
  void corpus_score(std::span<const double> summed, std::span<double> parts) const override {
    inner_->corpus_score(summed, parts);
  }
  CorpusAggregation corpus_aggregation() const override { return inner_->corpus_aggregation(); }
  bool higher_is_better() const override { return inner_->higher_is_better(); }
  std::string undefined_reason(std::span<const double> stats) const override {
    return inner_->undefined_reason(stats);
  }
  std::size_t batch_size() const override { return inner_->batch_size(); }
  void prefetch(std::span<const MetricInput> inputs) const override { inner_->prefetch(inputs); }
  std::string explain(const MetricInput& input) const override { return inner_->explain(input); }
  std::size_t references_used(const Task& task) const override {
    return inner_->references_used(task);
  }
  bool has(MetricCapability capability) const override { return inner_->has(capability); }
  bool scores_new_texts() const override { return inner_->scores_new_texts(); }
  std::string corpus_breakdown(std::span<const double> summed) const override {
    return inner_->corpus_breakdown(summed);
  }
  std::optional<JudgeDesign> judge_design() const override { return inner_->judge_design(); }

 private:
  std::unique_ptr<Metric> inner_;
  std::string digest_;
};

std::string read_whole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot be opened");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError(path, 0, "", "read error");
  return bytes;
}

// A string field of the header, or InputError naming it.
std::string text_field(const json& header, const std::string& path, const char* field) {
  const auto it = header.find(field);
  if (it == header.end() || !it->is_string())
    throw InputError(path, 0, field, "missing from the model header, or not a string");
  return it->get<std::string>();
}

// The canonical bytes of what a fit sees, for the corpus digest: ids and texts, in order.
std::string corpus_sha256(const Dataset& data) {
  std::string all;
  auto put = [&](std::string_view s) {
    all += std::to_string(s.size());
    all.push_back(':');
    all.append(s);
  };
  for (const Task& t : data.tasks) {
    put("task");
    put(t.task_id);
    put(t.source);
    for (const Reference& r : t.references) {
      put("ref");
      put(r.id);
      put(r.text);
    }
    for (const Candidate& c : t.candidates) {
      put("cand");
      put(c.id);
      put(c.system);
      put(c.text);
    }
  }
  return llm::sha256_hex(all);
}

}  // namespace

namespace metrics {

std::unique_ptr<Metric> load_frozen_fit(std::unique_ptr<Metric> inner, const std::string& base,
                                        const std::string& path) {
  const std::string bytes = read_whole(path);
  const auto eol = bytes.find('\n');
  json header;
  try {
    if (eol == std::string::npos) throw std::invalid_argument("no end of line");
    header = json::parse(bytes.substr(0, eol));
  } catch (const std::exception& e) {
    throw InputError(path, 1, "",
                     fmt::format("not a probity model file (written by `probity fit`): the "
                                 "first line is not a JSON header ({})",
                                 e.what()));
  }
  if (!header.is_object() || text_field(header, path, "format") != kFormat)
    throw InputError(path, 1, "format", fmt::format("not '{}'", kFormat));
  const auto version = header.find("format_version");
  if (version == header.end() || !version->is_number_integer() ||
      version->get<int>() != kModelFormatVersion)
    throw UsageError(fmt::format(
        "model file '{}': field 'format_version' is {}; this probity reads version {}", path,
        version == header.end() ? "missing" : version->dump(), kModelFormatVersion));
  const std::string metric = text_field(header, path, "metric");
  if (metric != base)
    throw UsageError(
        fmt::format("model file '{}': field 'metric' is '{}', not '{}': it is the "
                    "fit of another metric",
                    path, metric, base));
  const std::string expected = unversioned(inner->signature());
  const std::string fitted = text_field(header, path, "signature");
  if (fitted != expected)
    throw UsageError(fmt::format(
        "model file '{}': field 'signature' is\n  {}\nbut the metric '{}' is\n  {}\n(fitted with "
        "other options: fit again with these, or use the options of field 'spec': '{}')",
        path, fitted, inner->name(), expected, header.value("spec", "")));
  if (inner->fit_method().empty())
    throw UsageError(
        fmt::format("model file '{}': metric '{}' has no fit to load", path, inner->name()));
  const auto sections_it = header.find("sections");
  if (sections_it == header.end() || !sections_it->is_array())
    throw InputError(path, 1, "sections", "missing from the model header, or not a list");
  Metric::FitSections sections;
  std::size_t at = eol + 1;
  for (const auto& s : *sections_it) {
    if (!s.is_object() || !s.contains("name") || !s["name"].is_string() || !s.contains("bytes") ||
        !s["bytes"].is_number_unsigned() || !s.contains("sha256") || !s["sha256"].is_string())
      throw InputError(path, 1, "sections", "each section needs a name, bytes and sha256");
    const std::string name = s["name"].get<std::string>();
    const auto size = s["bytes"].get<std::uint64_t>();
    if (size > bytes.size() - at)
      throw InputError(path, 0, fmt::format("section '{}'", name),
                       fmt::format("cut short: {} bytes announced, {} left in the file", size,
                                   bytes.size() - at));
    std::string data = bytes.substr(at, static_cast<std::size_t>(size));
    at += static_cast<std::size_t>(size);
    if (llm::sha256_hex(data) != s["sha256"].get<std::string>())
      throw InputError(path, 0, fmt::format("section '{}'", name),
                       "does not match its sha256: the file is corrupted");
    sections.emplace_back(name, std::move(data));
  }
  if (at != bytes.size())
    throw InputError(path, 0, "sections",
                     fmt::format("{} bytes after the last section", bytes.size() - at));
  try {
    inner->load_fit(sections);
  } catch (const std::invalid_argument& e) {
    throw InputError(path, 0, "sections",
                     fmt::format("the fitted state does not load: {}", e.what()));
  }
  return std::make_unique<FrozenFit>(std::move(inner), llm::sha256_hex(bytes));
}

}  // namespace metrics

std::string freezable_metrics(const MetricRegistry& registry) {
  std::string out;
  const MetricContext offline{nullptr, std::make_shared<predict::PredictorPool>()};
  for (const MetricInfo& info : registry.list()) {
    try {
      const auto metric = registry.create(info.name, offline);
      if (!metric->needs_fit() || metric->fit_method().empty()) continue;
      out += out.empty() ? info.name : ", " + info.name;
    } catch (const std::exception&) {
      // needs an argument, a file or a model: not freezable as named
    }
  }
  return out;
}

FitResult fit_model(const FitRequest& request, const MetricRegistry& registry,
                    const MetricContext& context) {
  const MetricSpec spec = MetricSpec::parse(request.metric);
  for (const char* key : {"fit", "style"})
    if (spec.given(key))
      throw UsageError(
          fmt::format("metric '{}': {}= cannot be frozen by `probity fit` (fit "
                      "the metric without it)",
                      request.metric, key));
  if (const std::string* refs = spec.given("refs"); refs && *refs != "all" && *refs != "first")
    throw UsageError(
        fmt::format("metric '{}': refs={} cannot be frozen by `probity fit` (fit "
                    "the metric without it)",
                    request.metric, *refs));
  // A pool of its own: the fit must not reuse a predictor the context fitted on other data.
  MetricContext own = context;
  own.predictors = std::make_shared<predict::PredictorPool>();
  std::unique_ptr<Metric> metric = registry.create(spec, own);
  if (!metric->needs_fit())
    throw UsageError(
        fmt::format("metric '{}' does not fit on data: it is a fixed function "
                    "already, with nothing to freeze",
                    request.metric));
  const std::string method = metric->fit_method();
  if (method.empty())
    throw UsageError(
        fmt::format("metric '{}' fits on data in a way `probity fit` cannot freeze (only "
                    "IDF tables, fastText vectors and n-gram models have a frozen form); these "
                    "can be frozen: {} (and the mi:.../ar cells with the n-gram predictor)",
                    request.metric, freezable_metrics(registry)));
  const std::string signature = unversioned(metric->signature());

  const std::vector<util::NamedInput> inputs = {{request.data.name(), "--data"}};
  const std::vector<util::PlannedOutput> outputs = {{request.out, "--out", {}}};
  util::refuse_overwriting_inputs(inputs, outputs);
  ReadOptions read;
  read.skip_invalid = request.skip_invalid;
  const Dataset data = request.data.load(read);
  const Metric::FitMinimum minimum = metric->fit_minimum();
  if (data.tasks.size() < minimum.tasks)
    throw UsageError(
        fmt::format("metric '{}': a frozen fit ({}) needs at least {} tasks and '{}' has {}: {}",
                    request.metric, method, minimum.tasks, request.data.name(), data.tasks.size(),
                    minimum.reason));
  metric->fit(data.tasks);
  const Metric::FitSections sections = metric->save_fit();

  FitResult result;
  result.out = request.out;
  result.metric = request.metric;
  result.method = method;
  result.tasks = data.tasks.size();
  for (const Task& t : data.tasks) {
    result.references += t.references.size();
    result.candidates += t.candidates.size();
  }
  result.corpus_sha256 = corpus_sha256(data);
  result.skipped = data.skipped;

  json options = json::object();
  for (const auto& [key, value] : spec.options())
    if (key != "name") options[key] = value;
  json listed = json::array();
  for (const auto& [name, bytes] : sections)
    listed.push_back({{"name", name}, {"bytes", bytes.size()}, {"sha256", llm::sha256_hex(bytes)}});
  const json header = {{"format", kFormat},
                       {"format_version", kModelFormatVersion},
                       {"probity_version", version()},
                       {"metric", spec.base()},
                       {"spec", request.metric},
                       {"options", options},
                       {"signature", signature},
                       {"method", method},
                       {"minimum_tasks", minimum.tasks},
                       {"corpus",
                        {{"name", request.data.name()},
                         {"tasks", result.tasks},
                         {"references", result.references},
                         {"candidates", result.candidates},
                         {"sha256", result.corpus_sha256}}},
                       {"sections", listed}};
  std::string file = header.dump();
  file.push_back('\n');
  for (const auto& [name, bytes] : sections) file += bytes;
  util::write_file_atomically(request.out, file);
  result.model_sha256 = llm::sha256_hex(file);
  result.bytes = file.size();
  return result;
}

}  // namespace probity
