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
// The manifest states the figure as a number: a change here must change it there.
static_assert(kAttentionScratchBytes == 200960,
              "update scratch_bytes in kernels/llm/llm_optimized.yaml");

// Query rows that attend together: row r's query at q + r * ld, its output at out + r *
// ld, its keys at kv[r] floats into each cache row, seeing the positions [lo[r], hi[r]].
struct Rows {
  const float* q;
  float* out;
  int64_t ld;
  int64_t count;
  int64_t kv[kMaxRows];
  int64_t lo[kMaxRows];
  int64_t hi[kMaxRows];
};

// Cache rows of one batch row: position s's keys at k + s * ld (+ a row's kv offset).
struct Cache {
  const float* k;
  const float* v;
  int64_t ld;
  int64_t head_dim;
  float scale;
};

// scale * q . k for one row and one key: the dot product of head_dim floats.
template <int W>
TL_VEC_INLINE float dot(const float* q, const float* k, int64_t d, int64_t full, float scale) {
  opt::VecF<W> acc = opt::VecF<W>{};
  opt::VecF<W> a;
  opt::VecF<W> b;
  for (int64_t i = 0; i < full; i += W) {
    opt::vec_load<W>(q + i, a);
    opt::vec_load<W>(k + i, b);
    acc += a * b;
  }
  float sum = opt::vec_sum<W>(acc);
  for (int64_t i = full; i < d; ++i) sum += q[i] * k[i];
  return scale * sum;
}

// v's lanes summed down to 4: lane i = the sum of lanes i, i + 4, i + 8, ...
template <int W>
TL_VEC_INLINE opt::VecF<4> fold_to_4(const opt::VecF<W>& v) {
  if constexpr (W == 4) {
    return v;
  } else {
    opt::VecF<W / 2> lo;
    opt::VecF<W / 2> hi;
    opt::vec_halves<W>(v, lo, hi);
    return fold_to_4<W / 2>(lo + hi);
  }
}

// scores[0, 4) = scale * q . k for the 4 cache rows k, k + ld, k + 2 ld, k + 3 ld. The four
// sums are reduced together (two rounds of interleaving, then halving), about a third of
// the shuffles and adds of reducing each alone, which is most of a short dot product.
template <int W>
TL_VEC_INLINE void dots4(const float* q, const float* k, int64_t ld, int64_t d, int64_t full,
                         float scale, float* scores) {
  using F = opt::VecF<W>;
  F acc[4] = {F{}, F{}, F{}, F{}};
  F a;
  F b;
  for (int64_t i = 0; i < full; i += W) {
    opt::vec_load<W>(q + i, a);
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) {
      opt::vec_load<W>(k + j * ld + i, b);
      acc[j] += a * b;
    }
  }
  float tail[4] = {0.0f, 0.0f, 0.0f, 0.0f};  // added after the reduction: a lane written
  for (int64_t i = full; i < d; ++i) {       // alone would keep acc in memory
    for (int j = 0; j < 4; ++j) tail[j] += q[i] * k[j * ld + i];
  }
  F lo;
  F hi;
  opt::vec_interleave<W>(acc[0], acc[1], lo, hi);
  const F x = lo + hi;  // even lanes: row 0's partial sums, odd: row 1's
  opt::vec_interleave<W>(acc[2], acc[3], lo, hi);
  const F y = lo + hi;
  opt::vec_interleave<W>(x, y, lo, hi);
  const opt::VecF<4> sums = fold_to_4<W>(lo + hi);  // rows 0, 2, 1, 3
  scores[0] = scale * (sums[0] + tail[0]);
  scores[1] = scale * (sums[2] + tail[1]);
  scores[2] = scale * (sums[1] + tail[2]);
  scores[3] = scale * (sums[3] + tail[3]);
}

