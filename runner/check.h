// Turning method outputs into arrays and comparing them with expected arrays.
#pragma once

#include <string>

#include "runner/npy.h"
#include "runtime/core/evalue.h"

namespace tailor::runner {

/// Copies an output (a tensor in any dim order, or an Int/Double/Bool) into a C-order
/// array. False (with `error` set) for other kinds of values.
bool output_to_array(const EValue& value, NpyArray* out, std::string* error);

struct Tolerance {
  double atol = 1e-5;
  double rtol = 1e-5;
};

/// Compares `actual` with `expected`: shapes must match; integer and bool values exactly;
/// floating values elementwise |a - e| <= atol + rtol * |e| (NaN matches NaN). Sets
/// `line` to a one-line report ("shape [4, 4] Float, max abs error 2.4e-07 (atol 1e-05,
/// rtol 1e-05)") and returns whether they match. Sets `weak` when every expected value is
/// a float within tolerance of zero: such a check would pass on an output of zeros.
bool compare_arrays(const NpyArray& actual, const NpyArray& expected, const Tolerance& tol,
                    std::string* line, bool* weak);

/// A few leading values, "[0.5, 1, 2, ...]", for printing an output.
std::string preview_values(const NpyArray& array, size_t max_values);

}  // namespace tailor::runner
