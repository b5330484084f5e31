// Another revision's quantized linear, linked into bench/qlinear.cpp beside this tree's so
// one run times both on the same inputs at the same moment (bench/qlinear.py --against
// REV). Compiled with that revision's kernels/ first on the include path and its
// namespace renamed: the two trees' inline kernels then have different names and link
// side by side.
#define quantized quantized_against
#include "kernels/quantized/util/qlinear.h"
#undef quantized

#include "bench/qlinear_against.h"

namespace bench {

using namespace tailor::quantized_against;

namespace {

// The revision's kernel sets that have decode kernels (the ones `decode` times), looked up
// once: the CPU checks may run cpuid, which a virtual machine traps.
struct DecodeSets {
  const QLinearKernels* sets[4];
  int count = 0;

  DecodeSets() {
    const QLinearKernels* all[] = {&kQLinearGeneric,
#if defined(__x86_64__)
                                   &kQLinearAvx2, &kQLinearVnni
#elif defined(__aarch64__)
                                   &kQLinearNeon
#endif
    };
    for (const QLinearKernels* set : all) {
      if (set->decode_int4 == nullptr || set->decode_int8 == nullptr) continue;
#if defined(__x86_64__)
      if (set == &kQLinearAvx2 && tailor::cpu_level_detected() < tailor::CpuLevel::Avx2) continue;
      if (set == &kQLinearVnni && !tailor::cpu_has_avx512_vnni()) continue;
#endif
      sets[count++] = set;
    }
  }
};

const DecodeSets& decode_sets() {
  static const DecodeSets sets;
  return sets;
}

}  // namespace

int against_sets(const char** names) {
  const DecodeSets& d = decode_sets();
  for (int s = 0; s < d.count; ++s) names[s] = d.sets[s]->name;
  return d.count;
}

bool against_int4_scales_in_blocks() {
#if defined(TL_QLINEAR_INT4_SCALES_IN_BLOCKS)
  return true;
#else
  return false;
#endif
}

void against_qlinear(tailor::KernelContext& ctx, int set, const AgainstArgs& args) {
  QLinearArgs a;
  a.m = args.m;
  a.n = args.n;
  a.k = args.k;
  a.groups = args.groups;
  a.weight_bits = args.weight_bits;
  a.dynamic_input = args.dynamic_input;
  a.x = args.x;
  a.w = args.w;
  a.scales = args.scales;
  a.bias = args.bias;
  a.out = args.out;
  (void)qlinear(ctx, *decode_sets().sets[set], a);
}

}  // namespace bench
