// What both kernels of llm::cache_attention.out (op_cache_attention_optimized.cpp and
// op_cache_attention_portable.cpp) check before computing, and the shape they compute on.
// tailor/llm/attention_op.py defines the operator for torch.
#pragma once

#include "runtime/kernel/kernel_includes.h"

namespace llm {

// q [batch, queries, heads, head_dim]; caches [batch, positions, kv_heads, head_dim];
// input_pos [queries]. Query head h reads kv head h / group.
struct CacheAttentionShape {
  int64_t batch = 0;
  int64_t queries = 0;
  int64_t heads = 0;
  int64_t kv_heads = 0;
  int64_t positions = 0;
  int64_t head_dim = 0;
  int64_t group = 1;   // heads / kv_heads: query heads that share a kv head
  int64_t window = 0;  // sliding window; 0 (or less) attends to every earlier position
  const int64_t* pos = nullptr;

  // The cache positions query t sees: [first(t), last(t)].
  int64_t last(int64_t t) const { return pos[t]; }
  int64_t first(int64_t t) const {
    return window > 0 && pos[t] - window + 1 > 0 ? pos[t] - window + 1 : 0;
  }
  // Floats from one cache position's row to the next (every kv head's keys of a token).
  int64_t cache_stride() const { return kv_heads * head_dim; }
};

// Validates a call and fills `shape`, or logs why not, fails ctx and returns false: a
// program that feeds the operator wrong tensors stops with a message, never a wrong read.
inline bool check_cache_attention(::tailor::KernelContext& ctx, const ::tailor::Tensor& q,
                                  const ::tailor::Tensor& k_cache,
                                  const ::tailor::Tensor& v_cache,
                                  const ::tailor::Tensor& input_pos, int64_t sliding_window,
                                  ::tailor::Tensor& out, CacheAttentionShape& shape) {
  using ::tailor::ScalarType;
  using ::tailor::scalar_type_name;
  TL_KERNEL_CHECK_MSG(ctx,
                      q.dim() == 4 && k_cache.dim() == 4 && v_cache.dim() == 4 &&
                          input_pos.dim() == 1,
                      InvalidArgument, false,
                      "llm::cache_attention: q must be [B, T, Hq, D], the caches [B, S, Hkv, "
                      "D] and input_pos [T]; got ranks %d, %d, %d and %d",
                      static_cast<int>(q.dim()), static_cast<int>(k_cache.dim()),
                      static_cast<int>(v_cache.dim()), static_cast<int>(input_pos.dim()));
  TL_KERNEL_CHECK_MSG(ctx,
                      q.dtype() == ScalarType::Float && k_cache.dtype() == ScalarType::Float &&
                          v_cache.dtype() == ScalarType::Float &&
                          out.dtype() == ScalarType::Float &&
                          input_pos.dtype() == ScalarType::Long,
                      InvalidArgument, false,
                      "llm::cache_attention: q, the caches and out must be Float and "
                      "input_pos Long; got %s, %s, %s, %s and %s",
                      scalar_type_name(q.dtype()), scalar_type_name(k_cache.dtype()),
                      scalar_type_name(v_cache.dtype()), scalar_type_name(out.dtype()),
                      scalar_type_name(input_pos.dtype()));
  bool same_caches = true;
  for (int64_t d = 0; d < 4; ++d) same_caches = same_caches && k_cache.size(d) == v_cache.size(d);
  TL_KERNEL_CHECK_MSG(ctx,
                      same_caches && k_cache.size(0) == q.size(0) &&
                          k_cache.size(3) == q.size(3) && input_pos.size(0) == q.size(1),
                      InvalidArgument, false,
                      "llm::cache_attention: the shapes do not fit together: q [%lld, %lld, "
                      "%lld, %lld], k_cache [%lld, %lld, %lld, %lld], v_cache [%lld, %lld, "
                      "%lld, %lld], input_pos [%lld] (want q [B, T, Hq, D], both caches "
                      "[B, S, Hkv, D], input_pos [T])",
                      static_cast<long long>(q.size(0)), static_cast<long long>(q.size(1)),
                      static_cast<long long>(q.size(2)), static_cast<long long>(q.size(3)),
                      static_cast<long long>(k_cache.size(0)),
                      static_cast<long long>(k_cache.size(1)),
                      static_cast<long long>(k_cache.size(2)),
                      static_cast<long long>(k_cache.size(3)),
                      static_cast<long long>(v_cache.size(0)),
                      static_cast<long long>(v_cache.size(1)),
                      static_cast<long long>(v_cache.size(2)),
                      static_cast<long long>(v_cache.size(3)),
                      static_cast<long long>(input_pos.size(0)));
  shape.batch = q.size(0);
  shape.queries = q.size(1);
  shape.heads = q.size(2);
  shape.head_dim = q.size(3);
  shape.positions = k_cache.size(1);
  shape.kv_heads = k_cache.size(2);
  TL_KERNEL_CHECK_MSG(ctx, shape.kv_heads > 0 && shape.heads % shape.kv_heads == 0,
                      InvalidArgument, false,
                      "llm::cache_attention: q's %lld heads are not a multiple of the caches' "
                      "%lld kv heads",
                      static_cast<long long>(shape.heads),
                      static_cast<long long>(shape.kv_heads));
  TL_KERNEL_CHECK_MSG(ctx,
                      ::tailor::is_default_dim_order(q) &&
                          ::tailor::is_default_dim_order(k_cache) &&
                          ::tailor::is_default_dim_order(v_cache) &&
                          ::tailor::is_default_dim_order(input_pos),
                      InvalidArgument, false,
                      "llm::cache_attention: q, the caches and input_pos must be contiguous");
  shape.group = shape.heads / shape.kv_heads;
  shape.window = sliding_window;
  shape.pos = input_pos.const_data<int64_t>();
  for (int64_t t = 0; t < shape.queries; ++t) {
    TL_KERNEL_CHECK_MSG(ctx, shape.pos[t] >= 0 && shape.pos[t] < shape.positions,
                        InvalidArgument, false,
                        "input_pos[%lld] = %lld is outside the cache's %lld positions",
                        static_cast<long long>(t), static_cast<long long>(shape.pos[t]),
                        static_cast<long long>(shape.positions));
  }
  // out is q's shape.
  TL_KERNEL_CHECK_MSG(ctx, ::tailor::resize_like(out, q) == ::tailor::Error::Ok,
                      InvalidArgument, false,
                      "llm::cache_attention: out cannot take q's shape");
  return true;
}

}  // namespace llm
