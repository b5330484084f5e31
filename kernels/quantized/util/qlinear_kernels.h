// The contract between the quantized linear (util/qlinear.h) and its per-level kernels
// (qlinear_generic.h, qlinear_avx2.h, qlinear_avx512.h, qlinear_neon.h). Each computes
// one block of 8 outputs (util/qlinear_layout.h) for `rows` (<= kQRows) input rows, into
// acc[r * 8 + c]:
//
//   dynamic_int8: acc = sum_k x[r][k] * w[c][k]       (x int8, kp = K padded to 4)
//   dynamic_int4: acc = sum_g scales[g * stride + c] * (sum_{k in g} x[r][k] * nibble[c][k]
//                                                        - 8 * sums[r * groups + g])
//                 (= sum_g scale * sum_k x * w; scales of rows c >= valid are not read)
//   float_int8:   acc = sum_k x[r][k] * w[c][k]       (x float, k inputs)
//
// Input rows are ldx elements apart. `quantize` is quantize_row() (util/quantize_row.h),
// with the same result at every level.
#pragma once

#include <stdint.h>

namespace tailor::quantized {

// Input rows a kernel call handles at most: each weight block loaded once serves them all.
inline constexpr int kQRows = 4;

using QDynamicInt8 = void (*)(const int8_t* x, int64_t ldx, int rows, int64_t kp,
                              const int8_t* w, float* acc);
using QDynamicInt4 = void (*)(const int8_t* x, int64_t ldx, int rows, int64_t k,
                              const uint8_t* w, const float* scales, int64_t stride,
                              int64_t groups, int64_t valid, const int32_t* sums, float* acc);
using QFloatInt8 = void (*)(const float* x, int64_t ldx, int rows, int64_t k, const int8_t* w,
                            float* acc);

using QQuantizeRow = float (*)(const float* x, int64_t k, int64_t k_padded, int8_t* out);

// The instance of a kernel template over R = 1..kQRows rows that serves `rows` rows.
template <typename F>
F qlinear_pick_rows(int rows, F one, F two, F three, F four) {
  return rows == 1 ? one : rows == 2 ? two : rows == 3 ? three : four;
}

struct QLinearKernels {
  const char* name;  // "avx512vnni", "avx2", "neon-dotprod", "neon", "generic"
  QQuantizeRow quantize;
  QDynamicInt8 dynamic_int8;
  QDynamicInt4 dynamic_int4;
  QFloatInt8 float_int8;
};

}  // namespace tailor::quantized
