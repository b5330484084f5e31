// The optimized kernel of llm::cache_attention.out (kernels/llm/llm_optimized.yaml; the
// plain C++ reference is op_cache_attention_portable.cpp).
//
// Queries attend in row sets: up to kMaxRows query rows, each with its kv head and its
// range of positions. The positions go by in chunks with an online softmax (the running
// maximum and sum per row, the output rows as accumulators, rescaled when the maximum
// grows), so no cache is too long for the scratch and no head too wide:
//
// - a few queries (a decode step): a row set is the query heads of one token, all of
//   them or (over several threads) those of a range of kv heads. The cache is read in
//   place, one position's row (every kv head's keys side by side) after the other: each
//   key is dotted with every query head of its group (grouped-query attention reads a
//   kv head once for all of them), then each value row is added into the outputs the
//   same way. Only positions inside the window are touched. (Reading one head's slice
//   of each row instead, a strided walk, made the demo GPT's decode 15% slower.)
// - a block of queries (a prefill): a row set is up to kMaxRows tokens of one query head;
//   scores = q @ k^T on the optimized GEMM, over a chunk of keys transposed into scratch
//   (kept from block to block when it is the same chunk), and out += p @ v on the GEMM
//   too, reading the value rows where they are.
//
// No heap and no large stack buffer: each thread takes kAttentionScratchBytes of its
// kernel scratch slice (the scores, the transposed keys and the GEMM's own buffers).
#include "kernels/llm/attention_rows.h"
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

using attention::AddValues;
using attention::Cache;
using attention::DotScores;
using attention::kAttentionScratchBytes;
using attention::kKeyFloats;
using attention::kMaxRows;
using attention::kScoreFloats;
using attention::Normalize;
using attention::OnlineSoftmax;
using attention::Rows;

