// The optimized single-precision GEMM behind mm, addmm and bmm (kernels/optimized/):
//
//   c[m, n] = beta * bias + alpha * (a[m, k] @ b[k, n])      (row-major, strided rows)
//
// Blocked as in BLIS/GotoBLAS, cut to a fixed buffer (no heap in kernels): for each
// block of columns (nc) and of depth (kc <= 256) of b, small enough to stay in L2
// (kc x nc <= 64 KB), each tile of MR rows of c runs across the block's strips of NR
// columns with a register-tiled micro-kernel; the MR x kc floats of a stay in L1 and are
// read in place (a's rows are already contiguous along k). With many rows (m >= 16 MR)
// the block of b is first packed into a 64 KB buffer, strip after strip, so the
// micro-kernel reads it contiguously however wide b is; with fewer rows the copy would
// cost more than it saves (each element of b is used by only a few tiles), and b is read
// in place, only a ragged last strip copied. The buffer and a 4 KB bias row come from
// the scratch slice of each thread that runs part of a call (kGemmScratchBytes, runtime/
// kernel/kernel_scratch.h), not its stack, which then holds only a 1 KB edge tile.
//
// The micro-kernels (util/gemm_ukernel.h) exist per instruction-set level: AVX-512 and
// AVX2+FMA on x86-64 (compiled with function target attributes), NEON on aarch64, GNU
// vector C++ elsewhere and as the x86-64 baseline. gemm_micro_kernels() picks the best
// one cpu_level() allows, so one binary runs everywhere and never executes an
// instruction its CPU lacks.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "kernels/optimized/util/gemm_generic.h"
#include "kernels/optimized/util/gemm_neon.h"
#include "kernels/optimized/util/gemm_ukernel.h"
#include "kernels/optimized/util/gemm_x86.h"
#include "kernels/optimized/util/gemv.h"
#include "runtime/kernel/cpu_level.h"
#include "runtime/kernel/kernel_context.h"

