// A small .npy reader/writer: little-endian, C-order arrays of the dtypes the runtime
// supports (numpy has no bfloat16; BFloat16 data is written as float32).
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <string>
#include <vector>

#include "runtime/core/scalar_type.h"

namespace tailor::runner {

struct NpyArray {
  ScalarType dtype = ScalarType::Float;
  std::vector<int64_t> shape;  // empty for a 0-d array
  std::vector<uint8_t> data;   // numel() * element_size(dtype) bytes, C order

  size_t numel() const;
};

/// Reads `path` into `out`. On failure returns false and sets `error` to what is wrong
/// (without the path), e.g. "dtype '>f4' is big-endian; save it little-endian".
bool read_npy(const std::string& path, NpyArray* out, std::string* error);

/// Writes `array` to `path` (format version 1.0). BFloat16 is widened to float32.
bool write_npy(const std::string& path, const NpyArray& array, std::string* error);

/// "[2, 3]" for messages.
std::string format_shape(const std::vector<int64_t>& shape);

}  // namespace tailor::runner
