#include "runtime/kernel/cpu_level.h"

#include <stdint.h>

#include "runtime/core/string_util.h"
#include "runtime/platform/log.h"
#include "runtime/platform/platform.h"

namespace tailor {
namespace {

// -1: not decided yet. Written once with the same value by whichever thread gets there
// first, so relaxed atomics are enough (no lock, no guard variable from libsupc++).
int g_level = -1;
int g_cap = -1;  // set_cpu_level_cap(); -1: ask the platform
int g_vnni = -1;  // cpu_has_avx512_vnni() before the cap

#if defined(__x86_64__) || defined(__i386__)
// CPUID and XGETBV by hand rather than __builtin_cpu_supports(), which needs libgcc's
// __cpu_model (not in a freestanding or clang-only link).
void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4]) {
  __asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
                   : "a"(leaf), "c"(sub));
}

uint64_t xgetbv0() {
  uint32_t lo = 0;
  uint32_t hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

CpuLevel detect() {
  uint32_t r[4];
  cpuid(0, 0, r);
  const uint32_t max_leaf = r[0];
  if (max_leaf < 7) return CpuLevel::Baseline;
  cpuid(1, 0, r);
  const bool fma = (r[2] >> 12) & 1;
  const bool osxsave = (r[2] >> 27) & 1;
  const bool avx = (r[2] >> 28) & 1;
  // The instructions alone are not enough: the OS must save the wider registers on a
  // context switch (XCR0: bits 1-2 xmm/ymm; 5-7 opmask and zmm).
  if (!(osxsave && avx && fma)) return CpuLevel::Baseline;
  const uint64_t xcr0 = xgetbv0();
  if ((xcr0 & 0x6) != 0x6) return CpuLevel::Baseline;
  cpuid(7, 0, r);
  const bool avx2 = (r[1] >> 5) & 1;
  const bool avx512f = (r[1] >> 16) & 1;
  if (!avx2) return CpuLevel::Baseline;
  if (avx512f && (xcr0 & 0xe6) == 0xe6) return CpuLevel::Avx512;
  return CpuLevel::Avx2;
}

// AVX512_VNNI (leaf 7 ECX bit 11) and AVX512VL (EBX bit 31); the zmm state was checked
// by detect() when it reported Avx512.
bool detect_avx512_vnni() {
  uint32_t r[4];
  cpuid(0, 0, r);
  if (r[0] < 7) return false;
  cpuid(7, 0, r);
  return ((r[2] >> 11) & 1) && ((r[1] >> 31) & 1);
}
#else
CpuLevel detect() { return CpuLevel::Baseline; }
bool detect_avx512_vnni() { return false; }
#endif

int cap_from_platform() {
  const char* name = tl_pal_cpu_level_cap();
  if (name == nullptr || *name == '\0') return -1;
  CpuLevel level;
  if (!parse_cpu_level(name, &level)) {
    TL_LOG(Error, "CPU level cap '%s' is not baseline, avx2 or avx512; ignored", name);
    return -1;
  }
  return static_cast<int>(level);
}

}  // namespace

CpuLevel cpu_level_detected() { return detect(); }

CpuLevel cpu_level() {
  int level = __atomic_load_n(&g_level, __ATOMIC_RELAXED);
  if (level < 0) {
    level = static_cast<int>(detect());
    int cap = __atomic_load_n(&g_cap, __ATOMIC_RELAXED);
    if (cap < 0) cap = cap_from_platform();
    if (cap >= 0 && cap < level) level = cap;
    if (level > static_cast<int>(kCpuLevelCeiling)) level = static_cast<int>(kCpuLevelCeiling);
    __atomic_store_n(&g_level, level, __ATOMIC_RELAXED);
  }
  return static_cast<CpuLevel>(level);
}

void set_cpu_level_cap(CpuLevel cap) {
  __atomic_store_n(&g_cap, static_cast<int>(cap), __ATOMIC_RELAXED);
  __atomic_store_n(&g_level, -1, __ATOMIC_RELAXED);  // decide again on the next call
}

bool cpu_has_avx512_vnni() {
  int has = __atomic_load_n(&g_vnni, __ATOMIC_RELAXED);
  if (has < 0) {
    has = detect_avx512_vnni() ? 1 : 0;
    __atomic_store_n(&g_vnni, has, __ATOMIC_RELAXED);
  }
  return has == 1 && cpu_level() >= CpuLevel::Avx512;
}

const char* cpu_level_name(CpuLevel level) {
  switch (level) {
    case CpuLevel::Baseline:
      return "baseline";
    case CpuLevel::Avx2:
      return "avx2";
    case CpuLevel::Avx512:
      return "avx512";
  }
  return "?";
}

bool parse_cpu_level(const char* name, CpuLevel* level) {
  for (int i = 0; i <= static_cast<int>(CpuLevel::Avx512); ++i) {
    if (string_equal(name, cpu_level_name(static_cast<CpuLevel>(i)))) {
      *level = static_cast<CpuLevel>(i);
      return true;
    }
  }
  return false;
}

}  // namespace tailor
