#include "apps/llm/sampler.h"

#include <math.h>

#include <algorithm>

#include "apps/llm/argmax.h"

namespace llm {

Sampler::Sampler(const SamplerOptions& options) : options_(options), state_(options.seed) {}

// splitmix64: small, fast, and the same sequence everywhere (std::uniform_*_distribution
// is not specified bit for bit).
double Sampler::next_uniform() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * (1.0 / 9007199254740992.0);  // 53 bits
}

int64_t Sampler::sample(const float* logits, size_t size, const std::vector<int64_t>& recent) {
  // The logits are read in place; only a repetition penalty needs a copy to change.
  const float* scores = logits;
  if (options_.repetition_penalty != 1.0f) {
    scores_.assign(logits, logits + size);
    // Divide a positive score, multiply a negative one: both make the token less likely.
    std::vector<bool> seen(size, false);
    for (int64_t id : recent) {
      if (id < 0 || static_cast<size_t>(id) >= size || seen[id]) continue;
      seen[id] = true;
      float& s = scores_[id];
      s = s > 0 ? s / options_.repetition_penalty : s * options_.repetition_penalty;
    }
    scores = scores_.data();
  }
  if (options_.greedy || options_.temperature <= 0.0f) {
    return argmax(scores, size);
  }

  // Candidates in order of score (ties: lower id first), cut to the top k.
  const size_t k = options_.top_k > 0 && options_.top_k < size ? options_.top_k : size;
  auto better = [&](int32_t a, int32_t b) {
    return scores[a] > scores[b] || (scores[a] == scores[b] && a < b);
  };
  order_.clear();
  if (k < size) {
    // One pass with a heap of the k best so far, the worst on top: most tokens fall
    // below it at one comparison, and as ids rise a later equal score never beats a kept
    // one (a sort of every id took 4x as long over a 49k vocabulary).
    for (size_t i = 0; i < k; ++i) {
      order_.push_back(static_cast<int32_t>(i));
      std::push_heap(order_.begin(), order_.end(), better);
    }
    float worst = scores[order_.front()];
    for (size_t i = k; i < size; ++i) {
      if (!(scores[i] > worst)) continue;
      std::pop_heap(order_.begin(), order_.end(), better);
      order_.back() = static_cast<int32_t>(i);
      std::push_heap(order_.begin(), order_.end(), better);
      worst = scores[order_.front()];
    }
    std::sort_heap(order_.begin(), order_.end(), better);
  } else {
    order_.resize(size);
    for (size_t i = 0; i < size; ++i) order_[i] = static_cast<int32_t>(i);
    std::sort(order_.begin(), order_.end(), better);
  }

  // Softmax of score / temperature over the candidates.
  probs_.resize(k);
  const double top = scores[order_[0]];
  double total = 0;
  for (size_t i = 0; i < k; ++i) {
    probs_[i] = exp((scores[order_[i]] - top) / options_.temperature);
    total += probs_[i];
  }
  // Nucleus: the shortest prefix whose probability reaches top_p.
  size_t kept = k;
  if (options_.top_p < 1.0f) {
    double mass = 0;
    for (size_t i = 0; i < k; ++i) {
      mass += probs_[i] / total;
      if (mass >= options_.top_p) {
        kept = i + 1;
        break;
      }
    }
    total = 0;
    for (size_t i = 0; i < kept; ++i) total += probs_[i];
  }

  double r = next_uniform() * total;
  for (size_t i = 0; i < kept; ++i) {
    r -= probs_[i];
    if (r < 0) return order_[i];
  }
  return order_[kept - 1];
}

}  // namespace llm
