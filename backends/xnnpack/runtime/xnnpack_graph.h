// XnnpackGraph: a checked XNNPACK delegate payload (backends/xnnpack/schema/xnnpack.fbs),
// the sizes of its tensors for the current inputs, and the XNNPACK subgraph for them.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <vector>

#include <xnnpack.h>

#include "runtime/core/array_ref.h"
#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "backends/xnnpack/runtime/xnnpack_shapes.h"
#include "xnnpack_generated.h"

namespace tailor::xnnpack {

static_assert(kMaxDims == XNN_MAX_TENSOR_DIMS, "xnnpack_shapes.h's kMaxDims is XNNPACK's");

/// Delegate argument `arg` as a tensor, or nullptr when it is not one.
inline const Tensor* arg_tensor(ArrayRef<EValue*> args, int32_t arg) {
  const EValue* v = args[static_cast<size_t>(arg)];
  return v->is_tensor() ? &v->to_tensor() : nullptr;
}

/// A channels-last tensor of logical sizes [N, C, spatial...] seen as [N, C, S]: the
/// runtime transposes [N, C, S] <-> [N, S, C] where one enters or leaves a delegate.
struct ChannelsLastShape {
  size_t batch = 0;
  size_t channels = 0;
  size_t spatial = 0;

  /// Both orders are the same memory: nothing to transpose.
  bool trivial() const { return channels <= 1 || spatial <= 1; }
};

/// The payload as XNNPACK sees it. load() checks everything the payload can get wrong
/// once (indices, kinds of the delegate arguments it names, that every value is
/// written before it is read); the other calls then trust it. The payload bytes belong
/// to the program and must outlive the graph.
class XnnpackGraph {
 public:
  /// Verifies the `size` bytes at `data` against `args` (the DelegateCall's values).
  /// DelegateInvalidCompatibility (logged, naming `where`) when anything is off.
  Error load(const void* data, size_t size, ArrayRef<EValue*> args, const char* where);

  /// The sizes of every subgraph value for the arguments' current input sizes and
  /// run-time reshape sizes. InvalidArgument (logged) when they do not fit together.
  Error infer_dims(ArrayRef<EValue*> args, std::vector<Dims>* dims) const;

  /// Resizes each output tensor to its `dims` entry: InvalidArgument when it does not
  /// fit the memory planned for it.
  Error resize_outputs(ArrayRef<EValue*> args, const std::vector<Dims>& dims) const;

  /// Defines the XNNPACK subgraph for `dims` in `*subgraph` (caller deletes it).
  /// Inputs and outputs are external values 0..num_external()-1, in external() order.
  Error define(ArrayRef<EValue*> args, const std::vector<Dims>& dims,
               xnn_subgraph_t* subgraph) const;

  /// Delegate argument of each external value, by external id.
  const std::vector<uint32_t>& external_args() const { return external_args_; }

  /// Subgraph value of each external value, by external id.
  const std::vector<uint32_t>& external_values() const { return external_values_; }

  /// Whether subgraph value `v` is a delegate output.
  bool is_output(uint32_t v) const { return v < is_output_.size() && is_output_[v]; }

  /// Whether subgraph value `v` is channels-last (fb::Layout_ChannelsLast); then
  /// `*shape` is its [N, C, S] view for its logical `dims`.
  bool channels_last(uint32_t v, const Dims& dims, ChannelsLastShape* shape) const;

 private:
  // The sizes XNNPACK sees for value `v` of logical sizes `dims` (its layout applied).
  Dims xnn_dims(uint32_t v, const Dims& dims) const;
  Error check_node(uint32_t k, ArrayRef<EValue*> args) const;
  Error infer_window(uint32_t k, const std::vector<Dims>& dims, Dims* out) const;

  const fb::Graph* graph_ = nullptr;
  std::vector<uint32_t> external_id_;    // per value: external id or XNN_INVALID_VALUE_ID
  std::vector<uint32_t> external_args_;  // per external id: its delegate argument
  std::vector<uint32_t> external_values_;  // per external id: its subgraph value
  std::vector<bool> is_output_;            // per value
  std::vector<float> scalars_;           // static one-element tensors, padded for XNNPACK
  std::vector<uint32_t> scalar_slot_;    // per value: index into scalars_
  const char* where_ = "";
};

}  // namespace tailor::xnnpack
