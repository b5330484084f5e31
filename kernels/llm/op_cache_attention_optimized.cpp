// The optimized kernel of llm::cache_attention.out (kernels/llm/llm_optimized.yaml; the
// plain C++ reference is op_cache_attention_portable.cpp).
//
// Queries attend in row sets: rows that read the same kv head's cache rows, each seeing
// its own range of positions. The positions go by in chunks with an online softmax (the
// running maximum and sum per row, the output rows as accumulators, rescaled when the
// maximum grows), so no cache is too long for the scratch and no head too wide:
//
// - a few queries (a decode step): a row set is the query heads of one token that share
//   a kv head (grouped-query attention), scored by dot products over the cache rows in
//   place. Each key row is read once per group and dotted with every head of it; only
//   positions inside the window are touched.
// - a block of queries (a prefill): a row set is up to kMaxRows tokens of one query head;
//   scores = q @ k^T on the optimized GEMM, over a chunk of keys transposed into scratch
//   (kept from block to block when it is the same chunk).
//
// Either way out += p @ v runs on the GEMM, reading the value rows where they are. No heap
// and no large stack buffer: each thread takes kAttentionScratchBytes of its kernel
// scratch slice (the scores, the transposed keys and the GEMM's own buffers).
#include "kernels/llm/cache_attention_shape.h"
#include "kernels/optimized/util/gemm.h"
#include "kernels/optimized/util/vec_math.h"
#include "runtime/kernel/kernel_includes.h"