// scores[r, s - s0] = scale * q[r] . k[s] for the positions s0 <= s < s0 + n that row r
// sees; a cache row is read once for every row of the set. Rows that share one window (a
// decode step's heads) skip the test of each position and score four positions at once.
struct DotScores {
  template <int W>
  TL_VEC_INLINE static void run(const Rows* rows, const Cache* cache, int64_t s0, int64_t n,
                                float* scores) {
    const int64_t d = cache->head_dim;
    const int64_t full = d / W * W;
    const int64_t count = rows->count;
    const float scale = cache->scale;
    bool shared = true;
    for (int64_t r = 1; r < count; ++r) {
      shared = shared && rows->lo[r] == rows->lo[0] && rows->hi[r] == rows->hi[0];
    }
    if (shared) {
      const int64_t begin = rows->lo[0] > s0 ? rows->lo[0] : s0;
      const int64_t end = rows->hi[0] + 1 < s0 + n ? rows->hi[0] + 1 : s0 + n;
      int64_t s = begin;
      for (; s + 4 <= end; s += 4) {
        const float* row = cache->k + s * cache->ld;
        for (int64_t r = 0; r < count; ++r) {
          dots4<W>(rows->q + r * rows->ld, row + rows->kv[r], cache->ld, d, full, scale,
                   scores + r * n + (s - s0));
        }
      }
      for (; s < end; ++s) {
        const float* row = cache->k + s * cache->ld;
        for (int64_t r = 0; r < count; ++r) {
          scores[r * n + (s - s0)] = dot<W>(rows->q + r * rows->ld, row + rows->kv[r], d, full,
                                            scale);
        }
      }
      return;
    }
    for (int64_t s = s0; s < s0 + n; ++s) {
      const float* row = cache->k + s * cache->ld;
      for (int64_t r = 0; r < count; ++r) {
        if (s < rows->lo[r] || s > rows->hi[r]) continue;
        scores[r * n + (s - s0)] = dot<W>(rows->q + r * rows->ld, row + rows->kv[r], d, full,
                                          scale);
      }
    }
  }
};

// Value rows AddValues adds into the outputs at a time: each output vector is loaded and
// stored once per eight of them.
constexpr int kValueRows = 8;  // AddValues sums them as four pairs

// out[r] += sum over s0 <= s < s0 + n of p[r, s - s0] * v[s], the value rows taken in
// order, kValueRows at a time, each added into every row of the set (the GEMM would walk
// one head's slice of every row instead).
struct AddValues {
  template <int W>
  TL_VEC_INLINE static void run(const Rows* rows, const Cache* cache, int64_t s0, int64_t n,
                                const float* p) {
    using F = opt::VecF<W>;
    const int64_t d = cache->head_dim;
    const int64_t full = d / W * W;
    const int64_t ld = cache->ld;
    int64_t s = 0;
    for (; s + kValueRows <= n; s += kValueRows) {
      const float* v = cache->v + (s0 + s) * ld;
      for (int64_t r = 0; r < rows->count; ++r) {
        float w[kValueRows];
        for (int j = 0; j < kValueRows; ++j) w[j] = p[r * n + s + j];
        const float* vr = v + rows->kv[r];
        float* out = rows->out + r * rows->ld;
        for (int64_t i = 0; i < full; i += W) {
          // Products summed in pairs, then the pairs as a tree: a short chain of adds.
          F pair[kValueRows / 2];
#pragma GCC unroll 4
          for (int j = 0; j < kValueRows / 2; ++j) {
            F a;
            F b;
            opt::vec_load<W>(vr + 2 * j * ld + i, a);
            opt::vec_load<W>(vr + (2 * j + 1) * ld + i, b);
            pair[j] = a * w[2 * j] + b * w[2 * j + 1];
          }
          F acc;
          opt::vec_load<W>(out + i, acc);
          opt::vec_store<W>(out + i, acc + ((pair[0] + pair[1]) + (pair[2] + pair[3])));
        }
        for (int64_t i = full; i < d; ++i) {
          float sum = out[i];
          for (int j = 0; j < kValueRows; ++j) sum += vr[j * ld + i] * w[j];
          out[i] = sum;
        }
      }
    }
    for (; s < n; ++s) {
      const float* v = cache->v + (s0 + s) * ld;
      for (int64_t r = 0; r < rows->count; ++r) {
        const float w = p[r * n + s];
        const float* vr = v + rows->kv[r];
        float* out = rows->out + r * rows->ld;
        for (int64_t i = 0; i < full; i += W) {
          F acc;
          F a;
          opt::vec_load<W>(out + i, acc);
          opt::vec_load<W>(vr + i, a);
          opt::vec_store<W>(out + i, acc + a * w);
        }
        for (int64_t i = full; i < d; ++i) out[i] += vr[i] * w;
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