// Positions of one chunk of keys transposed for the score GEMM.
constexpr int64_t kGemmChunk = kScoreFloats / kMaxRows;
// With fewer queries the scores are dot products: transposing keys for a row or two of
// scores would copy the cache for nothing.
constexpr int64_t kGemmMinQueries = 8;
// Wider heads score by dot products too: a chunk of their keys would be under 16 positions.
constexpr int64_t kGemmMaxHeadDim = kKeyFloats / 16;

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
bool score_by_gemm(const opt::GemmMicroKernels& uk, const Rows& rows, const Cache& cache,
                 int64_t s0, int64_t n, int64_t chunk, int64_t end, KeyColumns& keys,
                 float* scores, KernelScratch& scratch) {
  const int64_t d = cache.head_dim;
  if (keys.first != s0 || keys.count < n) {
    keys.first = s0;
    keys.count = opt::gemm_min(chunk, end - s0);
    for (int64_t s = 0; s < keys.count; ++s) {
      const float* k = cache.k + (s0 + s) * cache.ld + rows.kv[0];
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

// Attention of one row set, its scores by the GEMM or by dot products and its values
// added by the GEMM (a block of one head's queries) or by AddValues (a decode step's
// heads); false when a GEMM found too little scratch.
bool attend(const opt::GemmMicroKernels& uk, const Rows& rows, const Cache& cache,
            bool scores_by_gemm, bool gemm_values, Work& work, KernelScratch& scratch) {
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
  const int64_t chunk = scores_by_gemm ? opt::gemm_min(kGemmChunk, kKeyFloats / d)
                                       : kScoreFloats / rows.count;
  for (int64_t s0 = lo; s0 <= hi; s0 += chunk) {
    const int64_t n = opt::gemm_min(chunk, hi + 1 - s0);
    if (scores_by_gemm) {
      if (!score_by_gemm(uk, rows, cache, s0, n, chunk, work.end, work.keys, work.scores,
                         scratch)) {
        return false;
      }
    } else {
      opt::vec_run<DotScores>(&rows, &cache, s0, n, work.scores);
    }
    opt::vec_run<OnlineSoftmax>(&rows, s0, n, d, work.scores, max, sum);
    if (!gemm_values) {
      opt::vec_run<AddValues>(&rows, &cache, s0, n, static_cast<const float*>(work.scores));
      continue;
    }
    // out += p @ v, the value rows (of the set's one kv head) read in place.
    opt::GemmArgs g = opt::gemm_args(rows.count, d, n, work.scores,
                                     cache.v + s0 * cache.ld + rows.kv[0], rows.out);
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
  int64_t heads_per_task;  // decode: a token's query heads per task
  bool failed;  // a task found too little scratch (written with an atomic store)
};

Cache cache_of(const Job& job, int64_t b) {
  const CacheAttentionShape& s = job.shape;
  const int64_t offset = b * s.positions * s.cache_stride();
  return Cache{job.k_cache + offset, job.v_cache + offset, s.cache_stride(), s.head_dim,
               job.scale};
}

// A few queries: task (b, t, range of query heads), its row sets up to kMaxRows heads.
bool decode_task(const Job& job, int64_t task, KernelScratch& scratch) {
  const CacheAttentionShape& s = job.shape;
  const int64_t parts = (s.heads + job.heads_per_task - 1) / job.heads_per_task;
  const int64_t h_begin = task % parts * job.heads_per_task;
  const int64_t h_end = opt::gemm_min(s.heads, h_begin + job.heads_per_task);
  const int64_t t = task / parts % s.queries;
  const int64_t b = task / parts / s.queries;
  Work work{scratch.allocate<float>(kScoreFloats), {nullptr}, s.last(t) + 1};
  if (work.scores == nullptr) return false;
  const Cache cache = cache_of(job, b);
  for (int64_t h0 = h_begin; h0 < h_end; h0 += kMaxRows) {
    Rows rows;
    const int64_t row0 = ((b * s.queries + t) * s.heads + h0) * s.head_dim;
    rows.q = job.q + row0;
    rows.out = job.out + row0;
    rows.ld = s.head_dim;
    rows.count = opt::gemm_min(kMaxRows, h_end - h0);
    for (int64_t r = 0; r < rows.count; ++r) {
      rows.kv[r] = (h0 + r) / s.group * s.head_dim;
      rows.lo[r] = s.first(t);
      rows.hi[r] = s.last(t);
    }
    if (!attend(*job.uk, rows, cache, false, false, work, scratch)) return false;
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
  for (int64_t t = 0; t < s.queries; ++t) {
    work.end = s.last(t) + 1 > work.end ? s.last(t) + 1 : work.end;
  }
  const Cache cache = cache_of(job, b);
  for (int64_t t0 = 0; t0 < s.queries; t0 += kMaxRows) {
    Rows rows;
    const int64_t row0 = ((b * s.queries + t0) * s.heads + h) * s.head_dim;
    rows.q = job.q + row0;
    rows.out = job.out + row0;
    rows.ld = s.heads * s.head_dim;
    rows.count = opt::gemm_min(kMaxRows, s.queries - t0);
    for (int64_t r = 0; r < rows.count; ++r) {
      rows.kv[r] = h / s.group * s.head_dim;
      rows.lo[r] = s.first(t0 + r);
      rows.hi[r] = s.last(t0 + r);
    }
    if (!attend(*job.uk, rows, cache, gemm, true, work, scratch)) return false;
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

// Query heads per decode task: a token's heads split among the threads, in whole groups
// (each kv head then read by one task) unless a group is larger than a share.
int64_t decode_heads_per_task(const CacheAttentionShape& s, int64_t threads) {
  const int64_t tasks_per_token = (threads + s.batch * s.queries - 1) / (s.batch * s.queries);
  const int64_t share = (s.heads + tasks_per_token - 1) / tasks_per_token;
  return share <= s.group ? share : (share + s.group - 1) / s.group * s.group;
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

  // Compute: decode tasks per (batch row, query, share of the heads), prefill tasks per
  // (batch row, query head), over the context's threads.
  Job job{&opt::gemm_micro_kernels(::tailor::cpu_level()), q.const_data<float>(),
          k_cache.const_data<float>(), v_cache.const_data<float>(), out.mutable_data<float>(),
          shape, static_cast<float>(scale), decode_heads_per_task(shape, ctx.threads()), false};
  if (shape.queries < kGemmMinQueries) {
    const int64_t parts = (shape.heads + job.heads_per_task - 1) / job.heads_per_task;
    ctx.parallel_for(shape.batch * shape.queries * parts, &decode_task_entry, &job);
  } else {
    ctx.parallel_for(shape.batch * shape.heads, &prefill_task_entry, &job);
  }
  TL_KERNEL_CHECK_MSG(ctx, !__atomic_load_n(&job.failed, __ATOMIC_RELAXED),
                      MemoryAllocationFailed, out, TL_SCRATCH_TOO_SMALL,
                      "llm::cache_attention.out");
  return out;
}

}  // namespace llm::optimized::native
