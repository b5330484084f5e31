// How quantized linear weights are packed (exporter/quantize/weights.py): output rows
// (columns of the result) in blocks of kQBlock = 8, the last block padded with zero rows;
// within a block, the 8 rows' weights for a few consecutive inputs lie side by side, so a
// 32-byte load feeds 8 outputs at once:
//
//   int8 [ceil(N/8), ceil(K/4) * 32]: per 4 inputs k..k+3 32 bytes; byte i is
//        w[8b + i/4][k + i%4] (K padded with zeros to a multiple of 4);
//   int4 [ceil(N/8), K * 4] (K a multiple of 32): per 8 inputs k..k+7 32 bytes; byte i
//        holds w[8b + i/4][k + i%4] + 8 in its low nibble and w[8b + i/4][k + 4 + i%4] + 8
//        in its high one.
#pragma once

#include <stdint.h>

namespace tailor::quantized {

inline constexpr int64_t kQBlock = 8;       // output rows per block
inline constexpr int64_t kInt4Group = 32;   // int4 groups are multiples of this

inline int64_t qlinear_padded_k(int64_t k) { return (k + 3) / 4 * 4; }

// Weight of block row `row` at input k.
inline int32_t int8_weight_at(const int8_t* block, int64_t k, int64_t row) {
  return block[(k / 4) * 32 + row * 4 + k % 4];
}

// Stored nibble (value + 8) of block row `row` at input k.
inline int32_t int4_nibble_at(const uint8_t* block, int64_t k, int64_t row) {
  const uint8_t byte = block[(k / 8) * 32 + row * 4 + k % 4];
  return k % 8 < 4 ? (byte & 0xF) : (byte >> 4);
}

}  // namespace tailor::quantized
