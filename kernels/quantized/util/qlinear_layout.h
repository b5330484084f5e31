// How quantized linear weights are packed (exporter/quantize/weights.py): output rows
// (columns of the result) in blocks of kQBlock = 8, the last block padded with zero rows;
// within a block, the 8 rows' weights for a few consecutive inputs lie side by side, so a
// 32-byte load feeds 8 outputs at once:
//
//   int8 [ceil(N/8), ceil(K/4) * 32]: per 4 inputs k..k+3 32 bytes; byte i is
//        w[8b + i/4][k + i%4] (K padded with zeros to a multiple of 4); scales [1, N] apart;
//   int4 [ceil(N/8), G * (S * 4 + 32)] (G groups of S inputs, S a multiple of 32): per
//        group, S * 4 bytes of weights, per 8 inputs k..k+7 32 bytes whose byte i holds
//        w[8b + i/4][k + i%4] + 8 in its low nibble and w[8b + i/4][k + 4 + i%4] + 8 in its
//        high one; then the group's 8 scales (float32, one per row; padding rows 0). A
//        block's weights and scales are one stream: scales stored apart ([G, N]) made a
//        decode step read G + 1 streams, which memory serves at 0.67-0.90 of one
//        (BENCHMARKS.md, Decode). The op's weight_scales is then Float [0, N]: it gives N.
#pragma once

#include <stdint.h>

// For code built against several revisions (bench/qlinear_against.cpp): int4 blocks hold
// their scales.
#define TL_QLINEAR_INT4_SCALES_IN_BLOCKS 1

namespace tailor::quantized {

inline constexpr int64_t kQBlock = 8;       // output rows per block
inline constexpr int64_t kInt4Group = 32;   // int4 groups are multiples of this
// Bytes of a group's scales in an int4 block (after its weights).
inline constexpr int64_t kInt4ScaleBytes = kQBlock * sizeof(float);

inline int64_t qlinear_padded_k(int64_t k) { return (k + 3) / 4 * 4; }

// Bytes of one int4 group of `size` inputs in a block: its weights, then its scales.
inline int64_t int4_group_bytes(int64_t size) { return size * 4 + kInt4ScaleBytes; }

// The 8 scales of the group whose bytes start at `group` (a kernel's unaligned loads read
// them; scalar code goes through int4_scale_at).
inline const float* int4_group_scales(const uint8_t* group, int64_t size) {
  return reinterpret_cast<const float*>(group + size * 4);
}

// Scale of block row `row` for input k (groups of `size` inputs).
inline float int4_scale_at(const uint8_t* block, int64_t size, int64_t k, int64_t row) {
  float scale;
  __builtin_memcpy(&scale, block + (k / size) * int4_group_bytes(size) + size * 4 + row * 4,
                   sizeof(float));
  return scale;
}

// Weight of block row `row` at input k.
inline int32_t int8_weight_at(const int8_t* block, int64_t k, int64_t row) {
  return block[(k / 4) * 32 + row * 4 + k % 4];
}

// Stored nibble (value + 8) of block row `row` at input k (groups of `size` inputs).
inline int32_t int4_nibble_at(const uint8_t* block, int64_t size, int64_t k, int64_t row) {
  const int64_t i = k % size;
  const uint8_t byte = block[(k / size) * int4_group_bytes(size) + (i / 8) * 32 + row * 4 + i % 4];
  return i % 8 < 4 ? (byte & 0xF) : (byte >> 4);
}

}  // namespace tailor::quantized
