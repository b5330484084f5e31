// The generation loop of the llm app over a program built by Tailor: prefill the prompt,
// sample from the last position's logits, decode the new token (with a KV cache) or feed
// the sliding window again (without one); and the timing loops of --bench.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <functional>
#include <string>
#include <vector>

#include "apps/llm/sampler.h"
#include "runtime/module/module.h"

namespace llm {

/// A decoder program, with or without a KV cache:
///   forward(tokens [1, T] Long, input_pos [T] Long) -> logits [1, T, vocab] Float (cache:
///     the tokens go at positions input_pos; T dynamic, 1 for a decode step), or
///   forward(tokens [1, T] Long) -> logits [1, T, vocab] Float (no cache: the whole window).
/// Constant methods, where the program has them, give the generation metadata
/// (get_max_seq_len, get_vocab_size, get_bos_id, get_eos_ids), else the planned shapes do.
class Model final {
 public:
  /// Loads `path`, reads its metadata and loads its forward method for `threads` kernel
  /// threads; checks its inputs and output have the shapes above. False with `error` set
  /// otherwise.
  bool load(const std::string& path, std::string* error, uint32_t threads = 1);

  /// True when forward keeps a KV cache (takes input_pos).
  bool has_cache() const { return has_cache_; }
  /// The longest context: the cache's length, or the input's upper bound of T.
  size_t block_size() const { return block_size_; }
  size_t vocab_size() const { return vocab_size_; }
  /// Token ids that end generation (get_eos_ids; empty when the program has none).
  const std::vector<int64_t>& eos_ids() const { return eos_ids_; }
  /// The id a text starts with (get_bos_id), or -1 when the program does not say.
  int64_t bos_id() const { return bos_id_; }
  /// The memory the forward method was given (its arenas: the KV cache and the
  /// activations at their planned upper bounds, and its allocator), from its MethodMeta.
  uint64_t planned_bytes() const { return planned_bytes_; }
  /// The part of it that holds weights packed at load (runtime/kernel/prepack.h), whose
  /// file pages the loader gave back.
  uint64_t packed_bytes() const { return packed_bytes_; }
  /// The threads the kernels may use from now on (after load(); see Method::set_parallel):
  /// at most load()'s `threads`.
  tailor::Error set_parallel(const tailor::Parallel* parallel) {
    return module_.method().set_parallel(parallel);
  }

  /// Empties the cache (Method::reset_state); nothing to do without one.
  bool reset(std::string* error);

  /// Runs `count` tokens (1..block_size) at positions start..start+count-1 (without a
  /// cache, `tokens` is the whole window and `start` must be 0) and points `logits` at
  /// the last position's vocab_size() scores, valid until the next call.
  bool run(const int64_t* tokens, size_t count, size_t start, const float** logits,
           std::string* error);

 private:
  bool read_metadata(std::string* error);

  std::string path_;
  tailor::Module module_;
  bool has_cache_ = false;
  size_t block_size_ = 0;
  size_t vocab_size_ = 0;
  std::vector<int64_t> eos_ids_;
  int64_t bos_id_ = -1;
  uint64_t planned_bytes_ = 0;
  uint64_t packed_bytes_ = 0;
  std::vector<int64_t> positions_;
};

struct GenerateStats {
  size_t prompt = 0;            // tokens prefilled
  size_t generated = 0;         // tokens sampled (an end token that stopped the loop included)
  bool ended = false;           // stopped at an end token
  size_t slides = 0;            // times the full context was cut to its second half
  double prefill_seconds = 0;   // the prompt's forward pass
  double first_token_seconds = 0;  // from the start to the first sampled token
  double decode_seconds = 0;    // after the first token: one step per token
  double seconds = 0;           // wall time of the whole loop
};

/// Generates up to `max_tokens` after `tokens` (1.. ids; a prompt longer than the
/// context keeps its last block_size), calling `on_token` with each new id as soon as it
/// is sampled; stops after one of `ends`. With a cache the prompt goes in one prefill
/// call and each token after it in a decode call; when the context is full the cache is
/// emptied and the last block_size/2 tokens are prefilled again, so generation goes on
/// (without a cache the window slides by one token). False with `error` set when the
/// program fails or `on_token` does (it sets `error` then).
bool generate(Model& model, Sampler& sampler, std::vector<int64_t> tokens, size_t max_tokens,
              const std::vector<int64_t>& ends,
              const std::function<bool(int64_t, std::string*)>& on_token,
              GenerateStats* stats, std::string* error);

/// Times `repeat` forward passes of `count` tokens (after two untimed warm-up passes)
/// and stores each duration in milliseconds in `ms`. False with `error` on failure.
bool time_forward(Model& model, size_t count, size_t repeat, std::vector<double>* ms,
                  std::string* error);

/// Times `repeat` decode steps at context `context` (1..block_size), after two untimed
/// warm-up steps: with a cache, one token at position context-1 after the first context-1
/// were prefilled; without, a forward pass over all `context` tokens. Durations in ms.
bool time_decode(Model& model, size_t context, size_t repeat, std::vector<double>* ms,
                 std::string* error);

}  // namespace llm
