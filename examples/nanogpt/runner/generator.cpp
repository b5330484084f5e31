#include "examples/nanogpt/runner/generator.h"

#include "runtime/platform/platform.h"

namespace nanogpt {

using tailor::Error;
using tailor::ScalarType;

bool Model::load(const std::string& path, std::string* error) {
  path_ = path;
  Error err = module_.load(path.c_str());
  if (err != Error::Ok) {
    *error = path + ": cannot load the program: " + tailor::error_name(err);
    return false;
  }
  err = module_.load_method("forward");
  if (err != Error::Ok) {
    *error = path + ": cannot load its forward method: " + tailor::error_name(err);
    return false;
  }
  tailor::Method& method = module_.method();
  // Before the first run, tensors carry their planned (upper-bound) sizes.
  const bool io_ok = method.inputs_size() == 1 && method.outputs_size() >= 1 &&
                     method.input(0).is_tensor() && method.output(0).is_tensor();
  const tailor::Tensor* in = io_ok ? &method.input(0).to_tensor() : nullptr;
  const tailor::Tensor* out = io_ok ? &method.output(0).to_tensor() : nullptr;
  if (!io_ok || in->dtype() != ScalarType::Long || in->dim() != 2 || in->size(0) != 1 ||
      out->dtype() != ScalarType::Float || out->dim() != 3 || out->size(2) < 1) {
    *error = path + ": not a GPT program: forward must take token ids [1, T] (Long) and "
                    "return logits [1, T, vocab] (Float)";
    return false;
  }
  block_size_ = static_cast<size_t>(in->size(1));
  vocab_size_ = static_cast<size_t>(out->size(2));
  return true;
}

bool Model::last_logits(const int64_t* tokens, size_t count, const float** logits,
                        std::string* error) {
  tailor::Method& method = module_.method();
  const int64_t sizes[2] = {1, static_cast<int64_t>(count)};
  Error err = method.set_input(0, ScalarType::Long, tokens, tailor::ArrayRef<int64_t>(sizes, 2));
  if (err == Error::Ok) err = method.execute();
  if (err != Error::Ok) {
    *error = path_ + ": forward on " + std::to_string(count) + " tokens failed: " +
             tailor::error_name(err);
    return false;
  }
  const tailor::Tensor& out = method.output(0).to_tensor();
  if (out.dim() != 3 || out.size(1) != static_cast<int64_t>(count) ||
      out.size(2) != static_cast<int64_t>(vocab_size_)) {
    *error = path_ + ": forward returned logits of an unexpected shape";
    return false;
  }
  *logits = out.const_data<float>() + (count - 1) * vocab_size_;
  return true;
}

bool generate(Model& model, const Tokenizer& tokenizer, Sampler& sampler,
              std::vector<int64_t> tokens, size_t max_tokens,
              const std::function<void(int64_t)>& on_token, GenerateStats* stats,
              std::string* error) {
  *stats = GenerateStats();
  const uint64_t start = tl_pal_current_ticks();
  std::vector<int64_t> window;
  while (stats->generated < max_tokens && !stats->ended) {
    // Slide: the model sees at most the last block_size tokens.
    const size_t count = tokens.size() < model.block_size() ? tokens.size() : model.block_size();
    window.assign(tokens.end() - count, tokens.end());
    const float* logits = nullptr;
    if (!model.last_logits(window.data(), count, &logits, error)) return false;
    const int64_t next = sampler.sample(logits, model.vocab_size(), window);
    if (!tokenizer.has_id(next)) {
      *error = "the model produced token id " + std::to_string(next) +
               ", which the vocabulary does not have: vocab.json does not belong to this model";
      return false;
    }
    tokens.push_back(next);
    ++stats->generated;
    stats->ended = next == tokenizer.end_of_text();
    on_token(next);
  }
  stats->seconds = tl_pal_ticks_to_ns(tl_pal_current_ticks() - start) / 1e9;
  return true;
}

bool time_forward(Model& model, size_t count, size_t repeat, std::vector<double>* ms,
                  std::string* error) {
  std::vector<int64_t> tokens(count);
  for (size_t i = 0; i < count; ++i) tokens[i] = static_cast<int64_t>(i % model.vocab_size());
  const float* logits = nullptr;
  ms->clear();
  for (size_t i = 0; i < repeat + 2; ++i) {
    const uint64_t start = tl_pal_current_ticks();
    if (!model.last_logits(tokens.data(), count, &logits, error)) return false;
    if (i >= 2) ms->push_back(tl_pal_ticks_to_ns(tl_pal_current_ticks() - start) / 1e6);
  }
  return true;
}

}  // namespace nanogpt
