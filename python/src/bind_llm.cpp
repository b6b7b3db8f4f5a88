// An engine's LLM session from Python: the same configuration as the command line's --config /
// --llm-* / --cache flags, used by every later metric of the engine that uses a model
// (llm-judge, predictor=llm, expert,llm=..., style=llm), its LLM strategies (llm-D, ...) and
// audit; the usage accounting as JSON.
#include <fmt/format.h>

#include <optional>
#include <string>
#include <thread>

#include "common.hpp"
#include "llm/prompts.hpp"
#include "llm/session.hpp"
#include "llm/structured.hpp"
#include "probity/cache_tools.hpp"
#include "probity/llm.hpp"

namespace probity::python {

void bind_llm(EngineClass& engine) {
  engine.def(
      "configure_llm",
      [](PyEngine& e, const std::string& config_path, std::optional<std::string> base_url,
         std::optional<std::string> model, std::optional<std::string> api_key_env,
         std::optional<std::size_t> concurrency, std::optional<std::string> cache,
         std::optional<std::string> cache_mode, std::optional<std::string> structured,
         std::optional<std::string> server, std::optional<int> max_tokens,
         std::optional<std::string> batch, std::optional<std::string> batch_dir,
         std::optional<double> budget_usd) {
        llm::LlmConfig config =
            config_path.empty() ? llm::LlmConfig{} : llm::load_config(config_path);
        llm::CliOverrides o;
        o.base_url = std::move(base_url);
        o.model = std::move(model);
        o.api_key_env = std::move(api_key_env);
        o.concurrency = concurrency;
        o.cache = std::move(cache);
        o.cache_mode = std::move(cache_mode);
        if (structured) o.structured = llm::parse_structured_mode(*structured);
        if (server) o.server = llm::parse_server_kind(*server);
        if (max_tokens && *max_tokens < 1)
          throw UsageError(fmt::format("max_tokens must be at least 1, got {}", *max_tokens));
        o.max_tokens = max_tokens;
        if (batch) o.batch = llm::parse_batch_mode(*batch);
        o.batch_dir = std::move(batch_dir);
        if (budget_usd && !(*budget_usd >= 0))
          throw UsageError(fmt::format("budget_usd must be at least 0, got {}", *budget_usd));
        o.budget_usd = budget_usd;
        llm::apply_cli_overrides(config, o);
        llm::apply_environment(config);
        auto session = std::make_shared<llm::Session>(std::move(config));
        // Ctrl-C while a batch waits for answers: the main thread (where Python delivers
        // signals) asks Python; the request cancels the batch and raises KeyboardInterrupt.
        session->set_interrupt_check([main = std::this_thread::get_id()] {
          if (std::this_thread::get_id() != main) return false;
          py::gil_scoped_acquire gil;
          return PyErr_CheckSignals() != 0;  // leaves KeyboardInterrupt set
        });
        py::gil_scoped_release release;
        std::lock_guard lock(e.mutex);
        e.engine.set_llm(std::move(session));
      },
      py::arg("config") = "", py::arg("base_url") = py::none(), py::arg("model") = py::none(),
      py::arg("api_key_env") = py::none(), py::arg("concurrency") = py::none(),
      py::arg("cache") = py::none(), py::arg("cache_mode") = py::none(),
      py::arg("structured") = py::none(), py::arg("server") = py::none(),
      py::arg("max_tokens") = py::none(), py::arg("batch") = py::none(),
      py::arg("batch_dir") = py::none(), py::arg("budget_usd") = py::none());
  engine.def("disconnect_llm", [](PyEngine& e) {
    py::gil_scoped_release release;
    std::lock_guard lock(e.mutex);
    e.engine.set_llm(nullptr);
  });
  engine.def("llm_usage", [](PyEngine& e) -> std::optional<std::string> {
    const auto& session = e.engine.llm_or_null();
    if (!session) return std::nullopt;
    return session->accounting().to_json();
  });
}

void bind_cache(py::module_& m) {
  m.def(
      "cache_stats",
      [](const std::string& cache) {
        llm::Cache c(cache, llm::CacheMode::kReadOnly);
        const auto s = llm::cache_stats(c);
        py::dict d;
        d["entries"] = s.entries;
        d["bytes"] = s.bytes;
        d["oldest"] = s.oldest;
        d["newest"] = s.newest;
        d["batches"] = s.batches;
        d["open_batches"] = s.open_batches;
        return d;
      },
      py::arg("cache"));
  m.def(
      "cache_batches",
      [](const std::string& cache) {
        llm::Cache c(cache, llm::CacheMode::kReadOnly);
        py::list out;
        for (const auto& r : c.batches()) {
          py::dict d;
          d["id"] = r.id;
          d["provider"] = r.provider;
          d["endpoint"] = r.endpoint;
          d["model"] = r.model;
          d["status"] = r.status;
          d["open"] = r.open;
          d["requests"] = r.keys.size();
          d["completed"] = r.completed;
          d["failed"] = r.failed;
          d["created"] = r.created;
          d["updated"] = r.updated;
          d["estimated_cost_usd"] = r.estimated_cost_usd;
          d["cost_usd"] = r.cost_usd;
          out.append(d);
        }
        return out;
      },
      py::arg("cache"));
  m.def(
      "cache_import",
      [](const std::string& cache, const std::vector<std::string>& files) {
        llm::Cache c(cache, llm::CacheMode::kReadWrite);
        const auto s = llm::import_into_cache(c, files);
        py::dict d;
        d["files"] = s.files;
        d["lines"] = s.lines;
        d["answers"] = s.answers;
        d["kept"] = s.kept;
        d["failures"] = s.failures;
        d["closed_batches"] = s.closed_batches;
        return d;
      },
      py::arg("cache"), py::arg("files"));
  m.def(
      "cache_export",
      [](const std::string& cache, const std::string& out) {
        llm::Cache c(cache, llm::CacheMode::kReadOnly);
        return llm::export_cache(c, out);
      },
      py::arg("cache"), py::arg("out"));
  m.def(
      "cache_merge",
      [](const std::string& cache, const std::vector<std::string>& files) {
        for (const auto& f : files)
          if (f == cache)
            throw UsageError(fmt::format("'{}' is both the target and an input of the merge", f));
        llm::Cache c(cache, llm::CacheMode::kReadWrite);
        const auto s = llm::merge_caches(c, files);
        py::dict d;
        d["files"] = s.files;
        d["read"] = s.read;
        d["written"] = s.written;
        d["batches"] = s.batches;
        return d;
      },
      py::arg("cache"), py::arg("files"));
}

}  // namespace probity::python
