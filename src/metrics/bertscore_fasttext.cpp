// embed=fasttext: skip-gram vectors trained with libfasttext (Debian libfasttext-dev) on the
// dataset's own text, one thread and a seed, cached on disk. An offline stand-in for a
// contextual model: NOT the model behind published BERTScore numbers.
#include <fasttext/fasttext.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "metrics/bertscore.hpp"
#include "util/hash.hpp"

namespace probity::metrics::bertscore {

namespace {

namespace fs = std::filesystem;

// Bumped whenever the training text or arguments change meaning (part of the cache key).
constexpr int kTrainingFormat = 1;

class FastTextEmbedder final : public Embedder {
 public:
  explicit FastTextEmbedder(FastTextOptions o) : o_(std::move(o)) {}

  std::string signature() const override {
    return fmt::format(
        "embed:fasttext-trained-on-dataset|not:published-bertscore-model|model:skipgram|dim:{}|"
        "epoch:{}|minn:{}|maxn:{}|bucket:{}|min_count:{}|seed:{}|threads:1|lower:{}|"
        "lib:libfasttext-0.9.2",
        o_.dim, o_.epoch, o_.minn, o_.maxn, o_.bucket, o_.min_count, o_.seed,
        o_.lowercase ? "yes" : "no");
  }
  bool needs_fit() const override { return true; }
  std::string fit_method() const override { return "fasttext-skipgram"; }

  // The trained model in libfasttext's own .bin format (saveModel writes only to a file).
  std::string save_fit() const override {
    if (!model_) throw std::logic_error("bertscore embed=fasttext: fit() first");
    const fs::path part =
        fs::temp_directory_path() / fmt::format("probity-fasttext.{}.{}.bin", ::getpid(),
                                                reinterpret_cast<std::uintptr_t>(this));
    model_->saveModel(part.string());
    std::ifstream in(part, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const bool ok = static_cast<bool>(in) || in.eof();
    in.close();
    fs::remove(part);
    if (!ok || bytes.empty())
      throw std::runtime_error(fmt::format("cannot read back '{}'", part.string()));
    return bytes;
  }

  void load_fit(std::string_view bytes) override {
    // A .bin starts with libfasttext's magic number and format version (two int32), which
    // loadModel(istream) expects to have been read already.
    constexpr std::int32_t kMagic = 793712314, kVersion = 12;
    std::int32_t head[2] = {0, 0};
    if (bytes.size() < sizeof head) throw std::invalid_argument("the fastText model is truncated");
    std::memcpy(head, bytes.data(), sizeof head);
    if (head[0] != kMagic || head[1] != kVersion)
      throw std::invalid_argument("not a libfasttext 0.9.2 model (magic number or version)");
    auto model = std::make_unique<fasttext::FastText>();
    std::istringstream in(std::string(bytes.substr(sizeof head)));
    try {
      model->loadModel(in);
    } catch (const std::exception& e) {
      throw std::invalid_argument(fmt::format("the fastText model does not load: {}", e.what()));
    }
    if (model->getDimension() != o_.dim)
      throw std::invalid_argument(fmt::format("the fastText model has dimension {}, not ft_dim={}",
                                              model->getDimension(), o_.dim));
    model_ = std::move(model);
    trained_key_ = "frozen";
  }

  void fit(std::span<const Task> tasks) override {
    // The training text: every reference and candidate, in dataset order, one per line, as the
    // tokens embed() looks up.
    std::string text;
    for (const Task& t : tasks) {
      for (const Reference& r : t.references) append_line(text, r.text);
      for (const Candidate& c : t.candidates) append_line(text, c.text);
    }
    std::uint64_t h = util::fnv1a64(text);
    h = util::fnv1a64(signature(), h);
    h = util::fnv1a64_u64(kTrainingFormat, h);
    const std::string key = util::hex64(h);
    model_ = std::make_unique<fasttext::FastText>();
    std::string cached;
    if (!o_.cache_dir.empty()) {
      cached = (fs::path(o_.cache_dir) / "fasttext" / (key + ".bin")).string();
      if (fs::exists(cached)) {
        model_->loadModel(cached);
        trained_key_ = key;
        return;
      }
    }
    const fs::path tmp_dir =
        o_.cache_dir.empty() ? fs::temp_directory_path() : fs::path(o_.cache_dir) / "fasttext";
    fs::create_directories(tmp_dir);
    const fs::path input = tmp_dir / fmt::format("{}.{}.train.txt", key, ::getpid());
    {
      std::ofstream out(input, std::ios::binary);
      out << text;
      if (!out) throw std::runtime_error(fmt::format("cannot write '{}'", input.string()));
    }
    fasttext::Args a;
    a.input = input.string();
    a.model = fasttext::model_name::sg;
    a.loss = fasttext::loss_name::ns;
    a.dim = o_.dim;
    a.epoch = o_.epoch;
    a.minCount = o_.min_count;
    a.minn = o_.minn;
    a.maxn = o_.maxn;
    a.bucket = o_.bucket;
    a.thread = 1;  // one thread: the same vectors on every run
    a.seed = o_.seed;
    a.verbose = 0;
    try {
      model_->train(a);
    } catch (...) {
      fs::remove(input);
      throw;
    }
    fs::remove(input);
    if (!cached.empty()) {  // write beside, then rename: a concurrent run sees all or nothing
      const std::string part = fmt::format("{}.{}.part", cached, ::getpid());
      model_->saveModel(part);
      fs::rename(part, cached);
    }
    trained_key_ = key;
  }

  EmbeddedText embed(std::string_view text) const override {
    if (!model_) throw std::logic_error("bertscore embed=fasttext: fit() first");
    EmbeddedText out;
    out.dim = static_cast<std::size_t>(o_.dim);
    fasttext::Vector v(o_.dim);
    for (auto& t : word_tokens(text, o_.lowercase)) {
      model_->getWordVector(v, t);
      bool zero = true;
      for (int k = 0; k < o_.dim; ++k) zero = zero && v[k] == 0.0f;
      if (zero) continue;  // no vector for it (no known character n-gram)
      for (int k = 0; k < o_.dim; ++k) out.vectors.push_back(static_cast<double>(v[k]));
      out.tokens.push_back(std::move(t));
      out.special.push_back(0);
    }
    return out;
  }

 private:
  void append_line(std::string& out, std::string_view text) const {
    bool first = true;
    for (const auto& t : word_tokens(text, o_.lowercase)) {
      if (!first) out.push_back(' ');
      out += t;
      first = false;
    }
    out.push_back('\n');
  }

  FastTextOptions o_;
  std::unique_ptr<fasttext::FastText> model_;
  std::string trained_key_;
};

}  // namespace

std::unique_ptr<Embedder> make_fasttext_embedder(const FastTextOptions& options) {
  return std::make_unique<FastTextEmbedder>(options);
}

}  // namespace probity::metrics::bertscore
