// Sampler: picks the next token from one position's logits (greedy, temperature, top-k,
// top-p, repetition penalty) with its own seeded generator, so a seed gives the same
// tokens on every platform.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <vector>

namespace llm {

struct SamplerOptions {
  bool greedy = false;             // argmax; also when temperature <= 0
  float temperature = 1.0f;
  size_t top_k = 0;                // 0: all tokens
  float top_p = 1.0f;              // keep the fewest most likely tokens whose mass >= top_p
  float repetition_penalty = 1.0f; // > 1 discourages tokens already in the window
  uint64_t seed = 0;
};

class Sampler final {
 public:
  explicit Sampler(const SamplerOptions& options);

  /// The next token for `logits` (`size` of them); `recent` are the tokens the
  /// repetition penalty applies to.
  int64_t sample(const float* logits, size_t size, const std::vector<int64_t>& recent);

 private:
  double next_uniform();  // [0, 1)

  SamplerOptions options_;
  uint64_t state_;
  std::vector<float> scores_;
  std::vector<int32_t> order_;
  std::vector<double> probs_;
};

}  // namespace llm
