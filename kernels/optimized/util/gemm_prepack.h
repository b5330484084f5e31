// A constant b of the GEMM (util/gemm.h) packed once at method load (runtime/kernel/
// prepack.h): mm's and addmm's mat2, which is a linear layer's weight (the exporter folds
// its transpose into the constant).
//
// Layout: a header, then every depth block of kGemmDepth rows (the last one shorter) in
// turn, each as strips of the micro-kernels' width NR, kc x NR contiguous, the last
// strip's missing columns zeros: exactly the panels gemm_columns() packed per call, for
// the whole of b and every column range a thread may take. The header records the source
// and shape, so a kernel uses the copy only for the constant it was made from, and the
// width, so a copy made for another micro-kernel is never misread.
#pragma once

#include "kernels/optimized/util/gemm.h"
#include "runtime/kernel/prepack.h"

namespace tailor::optimized {

struct GemmPackedB {
  uint32_t magic;
  int32_t nr;
  int64_t k;
  int64_t n;
  const float* source;
};
inline constexpr uint32_t kGemmPackedBMagic = 0x42504d47;  // "GMPB"
inline constexpr size_t kGemmPackedBHeader = kPrepackAlignment;
static_assert(sizeof(GemmPackedB) <= kGemmPackedBHeader, "the header fits its line");

/// Bytes of b[k, n]'s packed copy for `nr`-wide strips; 0 when it is empty or too large to
/// address.
inline size_t gemm_packed_b_bytes(int64_t k, int64_t n, int64_t nr) {
  if (k <= 0 || n <= 0 || n > INT64_MAX - nr) return 0;
  const uint64_t width = static_cast<uint64_t>(gemm_packed_width(n, nr));
  const uint64_t floats_max = (SIZE_MAX - kGemmPackedBHeader) / sizeof(float);
  if (static_cast<uint64_t>(k) > floats_max / width) return 0;
  return kGemmPackedBHeader + static_cast<size_t>(k) * width * sizeof(float);
}

/// Packs b[k, n] (row stride ldb) into `packed` (gemm_packed_b_bytes() long).
inline void gemm_pack_whole_b(const float* b, int64_t ldb, int64_t k, int64_t n, int64_t nr,
                              void* packed) {
  GemmPackedB header{kGemmPackedBMagic, static_cast<int32_t>(nr), k, n, b};
  __builtin_memcpy(packed, &header, sizeof(header));
  float* out = reinterpret_cast<float*>(static_cast<uint8_t*>(packed) + kGemmPackedBHeader);
  const int64_t kc_max = gemm_min(k, kGemmDepth);
  const int64_t width = gemm_packed_width(n, nr);
  for (int64_t pc = 0; pc < k; pc += kc_max) {
    gemm_pack_b(b + pc * ldb, ldb, gemm_min(k - pc, kc_max), n, nr, out + pc * width);
  }
}

/// The strips of `packed` (KernelContext::packed()) when it is b[k, n] = `b` packed for
/// `nr`-wide strips, else nullptr (the GEMM packs per call).
inline const float* gemm_packed_b(const void* packed, const float* b, int64_t k, int64_t n,
                                  int64_t nr) {
  if (packed == nullptr) return nullptr;
  GemmPackedB header;
  __builtin_memcpy(&header, packed, sizeof(header));
  if (header.magic != kGemmPackedBMagic || header.nr != nr || header.k != k || header.n != n ||
      header.source != b) {
    return nullptr;
  }
  return reinterpret_cast<const float*>(static_cast<const uint8_t*>(packed) + kGemmPackedBHeader);
}

/// The prepack hook of a kernel whose argument `Slot` is b (KernelPrepack): a constant,
/// row-major, 2-D Float b is packed for the micro-kernels cpu_level() picks.
template <size_t Slot>
struct GemmPrepack {
  static size_t bytes(const PrepackCall& call) {
    PrepackTensor b;
    if (!call.tensor(Slot, &b) || b.dtype != ScalarType::Float || b.dim != 2 || !b.contiguous) {
      return 0;
    }
    return gemm_packed_b_bytes(b.sizes[0], b.sizes[1], gemm_micro_kernels(cpu_level()).nr);
  }
  static void pack(const PrepackCall& call, const void* weight, void* packed, size_t) {
    PrepackTensor b;
    call.tensor(Slot, &b);  // bytes() read it: a 2-D Float tensor
    gemm_pack_whole_b(static_cast<const float*>(weight), b.sizes[1], b.sizes[0], b.sizes[1],
                      gemm_micro_kernels(cpu_level()).nr, packed);
  }
  static constexpr KernelPrepack kHook{Slot, &bytes, &pack};
};

}  // namespace tailor::optimized
