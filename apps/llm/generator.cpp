#include "apps/llm/generator.h"

#include <string.h>

#include "runtime/platform/platform.h"

namespace llm {

using tailor::Error;
using tailor::ScalarType;

namespace {

double seconds_since(uint64_t start) {
  return tl_pal_ticks_to_ns(tl_pal_current_ticks() - start) / 1e9;
}

// Without the error log Program::method_meta() writes for a missing method.
bool has_method(const tailor::Program& program, const char* name) {
  for (size_t i = 0; i < program.num_methods(); ++i) {
    tailor::Result<const char*> found = program.method_name(i);
    if (found.ok() && strcmp(*found, name) == 0) return true;
  }
  return false;
}

}  // namespace

bool Model::read_metadata(std::string* error) {
  // Each constant method returns its value as output(s); a program without one leaves
  // the figure to the planned shapes.
  const char* names[] = {"get_max_seq_len", "get_vocab_size", "get_bos_id", "get_eos_ids"};
  for (const char* name : names) {
    if (!has_method(module_.program(), name)) continue;
    if (module_.load_method(name) != Error::Ok || module_.method().execute() != Error::Ok) {
      *error = path_ + ": cannot run its " + name + " method";
      return false;
    }
    tailor::Method& method = module_.method();
    std::vector<int64_t> values;
    for (size_t i = 0; i < method.outputs_size(); ++i) {
      if (!method.output(i).is_int() || method.output(i).to_int() < 0) {
        *error = path_ + ": " + name + " must return non-negative ints";
        return false;
      }
      values.push_back(method.output(i).to_int());
    }
    const std::string which = name;
    if (which == "get_eos_ids") {
      eos_ids_ = values;
    } else if (values.size() != 1) {
      *error = path_ + ": " + name + " must return one int";
      return false;
    } else if (which == "get_bos_id") {
      bos_id_ = values[0];
    } else {
      (which == "get_max_seq_len" ? block_size_ : vocab_size_) = static_cast<size_t>(values[0]);
    }
  }
  return true;
}

bool Model::load(const std::string& path, std::string* error, uint32_t threads) {
  path_ = path;
  Error err = module_.load(path.c_str());
  if (err != Error::Ok) {
    *error = path + ": cannot load the program: " + tailor::error_name(err);
    return false;
  }
  if (!read_metadata(error)) return false;
  tailor::BackendOptions options;
  options.num_threads = threads;  // the kernels' scratch slices, the delegate's threads
  err = module_.load_method("forward", options);
  if (err != Error::Ok) {
    *error = path + ": cannot load its forward method: " + tailor::error_name(err);
    return false;
  }
  tailor::Result<tailor::MethodMeta> meta = module_.program().method_meta("forward");
  planned_bytes_ = meta.ok() ? meta->planned_bytes(threads) : 0;
  tailor::Method& method = module_.method();
  packed_bytes_ = method.prepacked_bytes();
  // Before the first run, tensors carry their planned (upper-bound) sizes.
  has_cache_ = method.inputs_size() == 2;
  const bool io_ok = (method.inputs_size() == 1 || has_cache_) && method.outputs_size() >= 1 &&
                     method.input(0).is_tensor() && method.output(0).is_tensor() &&
                     (!has_cache_ || method.input(1).is_tensor());
  const tailor::Tensor* in = io_ok ? &method.input(0).to_tensor() : nullptr;
  const tailor::Tensor* pos = io_ok && has_cache_ ? &method.input(1).to_tensor() : nullptr;
  const tailor::Tensor* out = io_ok ? &method.output(0).to_tensor() : nullptr;
  if (!io_ok || in->dtype() != ScalarType::Long || in->dim() != 2 || in->size(0) != 1 ||
      out->dtype() != ScalarType::Float || out->dim() != 3 || out->size(2) < 1 ||
      (pos != nullptr && (pos->dtype() != ScalarType::Long || pos->dim() != 1))) {
    *error = path + ": not a decoder program: forward must take token ids [1, T] (Long), and "
                    "with a KV cache their positions [T] (Long), and return logits "
                    "[1, T, vocab] or the last position's [1, 1, vocab] (Float)";
    return false;
  }
  const size_t window = static_cast<size_t>(in->size(1));
  if (block_size_ == 0 || block_size_ > window) block_size_ = window;
  if (vocab_size_ != 0 && vocab_size_ != static_cast<size_t>(out->size(2))) {
    *error = path + ": get_vocab_size says " + std::to_string(vocab_size_) +
             " but forward returns " + std::to_string(out->size(2)) + " logits";
    return false;
  }
  vocab_size_ = static_cast<size_t>(out->size(2));
  positions_.resize(block_size_);
  return true;
}

bool Model::reset(std::string* error) {
  if (!has_cache_) return true;
  if (module_.method().reset_state() != Error::Ok) {
    *error = path_ + ": cannot reset the cache";
    return false;
  }
  return true;
}

bool Model::run(const int64_t* tokens, size_t count, size_t start, const float** logits,
                std::string* error) {
  tailor::Method& method = module_.method();
  const int64_t sizes[2] = {1, static_cast<int64_t>(count)};
  Error err = method.set_input(0, ScalarType::Long, tokens, tailor::ArrayRef<int64_t>(sizes, 2));
  if (err == Error::Ok && has_cache_) {
    if (start + count > block_size_) {
      *error = path_ + ": positions past the cache's " + std::to_string(block_size_);
      return false;
    }
    for (size_t i = 0; i < count; ++i) positions_[i] = static_cast<int64_t>(start + i);
    err = method.set_input(1, ScalarType::Long, positions_.data(),
                           tailor::ArrayRef<int64_t>(sizes + 1, 1));
  }
  if (err == Error::Ok) err = method.execute();
  if (err != Error::Ok) {
    *error = path_ + ": forward on " + std::to_string(count) + " tokens failed: " +
             tailor::error_name(err);
    return false;
  }
  // Every position's logits, or (a cached GPT's) only the last one's: sampling reads no other.
  const tailor::Tensor& out = method.output(0).to_tensor();
  const int64_t rows = out.dim() == 3 ? out.size(1) : 0;
  if ((rows != static_cast<int64_t>(count) && rows != 1) ||
      out.size(2) != static_cast<int64_t>(vocab_size_)) {
    *error = path_ + ": forward returned logits of an unexpected shape";
    return false;
  }
  *logits = out.const_data<float>() + (rows - 1) * vocab_size_;
  return true;
}

bool generate(Model& model, Sampler& sampler, std::vector<int64_t> tokens, size_t max_tokens,
              const std::vector<int64_t>& ends,
              const std::function<bool(int64_t, std::string*)>& on_token,
              GenerateStats* stats, std::string* error) {
  *stats = GenerateStats();
  const size_t block = model.block_size();
  const uint64_t start = tl_pal_current_ticks();
  uint64_t decode_start = start;
  // The tokens the model sees: the cache's contents, or the window fed again.
  size_t seen = tokens.size() < block ? tokens.size() : block;
  std::vector<int64_t> window(tokens.end() - seen, tokens.end());
  const float* logits = nullptr;
  stats->prompt = seen;
  if (!model.reset(error) || !model.run(window.data(), seen, 0, &logits, error)) return false;
  stats->prefill_seconds = seconds_since(start);
  while (stats->generated < max_tokens && !stats->ended) {
    const int64_t next = sampler.sample(logits, model.vocab_size(), window);
    tokens.push_back(next);
    ++stats->generated;
    for (int64_t end : ends) stats->ended = stats->ended || next == end;
    if (stats->generated == 1) {
      stats->first_token_seconds = seconds_since(start);
      decode_start = tl_pal_current_ticks();
    }
    if (!on_token(next, error)) return false;
    if (stats->generated == max_tokens || stats->ended) break;
    if (model.has_cache() && seen < block) {
      // Decode: the new token alone, at the next position.
      window.push_back(next);
      if (!model.run(&next, 1, seen++, &logits, error)) return false;
      continue;
    }
    // Full cache: keep the last half of the context and prefill it again. No cache: the
    // window slides by one token.
    seen = model.has_cache() ? block / 2 : (tokens.size() < block ? tokens.size() : block);
    if (model.has_cache()) ++stats->slides;
    window.assign(tokens.end() - seen, tokens.end());
    if (!model.reset(error) || !model.run(window.data(), seen, 0, &logits, error)) return false;
  }
  stats->decode_seconds = stats->generated > 0 ? seconds_since(decode_start) : 0;
  stats->seconds = seconds_since(start);
  return true;
}

namespace {

// Token ids 0, 1, ... (modulo the vocabulary) to time with.
std::vector<int64_t> sample_tokens(const Model& model, size_t count) {
  std::vector<int64_t> tokens(count);
  for (size_t i = 0; i < count; ++i) tokens[i] = static_cast<int64_t>(i % model.vocab_size());
  return tokens;
}

// Calls `step` 2 + repeat times and keeps the durations (ms) of all but the first two.
template <typename Step>
bool time_steps(size_t repeat, std::vector<double>* ms, Step&& step) {
  ms->clear();
  for (size_t i = 0; i < repeat + 2; ++i) {
    const uint64_t start = tl_pal_current_ticks();
    if (!step()) return false;
    if (i >= 2) ms->push_back(tl_pal_ticks_to_ns(tl_pal_current_ticks() - start) / 1e6);
  }
  return true;
}

}  // namespace

bool time_forward(Model& model, size_t count, size_t repeat, std::vector<double>* ms,
                  std::string* error) {
  const std::vector<int64_t> tokens = sample_tokens(model, count);
  const float* logits = nullptr;
  return time_steps(repeat, ms,
                    [&] { return model.run(tokens.data(), count, 0, &logits, error); });
}

bool time_decode(Model& model, size_t context, size_t repeat, std::vector<double>* ms,
                 std::string* error) {
  const std::vector<int64_t> tokens = sample_tokens(model, context);
  const float* logits = nullptr;
  // With a cache: the first context-1 tokens prefilled once, then the last one decoded
  // at its position again and again. Without: the whole context, each time.
  const size_t last = context - 1;
  if (model.has_cache() && last > 0 &&
      (!model.reset(error) || !model.run(tokens.data(), last, 0, &logits, error))) {
    return false;
  }
  return time_steps(repeat, ms, [&] {
    return model.has_cache() ? model.run(tokens.data() + last, 1, last, &logits, error)
                             : model.run(tokens.data(), context, 0, &logits, error);
  });
}

}  // namespace llm
