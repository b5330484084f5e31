// The kernel of nanogpt::cached_attention.out (examples/nanogpt/attention_op.py defines the
// operator for torch; kernels/nanogpt_kernels.yaml declares this kernel).
//
// For each head, query t (at position pos[t]) attends to the cache rows 0..pos[t]:
// softmax(q k^T / sqrt(head_dim)) v. The caches are read where they are (no transposed
// or reshaped copies), and a block of queries scores only the positions up to its last
// one's, so a short prompt costs its length, not the cache's. The products run on the
// optimized GEMM: scores = q @ k^T on a transposed chunk of keys, then out = p @ v
// straight into out's rows. With fewer than kGemmMinQueries queries (a decode step), the
// scores are dot products over the keys in place instead, since transposing the keys
// would copy the whole cache for one row of scores. No heap: a call takes about 200 KB of
// stack (the scores, the transposed keys, and the GEMM's own buffers).
#include "kernels/optimized/util/gemm.h"
#include "kernels/optimized/util/vec_math.h"
#include "runtime/kernel/kernel_includes.h"

namespace nanogpt::native {

using ::tailor::KernelContext;
using ::tailor::ScalarType;
using ::tailor::Tensor;
namespace opt = ::tailor::optimized;

namespace {

// Scores of a block of queries, one row of positions each: 64 KB on the stack, so a
// cache holds at most this many positions (and a block has kScoreFloats / L queries).
constexpr int64_t kScoreFloats = 16 * 1024;
constexpr int64_t kMaxQueryBlock = 64;
// Keys transposed for the score GEMM, kKeyFloats / head_dim positions at a time: 64 KB.
constexpr int64_t kKeyFloats = 16 * 1024;
constexpr int64_t kMaxHeadDim = 256;
constexpr int64_t kGemmMinQueries = 8;

// One head of one batch row: where its queries, cache rows and outputs are.
struct Head {
  const float* q;    // rows of head_dim floats, row stride ld
  const float* k;    // cache rows of head_dim floats, contiguous
  const float* v;
  float* out;        // rows like q's
  int64_t ld;
  int64_t head_dim;
  float scale;
};

// scores[r, s] = scale * q[r] . k[s] for s <= pos[r], r < rows; row stride lds.
struct DotScores {
  template <int W>
  TL_VEC_INLINE static void run(const Head* head, const int64_t* pos, int64_t rows,
                                float* scores, int64_t lds) {
    using F = opt::VecF<W>;
    const int64_t d = head->head_dim;
    const int64_t full = d / W * W;
    for (int64_t r = 0; r < rows; ++r) {
      const float* q = head->q + r * head->ld;
      const float* k = head->k;
      for (int64_t s = 0; s <= pos[r]; ++s, k += d) {
        F acc = F{};
        F a;
        F b;
        for (int64_t i = 0; i < full; i += W) {
          opt::vec_load<W>(q + i, a);
          opt::vec_load<W>(k + i, b);
          acc += a * b;
        }
        float sum = opt::vec_sum<W>(acc);
        for (int64_t i = full; i < d; ++i) sum += q[i] * k[i];
        scores[r * lds + s] = head->scale * sum;
      }
    }
  }
};

// Row r of scores becomes the softmax of its first pos[r] + 1 entries, zeros after them
// up to n (so that p @ v over n rows of v adds nothing from the positions not seen).
struct PrefixSoftmax {
  template <int W>
  TL_VEC_INLINE static void run(float* scores, const int64_t* pos, int64_t rows, int64_t n) {
    using F = opt::VecF<W>;
    for (int64_t r = 0; r < rows; ++r) {
      float* row = scores + r * n;
      const int64_t len = pos[r] + 1;
      const int64_t full = len / W * W;
      F v;
      F vmax = F{} - __builtin_inff();
      for (int64_t i = 0; i < full; i += W) {
        opt::vec_load<W>(row + i, v);
        opt::vec_max_into<W>(vmax, v);
      }
      float max = opt::vec_max<W>(vmax);
      for (int64_t i = full; i < len; ++i) max = row[i] > max ? row[i] : max;
      F vsum = F{};
      for (int64_t i = 0; i < full; i += W) {
        opt::vec_load<W>(row + i, v);
        v -= max;
        opt::vec_exp<W>(v);
        vsum += v;
        opt::vec_store<W>(row + i, v);
      }
      float sum = opt::vec_sum<W>(vsum);
      if (full < len) {
        opt::vec_load_partial<W>(row + full, len - full, max, v);
        v -= max;
        opt::vec_exp<W>(v);
        for (int64_t i = 0; i < len - full; ++i) sum += v[i];
        opt::vec_store_partial<W>(row + full, len - full, v);
      }
      const F inv = F{} + 1.0f / sum;
      for (int64_t i = 0; i < full; i += W) {
        opt::vec_load<W>(row + i, v);
        opt::vec_store<W>(row + i, v * inv);
      }
      for (int64_t i = full; i < len; ++i) row[i] *= inv[0];
      for (int64_t i = len; i < n; ++i) row[i] = 0.0f;
    }
  }
};

// Key rows [first, first + count) of one head, transposed (count columns of head_dim
// rows) for the score GEMM; kept from one block of queries to the next.
struct KeyColumns {
  alignas(64) float data[kKeyFloats];
  int64_t first = -1;
  int64_t count = 0;
};

// scores[r, s] for s < n with the GEMM: q rows @ key columns, a chunk of them at a time
// (transposed once for every block when the keys of all `seen` positions fit).
void gemm_scores(const opt::GemmMicroKernels& uk, const Head& head, int64_t rows,
                 int64_t n, int64_t seen, KeyColumns& keys, float* scores) {
  const int64_t d = head.head_dim;
  const int64_t chunk = kKeyFloats / d;
  for (int64_t s0 = 0; s0 < n; s0 += chunk) {
    if (keys.first != s0) {
      keys.first = s0;
      keys.count = opt::gemm_min(chunk, seen - s0);
      for (int64_t s = 0; s < keys.count; ++s) {
        const float* k = head.k + (s0 + s) * d;
        for (int64_t i = 0; i < d; ++i) keys.data[i * keys.count + s] = k[i];
      }
    }
    opt::GemmArgs g = opt::gemm_args(rows, opt::gemm_min(chunk, n - s0), d, head.q,
                                     keys.data, scores + s0);
    g.lda = head.ld;
    g.ldb = keys.count;
    g.ldc = n;
    g.alpha = head.scale;
    opt::gemm(uk, g);
  }
}

// Attention of one head's queries, a block of them at a time.
void attend(const opt::GemmMicroKernels& uk, const Head& head, const int64_t* pos,
            int64_t queries) {
  alignas(64) float scores[kScoreFloats];
  KeyColumns keys;
  int64_t seen = 0;  // positions any query sees
  for (int64_t t = 0; t < queries; ++t) seen = pos[t] + 1 > seen ? pos[t] + 1 : seen;
  int64_t t0 = 0;
  while (t0 < queries) {
    // The block: as many queries as fit the scores beside the positions they see.
    int64_t rows = 0;
    int64_t n = 0;
    while (t0 + rows < queries && rows < kMaxQueryBlock) {
      const int64_t block_seen = pos[t0 + rows] + 1 > n ? pos[t0 + rows] + 1 : n;
      if ((rows + 1) * block_seen > kScoreFloats) break;
      n = block_seen;
      ++rows;
    }
    Head block = head;
    block.q += t0 * head.ld;
    block.out += t0 * head.ld;
    if (queries < kGemmMinQueries) {
      opt::vec_run<DotScores>(&block, pos + t0, rows, scores, n);
    } else {
      gemm_scores(uk, block, rows, n, seen, keys, scores);
    }
    opt::vec_run<PrefixSoftmax>(scores, pos + t0, rows, n);
    opt::GemmArgs g = opt::gemm_args(rows, head.head_dim, n, scores, head.v, block.out);
    g.ldc = head.ld;
    opt::gemm(uk, g);
    t0 += rows;
  }
}

// The heads of every batch row, one task each (KernelContext::parallel_for).
struct Heads {
  const opt::GemmMicroKernels* uk;
  const float* q;
  const float* k_cache;
  const float* v_cache;
  float* out;
  const int64_t* pos;
  int64_t queries, heads, positions, head_dim;
  float scale;
};

void attend_task(void* context, int64_t task) {
  const Heads& all = *static_cast<const Heads*>(context);
  const int64_t b = task / all.heads;
  const int64_t h = task % all.heads;
  const int64_t width = all.heads * all.head_dim;
  const int64_t rows = b * all.queries * width + h * all.head_dim;
  const int64_t cache = task * all.positions * all.head_dim;
  const Head head{all.q + rows, all.k_cache + cache, all.v_cache + cache, all.out + rows,
                  width, all.head_dim, all.scale};
  attend(*all.uk, head, all.pos, all.queries);
}

}  // namespace

// cached_attention.out(Tensor q, Tensor k_cache, Tensor v_cache, Tensor input_pos, *,
//                      Tensor(a!) out) -> Tensor(a!)
// q [B, T, C], caches [B, heads, S, C / heads], input_pos [T] Long in [0, S), Float.
Tensor& cached_attention_out(KernelContext& ctx, const Tensor& q, const Tensor& k_cache,
                             const Tensor& v_cache, const Tensor& input_pos, Tensor& out) {
  // Validate: shapes that fit together, contiguous Float, head_dim and S within the
  // stack buffers.
  TL_KERNEL_CHECK(ctx,
                  q.dtype() == ScalarType::Float && k_cache.dtype() == ScalarType::Float &&
                      v_cache.dtype() == ScalarType::Float &&
                      out.dtype() == ScalarType::Float &&
                      input_pos.dtype() == ScalarType::Long && q.dim() == 3 &&
                      k_cache.dim() == 4 && v_cache.dim() == 4 && input_pos.dim() == 1,
                  InvalidArgument, out);
  const int64_t batch = q.size(0);
  const int64_t queries = q.size(1);
  const int64_t width = q.size(2);
  const int64_t heads = k_cache.size(1);
  const int64_t positions = k_cache.size(2);
  const int64_t head_dim = k_cache.size(3);
  bool same_caches = true;
  for (int64_t d = 0; d < 4; ++d) {
    same_caches = same_caches && k_cache.size(d) == v_cache.size(d);
  }
  TL_KERNEL_CHECK(ctx,
                  same_caches && k_cache.size(0) == batch && heads * head_dim == width &&
                      input_pos.size(0) == queries && head_dim > 0 &&
                      head_dim <= kMaxHeadDim && positions <= kScoreFloats &&
                      ::tailor::is_default_dim_order(q) &&
                      ::tailor::is_default_dim_order(k_cache) &&
                      ::tailor::is_default_dim_order(v_cache),
                  InvalidArgument, out);
  const int64_t* pos = input_pos.const_data<int64_t>();
  for (int64_t t = 0; t < queries; ++t) {
    TL_KERNEL_CHECK_MSG(ctx, pos[t] >= 0 && pos[t] < positions, InvalidArgument, out,
                        "input_pos[%lld] = %lld is outside the cache's %lld positions",
                        static_cast<long long>(t), static_cast<long long>(pos[t]),
                        static_cast<long long>(positions));
  }

  // Resize: out is q's shape.
  TL_KERNEL_CHECK(ctx, ::tailor::resize_like(out, q) == ::tailor::Error::Ok, InvalidArgument,
                  out);

  // Compute: a task per head of each batch row, over the context's threads.
  Heads all{&opt::gemm_micro_kernels(::tailor::cpu_level()), q.const_data<float>(),
            k_cache.const_data<float>(), v_cache.const_data<float>(),
            out.mutable_data<float>(), pos, queries, heads, positions, head_dim,
            1.0f / __builtin_sqrtf(static_cast<float>(head_dim))};
  ctx.parallel_for(batch * heads, &attend_task, &all);
  return out;
}

}  // namespace nanogpt::native