namespace tailor::optimized {

// Depth of a block: kc rows of b per packed strip, MR x kc floats of a kept in L1.
inline constexpr int64_t kGemmDepth = 256;
// The packing buffer: 64 KB (kc = 256 by nc = 64 columns, or more columns when the depth
// is smaller).
inline constexpr int64_t kGemmPackFloats = 16 * 1024;
static_assert(kGemmPackFloats >= kGemmDepth * kGemmMaxNr, "a strip must fit the buffer");

struct GemmArgs {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  const float* a = nullptr;  // m rows of k, row stride lda
  int64_t lda = 0;
  const float* b = nullptr;  // k rows of n, row stride ldb
  int64_t ldb = 0;
  float* c = nullptr;  // m rows of n, row stride ldc; overlaps neither a nor b
  int64_t ldc = 0;
  float alpha = 1.0f;
  float beta = 1.0f;
  // Added as beta * bias[i * bias_row_stride + j * bias_col_stride] (stride 0 broadcasts);
  // nullptr: none, and beta is not used.
  const float* bias = nullptr;
  int64_t bias_row_stride = 0;
  int64_t bias_col_stride = 0;
  // c += alpha * (a @ b) instead: c's values are kept (a depth split into several calls,
  // as convolution's); no bias then.
  bool accumulate = false;
  // Rows of b may be read, and rows of c written, up to n rounded up to whole strips
  // (kGemmMaxNr): the caller's buffers have room there and ignore what lands in it. A
  // ragged last strip is then read and written in place, not copied through the packing
  // buffer and an edge tile (util/conv_winograd.h's many narrow products).
  bool row_slack = false;
  // b packed once at load (util/gemm_prepack.h: strips of the micro-kernels' width, depth
  // block by depth block), read instead of b for every row count; nullptr: pack per call.
  const float* packed_b = nullptr;
};

/// The GemmArgs of c[m, n] = a[m, k] @ b[k, n], each contiguous and row-major.
inline GemmArgs gemm_args(int64_t m, int64_t n, int64_t k, const float* a, const float* b,
                          float* c) {
  GemmArgs g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.a = a;
  g.lda = k;
  g.b = b;
  g.ldb = n;
  g.c = c;
  g.ldc = n;
  return g;
}

/// The micro-kernels of `level`, or of the best level below it compiled for this
/// architecture (on aarch64 every level gives NEON's).
inline const GemmMicroKernels& gemm_micro_kernels(CpuLevel level) {
#if defined(__x86_64__)
  if constexpr (kCpuLevelCeiling >= CpuLevel::Avx512) {
    if (level >= CpuLevel::Avx512) return kGemmAvx512;
  }
  if constexpr (kCpuLevelCeiling >= CpuLevel::Avx2) {
    if (level >= CpuLevel::Avx2) return kGemmAvx2;
  }
  return kGemmGeneric;
#elif defined(__aarch64__)
  (void)level;
  return kGemmNeon;
#else
  (void)level;
  return kGemmGeneric;
#endif
}

inline int64_t gemm_min(int64_t x, int64_t y) { return x < y ? x : y; }

// Columns per block at most: bounds the bias row below (4 KB) when the depth is small.
inline constexpr int64_t kGemmMaxCols = 1024;

// Scratch one thread of a GEMM takes: the packing buffer and the bias row, each aligned
// to KernelScratch::kAlignment. The manifests' scratch_bytes of mm, bmm and addmm
// (manifests/kernels/optimized.yaml) must be at least this.
inline constexpr size_t kGemmScratchBytes =
    (kGemmPackFloats + kGemmMaxCols + kGemmMaxNr) * sizeof(float) + 2 * KernelScratch::kAlignment;

// Copies b[0 .. kc, 0 .. nc) (row stride ldb) into `packed` as strips of NR columns,
// each kc x NR and contiguous; the last strip's missing columns are zeros. NR is a
// constant so that each row's copy is a few vector moves, not a memcpy call.
template <int64_t NR>
void gemm_pack_b(const float* b, int64_t ldb, int64_t kc, int64_t nc, float* packed) {
  for (int64_t j0 = 0; j0 < nc; j0 += NR) {
    const int64_t cols = gemm_min(nc - j0, NR);
    const float* src = b + j0;
    for (int64_t k = 0; k < kc; ++k, src += ldb, packed += NR) {
      if (cols == NR) {
        __builtin_memcpy(packed, src, NR * sizeof(float));
      } else {
        __builtin_memset(packed, 0, NR * sizeof(float));
        for (int64_t j = 0; j < cols; ++j) packed[j] = src[j];
      }
    }
  }
}

// Columns of b a packed depth block spans: whole strips of width nr.
inline int64_t gemm_packed_width(int64_t n, int64_t nr) { return (n + nr - 1) / nr * nr; }

inline void gemm_pack_b(const float* b, int64_t ldb, int64_t kc, int64_t nc, int64_t nr,
                        float* packed) {
  switch (nr) {
    case 8:
      return gemm_pack_b<8>(b, ldb, kc, nc, packed);
    case 16:
      return gemm_pack_b<16>(b, ldb, kc, nc, packed);
    default:
      return gemm_pack_b<32>(b, ldb, kc, nc, packed);
  }
}

// One rows x cols tile of c (cols <= NR) over one depth block: `first` is the first
// block, where c starts from zero, from `add` (beta times a bias row shared by all rows),
// or, for any other bias, from beta * bias written into c here.
inline void gemm_tile(const GemmMicroKernels& uk, const GemmArgs& g, int64_t i0, int64_t j0,
                      int64_t rows, int64_t cols, int64_t pc, int64_t kc, const float* b,
                      int64_t ldb, bool first, const float* add) {
  float* c = g.c + i0 * g.ldc + j0;
  bool load = !first || g.accumulate;
  if (first && g.bias != nullptr && add == nullptr) {
    for (int64_t r = 0; r < rows; ++r) {
      const float* bias = g.bias + (i0 + r) * g.bias_row_stride + j0 * g.bias_col_stride;
      for (int64_t j = 0; j < cols; ++j) {
        c[r * g.ldc + j] = g.beta * bias[j * g.bias_col_stride];
      }
    }
    load = true;
  }
  const GemmMicroKernel kernel = uk.rows[rows - 1];
  const float* a = g.a + i0 * g.lda + pc;
  if (cols == uk.nr || g.row_slack) {
    kernel(kc, a, g.lda, b, ldb, c, g.ldc, g.alpha, load, add);
    return;
  }
  // A ragged right edge goes through a full-width tile; its extra columns are zeros.
  alignas(64) float tile[kGemmMaxMr * kGemmMaxNr] = {};
  if (load) {
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t j = 0; j < cols; ++j) tile[r * uk.nr + j] = c[r * g.ldc + j];
    }
  }
  kernel(kc, a, g.lda, b, ldb, tile, uk.nr, g.alpha, load, add);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < cols; ++j) c[r * g.ldc + j] = tile[r * uk.nr + j];
  }
}

