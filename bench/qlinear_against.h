// What bench/qlinear.cpp calls of another revision's quantized linear
// (bench/qlinear_against.cpp): plain types only, as the two trees' QLinearArgs differ.
#pragma once

#include <stdint.h>

#include "runtime/kernel/kernel_context.h"

namespace bench {

struct AgainstArgs {
  int64_t m, n, k, groups;
  int weight_bits;
  bool dynamic_input;
  const float* x;
  const void* w;
  const float* scales;
  const float* bias;
  float* out;
};

// The revision's kernel sets with decode kernels that this CPU runs: their names, count.
int against_sets(const char** names);
// Whether the revision's int4 blocks hold their scales (else [groups, n] apart, as before).
bool against_int4_scales_in_blocks();
void against_qlinear(tailor::KernelContext& ctx, int set, const AgainstArgs& args);

}  // namespace bench
