// The runner's --json summary: what one invocation measured and found, for scripts
// (bench/common.py) to read instead of parsing the runner's text.
#pragma once

#include <stdint.h>

#include <string>
#include <vector>

#include "runtime/core/scalar_type.h"

namespace tailor::runner {

struct OutputSummary {
  std::vector<int64_t> shape;
  ScalarType dtype = ScalarType::Float;
  int check = -1;  // -1 not checked, 0 failed, 1 matched
};

struct RunSummary {
  std::string program;
  std::string method;
  uint32_t threads = 1;
  std::vector<uint64_t> times_ns;  // each timed run, in order
  std::vector<OutputSummary> outputs;
  size_t prepacked_weights = 0;  // Method::prepacked_weights(), prepacked_bytes()
  size_t prepacked_bytes = 0;
};

/// Writes `summary` to `path` as one JSON object (through a temporary file renamed into
/// place, so a reader never sees half of it); false with `error` set on failure.
bool write_summary(const std::string& path, const RunSummary& summary, std::string* error);

}  // namespace tailor::runner
