#include "backends/xnnpack/runtime/xnnpack_extra_nodes.h"

namespace tailor::xnnpack {
namespace {

#define TL_XNN_EXTRA_CHECK(cond, fmt, ...)                                                 \
  TL_CHECK_OR_RETURN_ERROR(cond, DelegateInvalidCompatibility, "%s: xnnpack payload: " fmt, \
                           where, ##__VA_ARGS__)
#define TL_XNN_EXTRA_SHAPE_CHECK(cond, fmt, ...)                                             \
  TL_CHECK_OR_RETURN_ERROR(cond, InvalidArgument, "%s: xnnpack node %u: " fmt, where, k, \
                           ##__VA_ARGS__)

// Padding per dim above this is refused, which keeps the output sizes far from overflow.
constexpr uint32_t kMaxPadding = 1u << 24;
// XNNPACK's resize indexes rows and columns in float: it takes fewer than 2^24.
constexpr size_t kMaxResize = size_t{1} << 24;

// Per-dim values in logical order -> XNNPACK's order for the value's layout (the
// XnnpackGraph::xnn_dims rule): channels-last [N, C, H, W] is [N, H, W, C] and
// [N, C, L] is [N, 1, L, C], whose inserted dim gets no padding.
void xnn_order(const size_t* logical, size_t rank, bool channels_last, size_t* out) {
  if (!channels_last) {
    for (size_t d = 0; d < rank; ++d) out[d] = logical[d];
    return;
  }
  out[0] = logical[0];
  out[1] = rank == 4 ? logical[2] : 0;
  out[2] = logical[rank - 1];
  out[3] = logical[1];
}

Error check_pad(const fb::Node& node, uint32_t k, const char* where) {
  const auto* pre = node.pre_padding();
  const auto* post = node.post_padding();
  TL_XNN_EXTRA_CHECK(pre != nullptr && post != nullptr && pre->size() == post->size() &&
                         pre->size() >= 1 && pre->size() <= XNN_MAX_TENSOR_DIMS,
                     "node %u (ConstantPad) does not give padding before and after each of 1 "
                     "to %d dims", k, XNN_MAX_TENSOR_DIMS);
  for (uint32_t d = 0; d < pre->size(); ++d) {
    TL_XNN_EXTRA_CHECK(pre->Get(d) <= kMaxPadding && post->Get(d) <= kMaxPadding,
                       "node %u: padding %u/%u of dim %u", k, pre->Get(d), post->Get(d), d);
  }
  return Error::Ok;
}

}  // namespace

bool is_extra_node(fb::NodeKind kind) {
  return kind == fb::NodeKind_ConstantPad || kind == fb::NodeKind_ResizeBilinear2d ||
         kind == fb::NodeKind_PRelu;
}

Error check_extra_node(const fb::Node& node,
                       const flatbuffers::Vector<flatbuffers::Offset<fb::Value>>& values,
                       ArrayRef<EValue*> args, uint32_t k, const char* where) {
  const char* name = fb::EnumNameNodeKind(node.kind());
  const fb::Layout in = values.Get(node.inputs()->Get(0))->layout();
  const fb::Layout out = values.Get(node.output())->layout();
  if (node.kind() == fb::NodeKind_ResizeBilinear2d) {
    // XNNPACK resizes NHWC tensors only.
    TL_XNN_EXTRA_CHECK(in == fb::Layout_ChannelsLast && out == fb::Layout_ChannelsLast,
                       "node %u (%s) reads or writes a tensor that is not channels-last", k,
                       name);
    TL_XNN_EXTRA_CHECK(node.output_height() >= 1 && node.output_height() < kMaxResize &&
                           node.output_width() >= 1 && node.output_width() < kMaxResize,
                       "node %u: resize to %ux%u", k, node.output_height(), node.output_width());
    return Error::Ok;
  }
  TL_XNN_EXTRA_CHECK(in == out, "node %u (%s): input and output differ in layout", k, name);
  if (node.kind() == fb::NodeKind_ConstantPad) return check_pad(node, k, where);
  // PRelu: XNNPACK packs the slope when it builds the runtime; it is static.
  const fb::Value* slope = values.Get(node.inputs()->Get(1));
  TL_XNN_EXTRA_CHECK(slope->constant() && slope->arg() >= 0 &&
                         slope->layout() == fb::Layout_Plain &&
                         args[static_cast<size_t>(slope->arg())]->to_tensor().dim() == 1,
                     "node %u (%s): the slope is not a constant 1D tensor", k, name);
  return Error::Ok;
}

Error infer_extra_node(const fb::Node& node, const std::vector<Dims>& dims, bool channels_last,
                       Dims* out, uint32_t k, const char* where) {
  const Dims& in = dims[node.inputs()->Get(0)];
  *out = in;
  switch (node.kind()) {
    case fb::NodeKind_ResizeBilinear2d:
      TL_XNN_EXTRA_SHAPE_CHECK(in.rank == 4 && in.size[2] < kMaxResize &&
                                   in.size[3] < kMaxResize,
                               "a bilinear resize of %zu dims or of 2^24 rows or columns",
                               in.rank);
      out->size[2] = node.output_height();
      out->size[3] = node.output_width();
      break;
    case fb::NodeKind_ConstantPad: {
      const auto* pre = node.pre_padding();
      const auto* post = node.post_padding();
      TL_XNN_EXTRA_SHAPE_CHECK(pre->size() == in.rank, "padding for %u dims of a %zu-d tensor",
                               pre->size(), in.rank);
      for (size_t d = 0; d < in.rank; ++d) {
        out->size[d] += size_t{pre->Get(static_cast<uint32_t>(d))} +
                        post->Get(static_cast<uint32_t>(d));
      }
      break;
    }
    default: {  // PRelu: one slope per channel, XNNPACK's last dim
      const size_t channels = channels_last ? in.size[1] : in.size[in.rank - 1];
      const Dims& slope = dims[node.inputs()->Get(1)];
      TL_XNN_EXTRA_SHAPE_CHECK(in.rank >= 2 && slope.size[0] == channels,
                               "a PReLU slope of %zu for %zu channels", slope.size[0], channels);
      break;
    }
  }
  return Error::Ok;
}

xnn_status define_extra_node(xnn_subgraph_t subgraph, const fb::Node& node,
                             const std::vector<Dims>& dims, const std::vector<uint32_t>& id,
                             bool channels_last) {
  const uint32_t input = id[node.inputs()->Get(0)];
  const uint32_t output = id[node.output()];
  if (node.kind() == fb::NodeKind_PRelu) {
    return xnn_define_prelu(subgraph, input, id[node.inputs()->Get(1)], output, 0);
  }
  if (node.kind() == fb::NodeKind_ResizeBilinear2d) {
    // Without flags XNNPACK samples at half-pixel centres, torch's align_corners=False.
    return xnn_define_static_resize_bilinear_2d(subgraph, node.output_height(),
                                                node.output_width(), input, output,
                                                node.align_corners() ? XNN_FLAG_ALIGN_CORNERS : 0);
  }
  const Dims& in = dims[node.inputs()->Get(0)];
  size_t pre[XNN_MAX_TENSOR_DIMS], post[XNN_MAX_TENSOR_DIMS];
  size_t xnn_pre[XNN_MAX_TENSOR_DIMS], xnn_post[XNN_MAX_TENSOR_DIMS];
  for (size_t d = 0; d < in.rank; ++d) {
    pre[d] = node.pre_padding()->Get(static_cast<uint32_t>(d));
    post[d] = node.post_padding()->Get(static_cast<uint32_t>(d));
  }
  xnn_order(pre, in.rank, channels_last, xnn_pre);
  xnn_order(post, in.rank, channels_last, xnn_post);
  return xnn_define_static_constant_pad(subgraph, xnn_pre, xnn_post, node.padding_value(), input,
                                        output, 0);
}

}  // namespace tailor::xnnpack
