// CpuLevel: which instruction-set level optimized kernels may use on this CPU.
//
// A runtime is compiled for its architecture's baseline (x86-64: SSE2; aarch64: NEON),
// so it starts on any CPU of that architecture. Kernels with faster variants compile
// them per function (`__attribute__((target("avx2,fma")))`) and pick one at run time
// with cpu_level(): a CPU without AVX2 never executes an AVX2 instruction.
#pragma once

namespace tailor {

/// Instruction-set levels, in increasing order: a level implies the ones below it.
enum class CpuLevel : int {
  Baseline = 0,  ///< what the binary is compiled for (x86-64 SSE2, aarch64 NEON, ...)
  Avx2 = 1,      ///< x86-64 AVX2 and FMA3, ymm state saved by the OS
  Avx512 = 2,    ///< x86-64 AVX-512F, zmm and mask state saved by the OS
};

/// The highest level whose code this build compiles: every level, unless the build defines
/// TL_CPU_LEVEL_CEILING (0, 1 or 2). The sanitized builds of a native target define it as
/// the building machine's level (site_scons/targets.py): they run only where they are
/// built, so the code of the levels above can never run, and under the sanitizers it
/// doubled their kernels' compile time. Kernels that pick per level skip the levels above
/// with `if constexpr`, so those variants are never instantiated.
#if defined(TL_CPU_LEVEL_CEILING)
inline constexpr CpuLevel kCpuLevelCeiling = static_cast<CpuLevel>(TL_CPU_LEVEL_CEILING);
#else
inline constexpr CpuLevel kCpuLevelCeiling = CpuLevel::Avx512;
#endif

/// The highest level this CPU runs, from CPUID and XGETBV (always Baseline off x86-64).
CpuLevel cpu_level_detected();

/// The level kernels use: cpu_level_detected() lowered to the cap, which is
/// set_cpu_level_cap()'s if one was set, else tl_pal_cpu_level_cap()'s (the default
/// platform reads the TL_CPU_LEVEL environment variable: baseline, avx2 or avx512), and to
/// kCpuLevelCeiling. Decided on the first call; later calls are a load.
CpuLevel cpu_level();

/// Caps cpu_level() at `cap` from now on (a level the CPU lacks is never used anyway).
/// For tests and benchmarks; not meant to race with running kernels.
void set_cpu_level_cap(CpuLevel cap);

/// Whether kernels may use AVX-512 VNNI's int8 dot product (vpdpbusd, on 256-bit vectors
/// through AVX512VL): the CPU has both and cpu_level() is Avx512, so a cap at avx2 or
/// below turns it off with the rest of AVX-512. Not a level of its own: only the
/// quantized kernels use it, and a CPU with AVX-512F but no VNNI still runs the float
/// kernels' AVX-512 code.
bool cpu_has_avx512_vnni();

/// "baseline", "avx2" or "avx512".
const char* cpu_level_name(CpuLevel level);

/// Parses a cpu_level_name(); false (and `*level` unchanged) for anything else.
bool parse_cpu_level(const char* name, CpuLevel* level);

}  // namespace tailor