namespace llm::optimized::native {

using ::tailor::KernelContext;
using ::tailor::KernelScratch;
using ::tailor::Tensor;
namespace opt = ::tailor::optimized;

namespace {

// Rows of one row set at most: a block of a prefill's queries, or of a group's heads.
constexpr int64_t kMaxRows = 64;
// Scores of one row set over one chunk of positions: 64 KB.
constexpr int64_t kScoreFloats = 16 * 1024;
// Keys transposed for the score GEMM: 64 KB, kGemmChunk positions of head_dim floats.
constexpr int64_t kKeyFloats = 16 * 1024;
constexpr int64_t kGemmChunk = kScoreFloats / kMaxRows;
// With fewer queries the scores are dot products: transposing keys for a row or two of
// scores would copy the cache for nothing.
constexpr int64_t kGemmMinQueries = 8;
// Wider heads score by dot products too: a chunk of their keys would be under 16 positions.
constexpr int64_t kGemmMaxHeadDim = kKeyFloats / 16;
// What one thread takes from its scratch slice. The manifest's scratch_bytes
// (kernels/llm/llm_optimized.yaml) must be at least this.
constexpr size_t kAttentionScratchBytes =
    (kScoreFloats + kKeyFloats) * sizeof(float) + opt::kGemmScratchBytes;

// Query rows that attend together over one kv head's cache: row r's query at q + r * ld,
// its output at out + r * ld, seeing the positions [lo[r], hi[r]].
struct Rows {
  const float* q;
  float* out;
  int64_t ld;
  int64_t count;
  int64_t lo[kMaxRows];
  int64_t hi[kMaxRows];
};

// One kv head's cache rows: position s's key at k + s * ld.
struct Cache {
  const float* k;
  const float* v;
  int64_t ld;
  int64_t head_dim;
  float scale;
};

// scores[r, s - s0] = scale * q[r] . k[s] for the positions s0 <= s < s0 + n that row r
// sees; a key row is read once for every row of the set.
struct DotScores {
  template <int W>
  TL_VEC_INLINE static void run(const Rows* rows, const Cache* cache, int64_t s0, int64_t n,
                                float* scores) {
    using F = opt::VecF<W>;
    const int64_t d = cache->head_dim;
    const int64_t full = d / W * W;
    for (int64_t s = s0; s < s0 + n; ++s) {
      const float* k = cache->k + s * cache->ld;
      for (int64_t r = 0; r < rows->count; ++r) {
        if (s < rows->lo[r] || s > rows->hi[r]) continue;
        const float* q = rows->q + r * rows->ld;
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
        scores[r * n + (s - s0)] = cache->scale * sum;
      }
    }
  }
};

// row[0, n) *= factor.
template <int W>
TL_VEC_INLINE void scale_row(float* row, int64_t n, float factor) {
  const int64_t full = n / W * W;
  opt::VecF<W> v;
  for (int64_t i = 0; i < full; i += W) {
    opt::vec_load<W>(row + i, v);
    opt::vec_store<W>(row + i, v * factor);
  }
  for (int64_t i = full; i < n; ++i) row[i] *= factor;
}

// The online softmax over one chunk: row r's scores become exp(score - max) where it
// sees the position and 0 elsewhere (so p @ v adds nothing from the others); its running
// maximum max[r] and sum sum[r] take the chunk in, and its output row is rescaled when
// the maximum grows.
struct OnlineSoftmax {
  template <int W>
  TL_VEC_INLINE static void run(const Rows* rows, int64_t s0, int64_t n, int64_t head_dim,
                                float* scores, float* max, float* sum) {
    using F = opt::VecF<W>;
    for (int64_t r = 0; r < rows->count; ++r) {
      float* row = scores + r * n;
      const int64_t lo = rows->lo[r] - s0;
      const int64_t hi = rows->hi[r] - s0 + 1;
      const int64_t a = lo < 0 ? 0 : (lo > n ? n : lo);
      const int64_t e = hi < a ? a : (hi > n ? n : hi);
      for (int64_t i = 0; i < a; ++i) row[i] = 0.0f;
      for (int64_t i = e; i < n; ++i) row[i] = 0.0f;
      if (a == e) continue;
      F v;
      F vmax = F{} - __builtin_inff();
      int64_t i = a;
      for (; i + W <= e; i += W) {
        opt::vec_load<W>(row + i, v);
        opt::vec_max_into<W>(vmax, v);
      }
      float m = opt::vec_max<W>(vmax);
      for (; i < e; ++i) m = row[i] > m ? row[i] : m;
      m = max[r] > m ? max[r] : m;
      F vsum = F{};
      for (i = a; i + W <= e; i += W) {
        opt::vec_load<W>(row + i, v);
        v -= m;
        opt::vec_exp<W>(v);
        vsum += v;
        opt::vec_store<W>(row + i, v);
      }
      float total = opt::vec_sum<W>(vsum);
      if (i < e) {
        opt::vec_load_partial<W>(row + i, e - i, m, v);
        v -= m;
        opt::vec_exp<W>(v);
        for (int64_t j = 0; j < e - i; ++j) total += v[j];
        opt::vec_store_partial<W>(row + i, e - i, v);
      }
      if (sum[r] > 0.0f && m > max[r]) {  // what was summed against the old maximum
        F factor = F{} + (max[r] - m);
        opt::vec_exp<W>(factor);
        sum[r] *= factor[0];
        scale_row<W>(rows->out + r * rows->ld, head_dim, factor[0]);
      }
      sum[r] += total;
      max[r] = m;
    }
  }
};

// Each output row divided by its row's sum.
struct Normalize {
  template <int W>
  TL_VEC_INLINE static void run(const Rows* rows, int64_t head_dim, const float* sum) {
    for (int64_t r = 0; r < rows->count; ++r) {
      scale_row<W>(rows->out + r * rows->ld, head_dim, 1.0f / sum[r]);
    }
  }
};

// Keys [first, first + count) of one kv head, transposed (count columns of head_dim
// rows) for the score GEMM; kept from one block of queries to the next.
struct KeyColumns {
  float* data;  // kKeyFloats, from the scratch slice
  int64_t first = -1;
  int64_t count = 0;
};

// scores[r, s - s0] for s0 <= s < s0 + n with the GEMM (rows that do not see s get a
// score all the same, which the softmax then zeroes); `end` bounds the positions any
// query of the task sees, so that a chunk transposed once serves every block.
bool gemm_scores(const opt::GemmMicroKernels& uk, const Rows& rows, const Cache& cache,
                 int64_t s0, int64_t n, int64_t chunk, int64_t end, KeyColumns& keys,
                 float* scores, KernelScratch& scratch) {
  const int64_t d = cache.head_dim;
  if (keys.first != s0 || keys.count < n) {
    keys.first = s0;
    keys.count = opt::gemm_min(chunk, end - s0);
    for (int64_t s = 0; s < keys.count; ++s) {
      const float* k = cache.k + (s0 + s) * cache.ld;
      for (int64_t i = 0; i < d; ++i) keys.data[i * keys.count + s] = k[i];
    }
  }
  opt::GemmArgs g = opt::gemm_args(rows.count, n, d, rows.q, keys.data, scores);
  g.lda = rows.ld;
  g.ldb = keys.count;
  g.alpha = cache.scale;
  return opt::gemm(uk, g, scratch);
}

// Where a task keeps its buffers: scores, transposed keys and their chunk.
struct Work {
  float* scores;
  KeyColumns keys;
  int64_t end;  // one past the last position any query of the task sees
};

// Attention of one row set; false when a GEMM found too little scratch.
bool attend(const opt::GemmMicroKernels& uk, const Rows& rows, const Cache& cache, bool gemm,
            Work& work, KernelScratch& scratch) {
  const int64_t d = cache.head_dim;
  int64_t lo = rows.lo[0];
  int64_t hi = rows.hi[0];
  float max[kMaxRows];
  float sum[kMaxRows];
  for (int64_t r = 0; r < rows.count; ++r) {
    lo = rows.lo[r] < lo ? rows.lo[r] : lo;
    hi = rows.hi[r] > hi ? rows.hi[r] : hi;
    max[r] = -__builtin_inff();
    sum[r] = 0.0f;
    __builtin_memset(rows.out + r * rows.ld, 0, d * sizeof(float));
  }
  const int64_t chunk = gemm ? opt::gemm_min(kGemmChunk, kKeyFloats / d)
                             : kScoreFloats / rows.count;
  for (int64_t s0 = lo; s0 <= hi; s0 += chunk) {
    const int64_t n = opt::gemm_min(chunk, hi + 1 - s0);
    if (gemm) {
      if (!gemm_scores(uk, rows, cache, s0, n, chunk, work.end, work.keys, work.scores,
                       scratch)) {
        return false;
      }
    } else {
      opt::vec_run<DotScores>(&rows, &cache, s0, n, work.scores);
    }
    opt::vec_run<OnlineSoftmax>(&rows, s0, n, d, work.scores, max, sum);
    // out += p @ v, the value rows read in place.
    opt::GemmArgs g = opt::gemm_args(rows.count, d, n, work.scores, cache.v + s0 * cache.ld,
                                     rows.out);
    g.ldb = cache.ld;
    g.ldc = rows.ld;
    g.accumulate = true;
    if (!opt::gemm(uk, g, scratch)) return false;
  }
  opt::vec_run<Normalize>(&rows, d, static_cast<const float*>(sum));
  return true;
}

// The call, split into tasks (KernelContext::parallel_for).
struct Job {
  const opt::GemmMicroKernels* uk;
  const float* q;
  const float* k_cache;
  const float* v_cache;
  float* out;
  CacheAttentionShape shape;
  float scale;
  bool failed;  // a task found too little scratch (written with an atomic store)
};

Cache cache_of(const Job& job, int64_t b, int64_t kv_head) {
  const CacheAttentionShape& s = job.shape;
  const int64_t offset = (b * s.positions * s.kv_heads + kv_head) * s.head_dim;
  return Cache{job.k_cache + offset, job.v_cache + offset, s.cache_stride(), s.head_dim,
               job.scale};
}

// A few queries: task (b, kv head, t), its row sets the query heads sharing the kv head.
bool decode_task(const Job& job, int64_t task, KernelScratch& scratch) {
  const CacheAttentionShape& s = job.shape;
  const int64_t t = task % s.queries;
  const int64_t g = task / s.queries % s.kv_heads;
  const int64_t b = task / s.queries / s.kv_heads;
  Work work{scratch.allocate<float>(kScoreFloats), {nullptr}, s.last(t) + 1};
  if (work.scores == nullptr) return false;
  const Cache cache = cache_of(job, b, g);
  const int64_t row0 = ((b * s.queries + t) * s.heads + g * s.group) * s.head_dim;
  for (int64_t j0 = 0; j0 < s.group; j0 += kMaxRows) {
    Rows rows;
    rows.q = job.q + row0 + j0 * s.head_dim;
    rows.out = job.out + row0 + j0 * s.head_dim;
    rows.ld = s.head_dim;
    rows.count = opt::gemm_min(kMaxRows, s.group - j0);
    for (int64_t r = 0; r < rows.count; ++r) {
      rows.lo[r] = s.first(t);
      rows.hi[r] = s.last(t);
    }
    if (!attend(*job.uk, rows, cache, false, work, scratch)) return false;
  }
  return true;
}

// A block of queries: task (b, query head), its row sets blocks of kMaxRows tokens.
bool prefill_task(const Job& job, int64_t task, KernelScratch& scratch) {
  const CacheAttentionShape& s = job.shape;
  const int64_t h = task % s.heads;
  const int64_t b = task / s.heads;
  const bool gemm = s.head_dim <= kGemmMaxHeadDim;
  Work work{scratch.allocate<float>(kScoreFloats), {scratch.allocate<float>(kKeyFloats)}, 0};
  if (work.scores == nullptr || work.keys.data == nullptr) return false;
  for (int64_t t = 0; t < s.queries; ++t) work.end = s.last(t) + 1 > work.end ? s.last(t) + 1 : work.end;
  const Cache cache = cache_of(job, b, h / s.group);
  for (int64_t t0 = 0; t0 < s.queries; t0 += kMaxRows) {
    Rows rows;
    const int64_t row0 = ((b * s.queries + t0) * s.heads + h) * s.head_dim;
    rows.q = job.q + row0;
    rows.out = job.out + row0;
    rows.ld = s.heads * s.head_dim;
    rows.count = opt::gemm_min(kMaxRows, s.queries - t0);
    for (int64_t r = 0; r < rows.count; ++r) {
      rows.lo[r] = s.first(t0 + r);
      rows.hi[r] = s.last(t0 + r);
    }
    if (!attend(*job.uk, rows, cache, gemm, work, scratch)) return false;
  }
  return true;
}

void decode_task_entry(void* context, int64_t task, KernelScratch& scratch) {
  Job& job = *static_cast<Job*>(context);
  if (!decode_task(job, task, scratch)) __atomic_store_n(&job.failed, true, __ATOMIC_RELAXED);
}

void prefill_task_entry(void* context, int64_t task, KernelScratch& scratch) {
  Job& job = *static_cast<Job*>(context);
  if (!prefill_task(job, task, scratch)) __atomic_store_n(&job.failed, true, __ATOMIC_RELAXED);
}

}  // namespace

// cache_attention.out(Tensor q, Tensor k_cache, Tensor v_cache, Tensor input_pos,
//                     int sliding_window, float scale, *, Tensor(a!) out) -> Tensor(a!)
Tensor& cache_attention_out(KernelContext& ctx, const Tensor& q, const Tensor& k_cache,
                            const Tensor& v_cache, const Tensor& input_pos,
                            int64_t sliding_window, double scale, Tensor& out) {
  // Validate and resize.
  CacheAttentionShape shape;
  if (!check_cache_attention(ctx, q, k_cache, v_cache, input_pos, sliding_window, out, shape) ||
      out.numel() == 0) {
    return out;
  }

  // Compute: decode tasks per (batch row, kv head, query), prefill tasks per (batch row,
  // query head), over the context's threads.
  Job job{&opt::gemm_micro_kernels(::tailor::cpu_level()), q.const_data<float>(),
          k_cache.const_data<float>(), v_cache.const_data<float>(), out.mutable_data<float>(),
          shape, static_cast<float>(scale), false};
  if (shape.queries < kGemmMinQueries) {
    ctx.parallel_for(shape.batch * shape.kv_heads * shape.queries, &decode_task_entry, &job);
  } else {
    ctx.parallel_for(shape.batch * shape.heads, &prefill_task_entry, &job);
  }
  TL_KERNEL_CHECK_MSG(ctx, !__atomic_load_n(&job.failed, __ATOMIC_RELAXED),
                      MemoryAllocationFailed, out, TL_SCRATCH_TOO_SMALL,
                      "llm::cache_attention.out");
  return out;
}

}  // namespace llm::optimized::native
