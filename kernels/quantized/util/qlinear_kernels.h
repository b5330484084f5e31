// The contract between the quantized linear (util/qlinear.h) and its per-level dot
// kernels (qlinear_generic.h, qlinear_avx2.h). Each computes one weight row (one output
// column n) against `rows` (<= kQRows) input rows:
//
//   acc[r] = sum over groups g of scales[g] * sum over k in g of x[r][k] * w[k]
//
// with `groups` groups of k / groups inputs each. Dynamic kernels take the input rows
// quantized and centered (int16, util/quantize_row.h; rows k apart); the weight-only
// kernel takes them in float (rows ldx apart). Int8 weights are k int8; int4 weights are
// k / 2 bytes packed in blocks of 32 (util/int4.h).
#pragma once

#include <stdint.h>

#include "runtime/kernel/cpu_level.h"

namespace tailor::quantized {

// Input rows a kernel call handles at most: each weight row loaded once serves them all.
inline constexpr int kQRows = 4;

using DotDynamicInt8 = void (*)(const int16_t* x, int rows, int64_t k, const int8_t* w,
                                const float* scales, int64_t groups, float* acc);
using DotDynamicInt4 = void (*)(const int16_t* x, int rows, int64_t k, const uint8_t* w,
                                const float* scales, int64_t groups, float* acc);
using DotFloatInt8 = void (*)(const float* x, int64_t ldx, int rows, int64_t k,
                              const int8_t* w, const float* scales, int64_t groups,
                              float* acc);

struct QLinearKernels {
  const char* name;  // "avx2", "generic"
  DotDynamicInt8 dynamic_int8;
  DotDynamicInt4 dynamic_int4;
  DotFloatInt8 float_int8;
};

}  // namespace tailor::quantized
