// XnnpackGraph::define(): a loaded payload -> the XNNPACK subgraph for the current sizes
// (load() and infer_dims() in xnnpack_graph.cpp checked everything it reads).
#include <float.h>
#include <math.h>

#include "backends/xnnpack/runtime/xnnpack_extra_nodes.h"
#include "backends/xnnpack/runtime/xnnpack_graph.h"

namespace tailor::xnnpack {
namespace {

// Payload bounds at FLT_MAX mean "unbounded"; XNNPACK skips clamping for infinities.
float bound(float v) {
  if (v <= -FLT_MAX) return -INFINITY;
  if (v >= FLT_MAX) return INFINITY;
  return v;
}

}  // namespace

#define TL_XNN_DEFINE(call, what, ...)                                                   \
  do {                                                                                   \
    const xnn_status status_ = (call);                                                   \
    TL_CHECK_OR_RETURN_ERROR(status_ == xnn_status_success, DelegateInvalidCompatibility, \
                             "%s: XNNPACK rejected " what " (status %d)", where_,         \
                             ##__VA_ARGS__, static_cast<int>(status_));                   \
  } while (0)

Error XnnpackGraph::define(ArrayRef<EValue*> args, const std::vector<Dims>& dims,
                           xnn_subgraph_t* subgraph) const {
  xnn_subgraph_t sg = nullptr;
  TL_XNN_DEFINE(xnn_create_subgraph(static_cast<uint32_t>(external_args_.size()), 0, &sg),
                "a subgraph");
  *subgraph = sg;
  const auto& values = *graph_->values();
  std::vector<uint32_t> id(values.size());
  std::vector<bool> output(values.size(), false);
  for (uint32_t i = 0; i < graph_->outputs()->size(); ++i) output[graph_->outputs()->Get(i)] = true;
  for (uint32_t i = 0; i < values.size(); ++i) {
    const fb::Value* v = values.Get(i);
    const void* data = nullptr;
    uint32_t flags = 0;
    if (v->scalar()) {
      data = &scalars_[scalar_slot_[i]];
    } else if (v->constant()) {
      data = arg_tensor(args, v->arg())->data();
    } else if (external_id_[i] != XNN_INVALID_VALUE_ID) {
      flags = output[i] ? XNN_VALUE_FLAG_EXTERNAL_OUTPUT : XNN_VALUE_FLAG_EXTERNAL_INPUT;
    }
    const Dims x = xnn_dims(i, dims[i]);
    TL_XNN_DEFINE(xnn_define_tensor_value(sg, xnn_datatype_fp32, x.rank, x.size, data,
                                          external_id_[i], flags, &id[i]),
                  "value %u", i);
  }
  for (uint32_t k = 0; k < graph_->nodes()->size(); ++k) {
    const fb::Node* node = graph_->nodes()->Get(k);
    const uint32_t a = id[node->inputs()->Get(0)];
    const uint32_t b = node->inputs()->size() > 1 ? id[node->inputs()->Get(1)] : 0;
    const uint32_t out = id[node->output()];
    const float lo = bound(node->min());
    const float hi = bound(node->max());
    xnn_status s = xnn_status_success;
    switch (node->kind()) {
      case fb::NodeKind_FullyConnected:
        s = xnn_define_fully_connected(
            sg, lo, hi, a, b, node->inputs()->size() > 2 ? id[node->inputs()->Get(2)]
                                                          : XNN_INVALID_VALUE_ID,
            out, node->transpose_weights() ? XNN_FLAG_TRANSPOSE_WEIGHTS : 0);
        break;
      case fb::NodeKind_Add: s = xnn_define_add2(sg, lo, hi, a, b, out, 0); break;
      case fb::NodeKind_Subtract: s = xnn_define_subtract(sg, lo, hi, a, b, out, 0); break;
      case fb::NodeKind_Multiply: s = xnn_define_multiply2(sg, lo, hi, a, b, out, 0); break;
      case fb::NodeKind_Divide: s = xnn_define_divide(sg, lo, hi, a, b, out, 0); break;
      case fb::NodeKind_Minimum: s = xnn_define_minimum2(sg, a, b, out, 0); break;
      case fb::NodeKind_Maximum: s = xnn_define_maximum2(sg, a, b, out, 0); break;
      case fb::NodeKind_Clamp: s = xnn_define_clamp(sg, lo, hi, a, out, 0); break;
      case fb::NodeKind_Softmax: s = xnn_define_softmax(sg, a, out, 0); break;
      case fb::NodeKind_Sigmoid: s = xnn_define_sigmoid(sg, a, out, 0); break;
      case fb::NodeKind_Hardswish: s = xnn_define_hardswish(sg, a, out, 0); break;
      case fb::NodeKind_Negate: s = xnn_define_negate(sg, a, out, 0); break;
      case fb::NodeKind_Abs: s = xnn_define_abs(sg, a, out, 0); break;
      case fb::NodeKind_SquareRoot: s = xnn_define_square_root(sg, a, out, 0); break;
      case fb::NodeKind_LeakyRelu: s = xnn_define_leaky_relu(sg, node->alpha(), a, out, 0); break;
      case fb::NodeKind_Elu: s = xnn_define_elu(sg, node->alpha(), a, out, 0); break;
      case fb::NodeKind_GlobalAveragePooling2d:
        s = xnn_define_global_average_pooling_2d(sg, lo, hi, a, out, 0);
        break;
      case fb::NodeKind_Reshape:
      case fb::NodeKind_Copy: {
        // XNNPACK 2022 has no copy node; a reshape to the same sizes copies.
        const Dims d = xnn_dims(node->output(), dims[node->output()]);
        s = xnn_define_static_reshape(sg, d.rank, d.size, a, out, 0);
        break;
      }
      case fb::NodeKind_ConstantPad:
      case fb::NodeKind_ResizeBilinear2d:
      case fb::NodeKind_PRelu:
        s = define_extra_node(sg, *node, dims, id,
                              values.Get(node->output())->layout() == fb::Layout_ChannelsLast);
        break;
      case fb::NodeKind_Deconvolution2d: {
        const fb::Window* w = node->window();
        const size_t groups = node->groups();
        s = xnn_define_deconvolution_2d(
            sg, w->pad_top(), w->pad_right(), w->pad_bottom(), w->pad_left(),
            node->adjustment_h(), node->adjustment_w(), w->kernel_h(), w->kernel_w(),
            w->stride_h(), w->stride_w(), w->dilation_h(), w->dilation_w(),
            static_cast<uint32_t>(groups), dims[node->inputs()->Get(0)].size[1] / groups,
            dims[node->output()].size[1] / groups, lo, hi, a, b,
            node->inputs()->size() > 2 ? id[node->inputs()->Get(2)] : XNN_INVALID_VALUE_ID, out,
            0);
        break;
      }
      case fb::NodeKind_Convolution2d:
      case fb::NodeKind_DepthwiseConvolution2d:
      case fb::NodeKind_MaxPooling2d:
      case fb::NodeKind_AveragePooling2d: {
        const fb::Window* w = node->window();
        const Dims& in = dims[node->inputs()->Get(0)];
        const Dims& o = dims[node->output()];
        size_t h = 0, width = 0, oh = 0, ow = 0;
        spatial(in, &h, &width);
        spatial(o, &oh, &ow);
        const uint32_t bottom = pad_to_fit(h, oh, w->kernel_h(), w->stride_h(), w->dilation_h(),
                                           w->pad_top(), w->pad_bottom());
        const uint32_t right = pad_to_fit(width, ow, w->kernel_w(), w->stride_w(),
                                          w->dilation_w(), w->pad_left(), w->pad_right());
        const uint32_t bias = node->inputs()->size() > 2 ? id[node->inputs()->Get(2)]
                                                          : XNN_INVALID_VALUE_ID;
        const size_t channels = in.size[1];
        const size_t out_channels = o.size[1];
        if (node->kind() == fb::NodeKind_Convolution2d) {
          const size_t groups = node->groups();
          s = xnn_define_convolution_2d(
              sg, w->pad_top(), right, bottom, w->pad_left(), w->kernel_h(), w->kernel_w(),
              w->stride_h(), w->stride_w(), w->dilation_h(), w->dilation_w(),
              static_cast<uint32_t>(groups), channels / groups, out_channels / groups, lo, hi, a,
              b, bias, out, 0);
        } else if (node->kind() == fb::NodeKind_DepthwiseConvolution2d) {
          s = xnn_define_depthwise_convolution_2d(
              sg, w->pad_top(), right, bottom, w->pad_left(), w->kernel_h(), w->kernel_w(),
              w->stride_h(), w->stride_w(), w->dilation_h(), w->dilation_w(),
              static_cast<uint32_t>(out_channels / channels), channels, lo, hi, a, b, bias, out,
              0);
        } else if (node->kind() == fb::NodeKind_MaxPooling2d) {
          s = xnn_define_max_pooling_2d(sg, w->pad_top(), right, bottom, w->pad_left(),
                                        w->kernel_h(), w->kernel_w(), w->stride_h(),
                                        w->stride_w(), w->dilation_h(), w->dilation_w(), lo, hi,
                                        a, out, 0);
        } else {
          s = xnn_define_average_pooling_2d(sg, w->pad_top(), right, bottom, w->pad_left(),
                                            w->kernel_h(), w->kernel_w(), w->stride_h(),
                                            w->stride_w(), lo, hi, a, out, 0);
        }
        break;
      }
    }
    TL_XNN_DEFINE(s, "node %u (%s)", k, fb::EnumNameNodeKind(node->kind()));
  }
  return Error::Ok;
}

}  // namespace tailor::xnnpack