/// Computes columns [j_begin, j_end) of c (see GemmArgs) with `uk`'s micro-kernels and
/// kGemmScratchBytes of `scratch` (false, c untouched, when it has not that much).
/// Threads may run disjoint column ranges of one GemmArgs at once, each with its own
/// scratch.
inline bool gemm_columns(const GemmMicroKernels& uk, const GemmArgs& g, int64_t j_begin,
                         int64_t j_end, KernelScratch& scratch) {
  if (g.m <= 0 || j_end <= j_begin || (g.k <= 0 && g.accumulate)) return true;
  if (g.k <= 0) {  // no products: c = beta * bias, or zeros
    for (int64_t i = 0; i < g.m; ++i) {
      for (int64_t j = j_begin; j < j_end; ++j) {
        g.c[i * g.ldc + j] = g.bias == nullptr ? 0.0f
                             : g.beta * g.bias[i * g.bias_row_stride + j * g.bias_col_stride];
      }
    }
    return true;
  }
  if (g.m == 1 && g.packed_b == nullptr) {  // a vector times a matrix: rows of b streamed
                                             // whole (util/gemv.h)
    float* c = g.c + j_begin;
    if (!g.accumulate) {
      for (int64_t j = j_begin; j < j_end; ++j) {
        c[j - j_begin] = g.bias == nullptr ? 0.0f : g.beta * g.bias[j * g.bias_col_stride];
      }
    }
    gemv_accumulate(g.a, g.k, g.b + j_begin, g.ldb, c, j_end - j_begin, g.alpha);
    return true;
  }
  const int64_t mr = uk.mr;
  const int64_t nr = uk.nr;
  const bool pack = g.m >= 16 * mr && g.packed_b == nullptr;
  const int64_t kc_max = gemm_min(g.k, kGemmDepth);
  // A column block of b (kc x nc: as large as the buffer, packed or not) stays in L2
  // while every row tile runs across it. Packing pays off once a strip serves 16 tiles
  // (bench/gemm.py: unpacked is as fast up to m = 64 and much faster for m < 16).
  const int64_t nc_max = gemm_min(kGemmPackFloats / kc_max / nr * nr, kGemmMaxCols);
  // A bias the same for every row (a linear layer's) is added by the micro-kernel from
  // one row, beta * bias, padded with zeros to whole strips.
  const bool bias_row = g.bias != nullptr && g.bias_row_stride == 0;
  ScratchScope scope(scratch);
  float* add = scratch.allocate<float>(kGemmMaxCols + kGemmMaxNr);
  float* buffer = scratch.allocate<float>(kGemmPackFloats);
  if (add == nullptr || buffer == nullptr) return false;
  for (int64_t jc = j_begin; jc < j_end; jc += nc_max) {
    const int64_t nc = gemm_min(j_end - jc, nc_max);
    if (bias_row) {
      for (int64_t j = 0; j < nc; ++j) add[j] = g.beta * g.bias[(jc + j) * g.bias_col_stride];
      for (int64_t j = nc; j < nc + nr; ++j) add[j] = 0.0f;
    }
    for (int64_t pc = 0; pc < g.k; pc += kc_max) {
      const int64_t kc = gemm_min(g.k - pc, kc_max);
      const float* b_block = g.b + pc * g.ldb + jc;
      // Columns in full strips (or in every strip, read in place, with row_slack).
      const int64_t full = g.row_slack ? nc : nc / nr * nr;
      // The prepacked strips of this depth block: row pc of every strip of b's width.
      const float* packed = g.packed_b != nullptr
                                ? g.packed_b + pc * gemm_packed_width(g.n, nr) + jc * kc
                                : nullptr;
      if (pack) {
        gemm_pack_b(b_block, g.ldb, kc, nc, nr, buffer);
      } else if (packed == nullptr && full < nc) {  // only the ragged strip, zero-padded
        gemm_pack_b(b_block + full, g.ldb, kc, nc - full, nr, buffer);
      }
      const float* strips = packed != nullptr ? packed : buffer;
      for (int64_t i0 = 0; i0 < g.m; i0 += mr) {
        const int64_t rows = gemm_min(g.m - i0, mr);
        for (int64_t j0 = 0; j0 < nc; j0 += nr) {
          const int64_t cols = gemm_min(nc - j0, nr);
          const bool whole = pack || packed != nullptr;  // every strip packed
          const float* b = whole ? strips + j0 * kc : (j0 < full ? b_block + j0 : buffer);
          const int64_t ldb = whole || j0 >= full ? nr : g.ldb;
          gemm_tile(uk, g, i0, jc + j0, rows, cols, pc, kc, b, ldb, pc == 0,
                    bias_row && pc == 0 ? add + j0 : nullptr);
        }
      }
    }
  }
  return true;
}

/// c = beta * bias + alpha * (a @ b) on one thread, with `uk`'s micro-kernels; false
/// when `scratch` has less than kGemmScratchBytes left.
inline bool gemm(const GemmMicroKernels& uk, const GemmArgs& g, KernelScratch& scratch) {
  return gemm_columns(uk, g, 0, g.n, scratch);
}

// Below this many multiply-adds a call stays on one thread: handing work to another
// thread costs about a microsecond, some 100k multiply-adds.
inline constexpr int64_t kGemmParallelMin = 256 * 1024;

