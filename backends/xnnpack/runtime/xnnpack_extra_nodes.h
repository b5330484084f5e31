// The XNNPACK payload nodes beyond the core set of xnnpack_graph.cpp (constant pad,
// bilinear resize, PReLU): what load() checks, their output sizes and their XNNPACK
// definitions. XnnpackGraph calls these for every node is_extra_node() names.
#pragma once

#include <stdint.h>

#include <vector>

#include <xnnpack.h>

#include "backends/xnnpack/runtime/xnnpack_graph.h"

namespace tailor::xnnpack {

/// Whether `kind` is one of the nodes of this file.
bool is_extra_node(fb::NodeKind kind);

/// What node `k` needs of its values and attributes (load()): `values` are the
/// payload's, `args` the delegate call's. DelegateInvalidCompatibility (logged, naming
/// `where`) when anything is off.
Error check_extra_node(const fb::Node& node, const flatbuffers::Vector<flatbuffers::Offset<fb::Value>>& values,
                       ArrayRef<EValue*> args, uint32_t k, const char* where);

/// The logical sizes node `k` writes, from its inputs' `dims` (indexed by value) and its
/// output's layout. InvalidArgument (logged) when they do not fit the node.
Error infer_extra_node(const fb::Node& node, const std::vector<Dims>& dims, bool channels_last,
                       Dims* out, uint32_t k, const char* where);

/// Defines the node in `subgraph`: `dims` are the logical sizes by value, `id` the
/// XNNPACK value ids by value, `channels_last` the layout of its input and output.
xnn_status define_extra_node(xnn_subgraph_t subgraph, const fb::Node& node,
                             const std::vector<Dims>& dims, const std::vector<uint32_t>& id,
                             bool channels_last);

}  // namespace tailor::xnnpack
