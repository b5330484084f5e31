// The XNNPACK delegate backend ("xnnpack"): runs the subgraphs the exporter's
// XnnpackPartitioner (backends/xnnpack/partitioner.py) put into delegates.
#pragma once

#include "runtime/backend/backend.h"

namespace tailor::xnnpack {

/// Listed in gen/register_backends.cpp by targets with `backends: [xnnpack]`.
extern const Backend kBackend;

}  // namespace tailor::xnnpack