// `count` GEMMs of one shape whose a, b, c (and a full bias) advance by a fixed step
// (bmm's batch), cut into count * splits tasks: each part of one GEMM is a range of whole
// column strips (by_rows false) or of whole row tiles, `step` columns or rows long.
struct GemmJob {
  const GemmMicroKernels* uk;
  GemmArgs g;
  int64_t a_step, b_step, c_step;
  int64_t splits;
  bool by_rows;
  int64_t step;
  bool failed;  // a task found too little scratch (written with an atomic store)
};

// Task `task` of `job`: one part of one of its GEMMs; false when `scratch` is too small.
inline bool gemm_job_part(const GemmJob& job, int64_t task, KernelScratch& scratch) {
  const int64_t batch = task / job.splits;
  const int64_t part = task % job.splits;
  GemmArgs g = job.g;
  g.a += batch * job.a_step;
  g.b += batch * job.b_step;
  if (g.packed_b != nullptr) g.packed_b += batch * job.b_step;
  g.c += batch * job.c_step;
  if (!job.by_rows) {
    const int64_t j0 = part * job.step;
    return gemm_columns(*job.uk, g, j0, gemm_min(g.n, j0 + job.step), scratch);
  }
  const int64_t i0 = part * job.step;
  g.m = gemm_min(g.m, i0 + job.step) - i0;
  g.a += i0 * g.lda;
  g.c += i0 * g.ldc;
  if (g.bias != nullptr) g.bias += i0 * g.bias_row_stride;
  return gemm_columns(*job.uk, g, 0, g.n, scratch);
}

inline void gemm_job_task(void* context, int64_t task, KernelScratch& scratch) {
  GemmJob& job = *static_cast<GemmJob*>(context);
  if (!gemm_job_part(job, task, scratch)) __atomic_store_n(&job.failed, true, __ATOMIC_RELAXED);
}

/// `count` GEMMs: the i-th is `g` with a, b (or packed_b: b_step counts its floats) and c
/// advanced by i times a_step, b_step, c_step; split over ctx's threads
/// (KernelContext::parallel_for) when there is work enough: whole GEMMs when there are as
/// many as threads, else ranges of column strips (or of row tiles, for a narrow c) of
/// each. Each thread takes kGemmScratchBytes of its
/// scratch slice; false when one had less (the kernel fails with MemoryAllocationFailed).
inline bool gemm_batch(KernelContext& ctx, const GemmMicroKernels& uk, const GemmArgs& g,
                       int64_t count, int64_t a_step, int64_t b_step, int64_t c_step) {
  GemmJob job{&uk, g, a_step, b_step, c_step, 1, false, g.n, false};
  const int64_t threads = ctx.threads();
  if (threads > 1 && count < threads && g.m * g.n * g.k * count >= kGemmParallelMin) {
    const int64_t strips = (g.n + uk.nr - 1) / uk.nr;
    const int64_t tiles = (g.m + uk.mr - 1) / uk.mr;
    // Column parts cost nothing extra (each packs its own columns of b), so there are
    // several per thread: a thread the system delays leaves its share to the others. So
    // do row parts where no part packs b (b prepacked, or rows too few for packing): each
    // thread then writes whole rows of c, which the row-wise kernels after a linear layer
    // (a split into heads, a layer norm) read, rather than half of every row.
    const bool packs = g.packed_b == nullptr && g.m >= 16 * uk.mr;
    const int64_t row_step = (tiles + 4 * threads - 1) / (4 * threads) * uk.mr;
    // A last part of one row would take the vector-times-matrix path: other sums.
    const bool free_rows = !packs && tiles >= 4 * threads && g.m % row_step != 1;
    job.by_rows = free_rows || (strips < threads && tiles > strips);
    const int64_t units = job.by_rows ? tiles : strips;
    const int64_t parts = gemm_min(units, job.by_rows && !free_rows ? threads : 4 * threads);
    job.step = (units + parts - 1) / parts * (job.by_rows ? uk.mr : uk.nr);
    job.splits = ((job.by_rows ? g.m : g.n) + job.step - 1) / job.step;
  }
  const int64_t tasks = count * job.splits;
  if (threads > 1 && g.m * g.n * g.k * count >= kGemmParallelMin) {
    ctx.parallel_for(tasks, &gemm_job_task, &job);
    return !__atomic_load_n(&job.failed, __ATOMIC_RELAXED);
  }
  for (int64_t i = 0; i < tasks; ++i) {
    if (!gemm_job_part(job, i, ctx.scratch())) return false;
  }
  return true;
}

/// One GEMM with the micro-kernels cpu_level() allows, over ctx's threads; false when a
/// thread's scratch slice was too small.
inline bool gemm(KernelContext& ctx, const GemmArgs& g) {
  return gemm_batch(ctx, gemm_micro_kernels(cpu_level()), g, 1, 0, 0, 0);
}

}  // namespace tailor::optimized
