// The row-set building blocks of the optimized llm::cache_attention kernel
// (op_cache_attention_optimized.cpp says how it cuts the work): a set of query rows and
// the cache they read, their scores by SIMD dot products, the online softmax over one
// chunk of positions, the value rows added into the outputs, and the final division.
#pragma once

#include <stdint.h>

#include "kernels/optimized/util/gemm.h"
#include "kernels/optimized/util/vec_math.h"

namespace llm::optimized::native::attention {

namespace opt = ::tailor::optimized;

// Rows of one row set at most: a block of a prefill's queries, or of a group's heads.
inline constexpr int64_t kMaxRows = 64;

// Scores of one row set over one chunk of positions: 64 KB.
inline constexpr int64_t kScoreFloats = 16 * 1024;
// Keys transposed for the score GEMM: 64 KB, kGemmChunk positions of head_dim floats.
inline constexpr int64_t kKeyFloats = 16 * 1024;
// What one thread of the kernel takes from its scratch slice: the manifest's scratch_bytes
// (kernels/llm/llm_optimized.yaml; tests/codegen/test_scratch_parity.py compares them).
inline constexpr size_t kAttentionScratchBytes =
    (kScoreFloats + kKeyFloats) * sizeof(float) + opt::kGemmScratchBytes;

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
inline constexpr int kValueRows = 8;  // AddValues sums them as four pairs

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

}  // namespace llm::optimized::native::attention
