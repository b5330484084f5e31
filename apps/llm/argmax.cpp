#include "apps/llm/argmax.h"

namespace llm {

size_t argmax(const float* scores, size_t size) {
  size_t best = 0;
  tailor::optimized::vec_run<ArgmaxBody>(scores, size, &best);
  return best;
}

}  // namespace llm
