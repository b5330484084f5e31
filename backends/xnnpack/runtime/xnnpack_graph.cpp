#include "backends/xnnpack/runtime/xnnpack_graph.h"

#include "backends/xnnpack/runtime/xnnpack_extra_nodes.h"

namespace tailor::xnnpack {
namespace {

#define TL_XNN_CHECK(cond, fmt, ...)                                                  \
  TL_CHECK_OR_RETURN_ERROR(cond, DelegateInvalidCompatibility, "%s: xnnpack payload: " fmt, \
                           where_, ##__VA_ARGS__)

// Window sizes, strides, dilations and padding above this are refused, which keeps all
// window arithmetic far from overflow.
constexpr uint32_t kMaxWindow = 1u << 16;

bool has_optional_bias(fb::NodeKind kind) {
  return kind == fb::NodeKind_FullyConnected || kind == fb::NodeKind_Convolution2d ||
         kind == fb::NodeKind_DepthwiseConvolution2d || kind == fb::NodeKind_Deconvolution2d;
}

bool is_window(fb::NodeKind kind) {
  return kind == fb::NodeKind_Convolution2d || kind == fb::NodeKind_DepthwiseConvolution2d ||
         kind == fb::NodeKind_Deconvolution2d || kind == fb::NodeKind_MaxPooling2d ||
         kind == fb::NodeKind_AveragePooling2d;
}

bool is_pooling(fb::NodeKind kind) {
  return kind == fb::NodeKind_MaxPooling2d || kind == fb::NodeKind_AveragePooling2d;
}

size_t num_inputs(fb::NodeKind kind) {
  switch (kind) {
    case fb::NodeKind_FullyConnected:
    case fb::NodeKind_Convolution2d:
    case fb::NodeKind_DepthwiseConvolution2d:
    case fb::NodeKind_Deconvolution2d:
      return 3;  // the bias is optional: 2 or 3
    case fb::NodeKind_Add:
    case fb::NodeKind_Subtract:
    case fb::NodeKind_Multiply:
    case fb::NodeKind_Divide:
    case fb::NodeKind_Minimum:
    case fb::NodeKind_Maximum:
    case fb::NodeKind_PRelu:
      return 2;
    default:
      return 1;
  }
}

Dims dims_of(const Tensor& t) {
  Dims d;
  d.rank = static_cast<size_t>(t.dim());
  for (size_t i = 0; i < d.rank; ++i) d.size[i] = static_cast<size_t>(t.sizes()[i]);
  return d;
}

}  // namespace

Error XnnpackGraph::load(const void* data, size_t size, ArrayRef<EValue*> args,
                         const char* where) {
  where_ = where;
  // Structure: after the verifier every table and vector read below is in bounds.
  TL_XNN_CHECK(data != nullptr && size >= 8, "empty (%zu bytes)", size);
  flatbuffers::Verifier verifier(static_cast<const uint8_t*>(data), size);
  TL_XNN_CHECK(fb::GraphBufferHasIdentifier(data) && fb::VerifyGraphBuffer(verifier),
               "not a valid subgraph (identifier TLX1, flatbuffers verifier)");
  graph_ = fb::GetGraph(data);
  TL_XNN_CHECK(graph_->values() != nullptr && graph_->nodes() != nullptr &&
                   graph_->outputs() != nullptr,
               "missing values, nodes or outputs");
  const auto& values = *graph_->values();
  const size_t n = values.size();

  // Values: external ones must be fp32 contiguous tensors of allowed rank.
  std::vector<bool> defined(n, false);
  std::vector<bool> read(n, false);
  std::vector<bool> is_output(n, false);
  external_id_.assign(n, XNN_INVALID_VALUE_ID);
  scalar_slot_.assign(n, 0);
  external_args_.clear();
  external_values_.clear();
  scalars_.clear();
  for (uint32_t i = 0; i < graph_->outputs()->size(); ++i) {
    const uint32_t v = graph_->outputs()->Get(i);
    TL_XNN_CHECK(v < n, "output %u names value %u of %zu", i, v, n);
    is_output[v] = true;
  }
  for (uint32_t i = 0; i < n; ++i) {
    const fb::Value* v = values.Get(i);
    const int32_t arg = v->arg();
    TL_XNN_CHECK(arg >= -1 && arg < static_cast<int32_t>(args.size()),
                 "value %u names argument %d of %zu", i, arg, args.size());
    TL_XNN_CHECK(v->layout() >= fb::Layout_MIN && v->layout() <= fb::Layout_MAX,
                 "value %u: layout %d", i, static_cast<int>(v->layout()));
    if (v->scalar()) {
      TL_XNN_CHECK(arg == -1 && !is_output[i] && v->layout() == fb::Layout_Plain,
                   "scalar value %u is an argument, output or channels-last", i);
      scalar_slot_[i] = static_cast<uint32_t>(scalars_.size());
      scalars_.push_back(v->scalar_value());
      defined[i] = true;
      continue;
    }
    if (arg < 0) {
      TL_XNN_CHECK(!is_output[i] && !v->constant(), "value %u is an output or constant "
                   "but no argument", i);
      continue;
    }
    const Tensor* t = arg_tensor(args, arg);
    TL_XNN_CHECK(t != nullptr && t->dtype() == ScalarType::Float && t->is_contiguous() &&
                     t->dim() >= 1 && t->dim() <= XNN_MAX_TENSOR_DIMS,
                 "value %u (argument %d) is not a contiguous Float tensor of 1 to %d dims", i,
                 arg, XNN_MAX_TENSOR_DIMS);
    TL_XNN_CHECK(!(v->constant() && is_output[i]), "constant value %u is an output", i);
    if (v->constant()) {
      TL_XNN_CHECK(t->data() != nullptr || t->nbytes() == 0, "constant %u has no data", i);
    } else {
      external_id_[i] = static_cast<uint32_t>(external_args_.size());
      external_args_.push_back(static_cast<uint32_t>(arg));
      external_values_.push_back(i);
    }
    defined[i] = !is_output[i];  // inputs and constants are there from the start
  }
  // XNNPACK may read XNN_EXTRA_BYTES past any input.
  scalars_.resize(scalars_.size() + XNN_EXTRA_BYTES / sizeof(float), 0.0f);

  // Nodes: in order, each reading defined values and writing a value once.
  for (uint32_t k = 0; k < graph_->nodes()->size(); ++k) {
    const fb::Node* node = graph_->nodes()->Get(k);
    const fb::NodeKind kind = node->kind();
    TL_XNN_CHECK(kind >= fb::NodeKind_MIN && kind <= fb::NodeKind_MAX, "node %u: kind %d",
                 k, static_cast<int>(kind));
    const size_t count = node->inputs() != nullptr ? node->inputs()->size() : 0;
    const size_t want = num_inputs(kind);
    TL_XNN_CHECK(count == want || (has_optional_bias(kind) && count == 2),
                 "node %u (%s) has %zu inputs", k, fb::EnumNameNodeKind(kind), count);
    for (uint32_t j = 0; j < count; ++j) {
      const uint32_t v = node->inputs()->Get(j);
      TL_XNN_CHECK(v < n && defined[v], "node %u reads value %u before it is written", k, v);
      read[v] = true;
    }
    const uint32_t out = node->output();
    TL_XNN_CHECK(out < n && !defined[out] && !values.Get(out)->constant() &&
                     !values.Get(out)->scalar(),
                 "node %u writes value %u, which is not a fresh tensor", k, out);
    if (values.Get(out)->arg() >= 0) {
      TL_XNN_CHECK(is_output[out], "node %u writes delegate input %u", k, out);
    }
    defined[out] = true;
    Error err = check_node(k, args);
    if (err != Error::Ok) return err;
  }
  // XNNPACK gives an internal value no reader reads no memory, then asserts on the null
  // pointer when it sets up the node writing it.
  for (uint32_t k = 0; k < graph_->nodes()->size(); ++k) {
    const uint32_t out = graph_->nodes()->Get(k)->output();
    TL_XNN_CHECK(is_output[out] || read[out], "node %u writes value %u, which no node reads "
                 "and is no output", k, out);
  }
  is_output_ = is_output;
  for (uint32_t i = 0; i < graph_->outputs()->size(); ++i) {
    TL_XNN_CHECK(defined[graph_->outputs()->Get(i)] &&
                     values.Get(graph_->outputs()->Get(i))->arg() >= 0,
                 "output %u is never written or is no argument", i);
  }
  return Error::Ok;
}

// What one node needs of its values and attributes, beyond their indices (load()).
Error XnnpackGraph::check_node(uint32_t k, ArrayRef<EValue*> args) const {
  const auto& values = *graph_->values();
  const fb::Node* node = graph_->nodes()->Get(k);
  const fb::NodeKind kind = node->kind();
  const uint32_t count = node->inputs()->size();
  const uint32_t out = node->output();
  auto layout = [&](uint32_t v) { return values.Get(v)->layout(); };
  const char* name = fb::EnumNameNodeKind(kind);
  if (has_optional_bias(kind)) {
    // XNNPACK packs filters and biases when it creates the runtime: they are static.
    const int filter_rank = kind == fb::NodeKind_FullyConnected ? 2 : 4;
    for (uint32_t j = 1; j < count; ++j) {
      const fb::Value* w = values.Get(node->inputs()->Get(j));
      TL_XNN_CHECK(w->constant() && w->arg() >= 0 && w->layout() == fb::Layout_Plain &&
                       arg_tensor(args, w->arg())->dim() == (j == 1 ? filter_rank : 1),
                   "node %u: the %s is not a constant %dD tensor", k,
                   j == 1 ? "filter" : "bias", j == 1 ? filter_rank : 1);
    }
  }
  if (is_window(kind)) {
    const fb::Window* w = node->window();
    TL_XNN_CHECK(w != nullptr, "node %u (%s) has no window", k, name);
    const uint32_t positive[] = {w->kernel_h(), w->kernel_w(), w->stride_h(), w->stride_w(),
                                 w->dilation_h(), w->dilation_w()};
    for (uint32_t x : positive) {
      TL_XNN_CHECK(x >= 1 && x <= kMaxWindow, "node %u: window size %u", k, x);
    }
    const uint32_t pads[] = {w->pad_top(), w->pad_left(), w->pad_bottom(), w->pad_right()};
    for (uint32_t x : pads) TL_XNN_CHECK(x <= kMaxWindow, "node %u: padding %u", k, x);
    TL_XNN_CHECK((kind != fb::NodeKind_Convolution2d && kind != fb::NodeKind_Deconvolution2d) ||
                     node->groups() >= 1,
                 "node %u: %u groups", k, node->groups());
    TL_XNN_CHECK(kind != fb::NodeKind_Deconvolution2d ||
                     (node->adjustment_h() < w->stride_h() && node->adjustment_w() < w->stride_w()),
                 "node %u: adjustment %ux%u not below the stride", k, node->adjustment_h(),
                 node->adjustment_w());
  }
  if (is_extra_node(kind)) return check_extra_node(*node, values, args, k, where_);
  switch (kind) {
    case fb::NodeKind_Convolution2d:
    case fb::NodeKind_DepthwiseConvolution2d:
    case fb::NodeKind_Deconvolution2d:
    case fb::NodeKind_MaxPooling2d:
    case fb::NodeKind_AveragePooling2d:
    case fb::NodeKind_GlobalAveragePooling2d:
      TL_XNN_CHECK(layout(node->inputs()->Get(0)) == fb::Layout_ChannelsLast &&
                       layout(out) == fb::Layout_ChannelsLast,
                   "node %u (%s) reads or writes a tensor that is not channels-last", k, name);
      break;
    case fb::NodeKind_FullyConnected:
    case fb::NodeKind_Softmax:
      TL_XNN_CHECK(layout(node->inputs()->Get(0)) == fb::Layout_Plain &&
                       layout(out) == fb::Layout_Plain,
                   "node %u (%s) reads or writes a channels-last tensor", k, name);
      break;
    case fb::NodeKind_Reshape: {
      // Layouts are checked against the sizes in infer_dims().
      const auto* shape = node->shape();
      TL_XNN_CHECK(shape != nullptr && shape->size() >= 1 && shape->size() <= XNN_MAX_TENSOR_DIMS,
                   "node %u: reshape to %u dims", k, shape != nullptr ? shape->size() : 0u);
      for (uint32_t d = 0; d < shape->size(); ++d) {
        const int32_t arg = shape->Get(d)->arg();
        TL_XNN_CHECK(arg == -1 || (arg >= 0 && static_cast<size_t>(arg) < args.size() &&
                                   args[static_cast<size_t>(arg)]->is_int()),
                     "node %u: reshape dim %u names argument %d, not an Int", k, d, arg);
      }
      break;
    }
    default:
      // Elementwise: every tensor operand lies like the result (scalars broadcast).
      for (uint32_t j = 0; j < count; ++j) {
        const fb::Value* v = values.Get(node->inputs()->Get(j));
        TL_XNN_CHECK(v->scalar() || v->layout() == layout(out),
                     "node %u (%s): operand %u and the result differ in layout", k, name, j);
      }
      break;
  }
  return Error::Ok;
}

#define TL_XNN_SHAPE_CHECK(cond, fmt, ...)                                          \
  TL_CHECK_OR_RETURN_ERROR(cond, InvalidArgument, "%s: xnnpack node %u: " fmt, where_, k, \
                           ##__VA_ARGS__)

Error XnnpackGraph::infer_dims(ArrayRef<EValue*> args, std::vector<Dims>* dims) const {
  const auto& values = *graph_->values();
  dims->assign(values.size(), Dims());
  for (uint32_t i = 0; i < values.size(); ++i) {
    const fb::Value* v = values.Get(i);
    if (v->scalar()) {
      (*dims)[i].rank = 1;
      (*dims)[i].size[0] = 1;
    } else if (v->arg() >= 0) {
      (*dims)[i] = dims_of(*arg_tensor(args, v->arg()));  // outputs: replaced below
    }
  }
  for (uint32_t k = 0; k < graph_->nodes()->size(); ++k) {
    const fb::Node* node = graph_->nodes()->Get(k);
    const Dims& a = (*dims)[node->inputs()->Get(0)];
    Dims out = a;
    switch (node->kind()) {
      case fb::NodeKind_FullyConnected: {
        const Dims& w = (*dims)[node->inputs()->Get(1)];
        const size_t in_channels = w.size[node->transpose_weights() ? 0 : 1];
        const size_t out_channels = w.size[node->transpose_weights() ? 1 : 0];
        TL_XNN_SHAPE_CHECK(a.size[a.rank - 1] == in_channels,
                           "fully_connected input has %zu channels, the filter %zu",
                           a.size[a.rank - 1], in_channels);
        TL_XNN_SHAPE_CHECK(node->inputs()->size() == 2 ||
                               (*dims)[node->inputs()->Get(2)].size[0] == out_channels,
                           "fully_connected bias does not have %zu entries", out_channels);
        out.size[out.rank - 1] = out_channels;
        break;
      }
      case fb::NodeKind_Add:
      case fb::NodeKind_Subtract:
      case fb::NodeKind_Multiply:
      case fb::NodeKind_Divide:
      case fb::NodeKind_Minimum:
      case fb::NodeKind_Maximum: {
        // Numpy broadcasting, aligned at the last dim.
        const Dims& b = (*dims)[node->inputs()->Get(1)];
        out.rank = a.rank > b.rank ? a.rank : b.rank;
        for (size_t d = 0; d < out.rank; ++d) {
          const size_t x = d < a.rank ? a.size[a.rank - 1 - d] : 1;
          const size_t y = d < b.rank ? b.size[b.rank - 1 - d] : 1;
          TL_XNN_SHAPE_CHECK(x == y || x == 1 || y == 1, "sizes %zu and %zu do not broadcast",
                             x, y);
          out.size[out.rank - 1 - d] = x == 1 ? y : x;
        }
        break;
      }
      case fb::NodeKind_Reshape: {
        const auto* shape = node->shape();
        out.rank = shape->size();
        size_t known = 1;
        int64_t infer = -1;
        for (uint32_t d = 0; d < shape->size(); ++d) {
          const fb::Dim* dim = shape->Get(d);
          const int64_t size = dim->arg() >= 0
                                   ? args[static_cast<size_t>(dim->arg())]->to_int()
                                   : dim->size();
          if (size == -1 && infer < 0) {
            infer = d;
            continue;
          }
          TL_XNN_SHAPE_CHECK(size >= 0, "reshape size %lld", static_cast<long long>(size));
          out.size[d] = static_cast<size_t>(size);
          known *= out.size[d];
        }
        if (infer >= 0) {
          TL_XNN_SHAPE_CHECK(known > 0 && a.numel() % known == 0, "cannot infer a reshape dim");
          out.size[infer] = a.numel() / known;
        }
        TL_XNN_SHAPE_CHECK(out.numel() == a.numel(), "reshape of %zu elements to %zu",
                           a.numel(), out.numel());
        break;
      }
      case fb::NodeKind_Convolution2d:
      case fb::NodeKind_DepthwiseConvolution2d:
      case fb::NodeKind_Deconvolution2d:
      case fb::NodeKind_MaxPooling2d:
      case fb::NodeKind_AveragePooling2d: {
        Error err = infer_window(k, *dims, &out);
        if (err != Error::Ok) return err;
        break;
      }
      case fb::NodeKind_ConstantPad:
      case fb::NodeKind_ResizeBilinear2d:
      case fb::NodeKind_PRelu: {
        const bool cl = values.Get(node->output())->layout() == fb::Layout_ChannelsLast;
        Error err = infer_extra_node(*node, *dims, cl, &out, k, where_);
        if (err != Error::Ok) return err;
        break;
      }
      case fb::NodeKind_GlobalAveragePooling2d:
        TL_XNN_SHAPE_CHECK(a.rank == 3 || a.rank == 4, "global pooling of %zu dims", a.rank);
        for (size_t d = 2; d < out.rank; ++d) out.size[d] = 1;
        break;
      default:  // elementwise unary, clamp, softmax, copy: the input's sizes
        break;
    }
    if (node->kind() == fb::NodeKind_Reshape) {
      const bool from_cl = values.Get(node->inputs()->Get(0))->layout() == fb::Layout_ChannelsLast;
      const bool to_cl = values.Get(node->output())->layout() == fb::Layout_ChannelsLast;
      TL_XNN_SHAPE_CHECK((!from_cl || a.rank == 3 || a.rank == 4) &&
                             (!to_cl || out.rank == 3 || out.rank == 4) &&
                             reshape_keeps_memory(a, from_cl, out, to_cl),
                         "a reshape that would move elements between layouts");
    }
    (*dims)[node->output()] = out;
  }
  // A channels-last tensor is [N, C, L] or [N, C, H, W].
  for (uint32_t i = 0; i < values.size(); ++i) {
    const size_t rank = (*dims)[i].rank;
    TL_CHECK_OR_RETURN_ERROR(values.Get(i)->layout() == fb::Layout_Plain || rank == 3 ||
                                 rank == 4,
                             InvalidArgument, "%s: xnnpack value %u: channels-last with %zu dims",
                             where_, i, rank);
  }
  return Error::Ok;
}

// Output sizes of a convolution or pooling node, checking its input and filter.
Error XnnpackGraph::infer_window(uint32_t k, const std::vector<Dims>& dims, Dims* out) const {
  const fb::Node* node = graph_->nodes()->Get(k);
  const fb::NodeKind kind = node->kind();
  const fb::Window* w = node->window();
  const Dims& in = dims[node->inputs()->Get(0)];
  TL_XNN_SHAPE_CHECK(in.rank == 3 || in.rank == 4, "a window over %zu dims", in.rank);
  TL_XNN_SHAPE_CHECK(in.rank == 4 || (w->kernel_h() == 1 && w->stride_h() == 1 &&
                                      w->dilation_h() == 1 && w->pad_top() == 0 &&
                                      w->pad_bottom() == 0),
                     "a 1-d signal with a window of height %u", w->kernel_h());
  const size_t channels = in.size[1];
  size_t out_channels = channels;
  if (kind == fb::NodeKind_Convolution2d || kind == fb::NodeKind_DepthwiseConvolution2d ||
      kind == fb::NodeKind_Deconvolution2d) {
    const Dims& f = dims[node->inputs()->Get(1)];
    const bool depthwise = kind == fb::NodeKind_DepthwiseConvolution2d;
    // Filters: [O, KH, KW, I/groups], depthwise [1, KH, KW, O] with O a multiple of I.
    out_channels = depthwise ? f.size[3] : f.size[0];
    const size_t groups = depthwise ? 1 : node->groups();
    const bool fits = f.size[1] == w->kernel_h() && f.size[2] == w->kernel_w() &&
                      (depthwise ? f.size[0] == 1 && channels > 0 &&
                                       out_channels % channels == 0
                                 : f.size[3] * groups == channels &&
                                       out_channels % groups == 0);
    TL_XNN_SHAPE_CHECK(fits && out_channels > 0,
                       "a filter [%zu, %zu, %zu, %zu] for %zu input channels", f.size[0],
                       f.size[1], f.size[2], f.size[3], channels);
    TL_XNN_SHAPE_CHECK(node->inputs()->size() == 2 ||
                           dims[node->inputs()->Get(2)].size[0] == out_channels,
                       "the bias does not have %zu entries", out_channels);
  }
  const bool ceil_mode = is_pooling(kind) && node->ceil_mode();
  size_t h = 0, width = 0;
  spatial(in, &h, &width);
  const bool deconvolution = kind == fb::NodeKind_Deconvolution2d;
  const size_t oh = deconvolution
                        ? deconvolution_count(h, w->kernel_h(), w->stride_h(), w->dilation_h(),
                                              w->pad_top(), w->pad_bottom(), node->adjustment_h())
                        : window_count(h, w->kernel_h(), w->stride_h(), w->dilation_h(),
                                       w->pad_top(), w->pad_bottom(), ceil_mode);
  const size_t ow = deconvolution
                        ? deconvolution_count(width, w->kernel_w(), w->stride_w(),
                                              w->dilation_w(), w->pad_left(), w->pad_right(),
                                              node->adjustment_w())
                        : window_count(width, w->kernel_w(), w->stride_w(), w->dilation_w(),
                                       w->pad_left(), w->pad_right(), ceil_mode);
  TL_XNN_SHAPE_CHECK(oh > 0 && ow > 0, "the window does not fit a %zux%zu input", h, width);
  *out = in;
  out->size[1] = out_channels;
  if (in.rank == 4) out->size[2] = oh;
  out->size[in.rank - 1] = ow;
  return Error::Ok;
}

bool XnnpackGraph::channels_last(uint32_t v, const Dims& dims, ChannelsLastShape* shape) const {
  if (graph_->values()->Get(v)->layout() != fb::Layout_ChannelsLast) return false;
  shape->batch = dims.size[0];
  shape->channels = dims.size[1];
  shape->spatial = 1;
  for (size_t d = 2; d < dims.rank; ++d) shape->spatial *= dims.size[d];
  return true;
}

Dims XnnpackGraph::xnn_dims(uint32_t v, const Dims& dims) const {
  if (graph_->values()->Get(v)->layout() != fb::Layout_ChannelsLast) return dims;
  // [N, C, H, W] -> [N, H, W, C]; [N, C, L] -> [N, 1, L, C].
  Dims x;
  x.rank = 4;
  x.size[0] = dims.size[0];
  x.size[1] = dims.rank == 4 ? dims.size[2] : 1;
  x.size[2] = dims.size[dims.rank - 1];
  x.size[3] = dims.size[1];
  return x;
}

Error XnnpackGraph::resize_outputs(ArrayRef<EValue*> args, const std::vector<Dims>& dims) const {
  for (uint32_t i = 0; i < graph_->outputs()->size(); ++i) {
    const uint32_t v = graph_->outputs()->Get(i);
    Tensor& t = args[static_cast<size_t>(graph_->values()->Get(v)->arg())]->to_tensor();
    int64_t sizes[XNN_MAX_TENSOR_DIMS];
    for (size_t d = 0; d < dims[v].rank; ++d) sizes[d] = static_cast<int64_t>(dims[v].size[d]);
    TL_CHECK_OR_RETURN_ERROR(
        static_cast<size_t>(t.dim()) == dims[v].rank &&
            t.set_sizes(ArrayRef<int64_t>(sizes, dims[v].rank)) == Error::Ok,
        InvalidArgument, "%s: xnnpack output %u does not fit its planned tensor", where_, i);
  }
  return Error::Ok;
}

}  // namespace tailor::xnnpack
