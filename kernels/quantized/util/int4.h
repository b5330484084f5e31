// Packed 4-bit weights (exporter/quantize/weights.py): values in [-8, 7] stored offset by
// 8, two per byte, in blocks of 32 values = 16 bytes. Byte j of a block holds value j in
// its low nibble and value j + 16 in its high nibble, so one mask gives 16 consecutive
// values and one shift the next 16.
#pragma once

#include <stdint.h>

namespace tailor::quantized {

inline constexpr int64_t kInt4Block = 32;

// Value i of a packed row.
inline int32_t int4_at(const uint8_t* row, int64_t i) {
  const int64_t block = i / kInt4Block;
  const int64_t j = i % kInt4Block;
  const uint8_t byte = row[block * (kInt4Block / 2) + (j % 16)];
  return static_cast<int32_t>(j < 16 ? (byte & 0xF) : (byte >> 4)) - 8;
}

}  // namespace tailor::quantized
