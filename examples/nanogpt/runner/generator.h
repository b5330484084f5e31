// The generate loop of the llm manual over a Tailor program: feed the token window, take
// the last position's logits, sample, append, slide the window past block_size.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <functional>
#include <string>
#include <vector>

#include "examples/nanogpt/runner/sampler.h"
#include "examples/nanogpt/runner/tokenizer.h"
#include "runtime/module/module.h"

namespace nanogpt {

/// A GPT program: forward(tokens [1, T] Long) -> logits [1, T, vocab] Float, T dynamic.
class Model final {
 public:
  /// Loads `path` and its forward method and checks that its input and output have the
  /// shapes above. False with `error` set otherwise.
  bool load(const std::string& path, std::string* error);

  /// The longest window the program was planned for (its input's upper bound of T).
  size_t block_size() const { return block_size_; }
  /// The threads the kernels may use from now on (after load(); see Method::set_parallel).
  void set_parallel(const tailor::Parallel* parallel) { module_.method().set_parallel(parallel); }
  size_t vocab_size() const { return vocab_size_; }

  /// Runs the program on `count` tokens (1..block_size) and points `logits` at the last
  /// position's vocab_size() scores, valid until the next call.
  bool last_logits(const int64_t* tokens, size_t count, const float** logits, std::string* error);

 private:
  std::string path_;
  tailor::Module module_;
  size_t block_size_ = 0;
  size_t vocab_size_ = 0;
};

struct GenerateStats {
  size_t generated = 0;    // tokens sampled (an <|endoftext|> that stopped the loop included)
  bool ended = false;      // stopped at <|endoftext|>
  double seconds = 0;      // wall time of the loop
};

/// Generates up to `max_tokens` after `tokens` (1..block_size ids), calling `on_token` with
/// each new id as soon as it is sampled; stops after <|endoftext|>. False with `error` set
/// when the program fails or samples an id the tokenizer does not know.
bool generate(Model& model, const Tokenizer& tokenizer, Sampler& sampler,
              std::vector<int64_t> tokens, size_t max_tokens,
              const std::function<void(int64_t)>& on_token, GenerateStats* stats,
              std::string* error);

/// Times `repeat` forward passes of `count` tokens (after two untimed warm-up passes)
/// and stores each duration in milliseconds in `ms`. False with `error` on failure.
bool time_forward(Model& model, size_t count, size_t repeat, std::vector<double>* ms,
                  std::string* error);

}  // namespace nanogpt
