// The random numbers of rand, randn and native_dropout: a counter-based generator, so a
// value depends only on (seed, run, instruction, element) and never on threads or on
// which other random ops the program holds (the rule: README.md, Random operators).
#pragma once

#include <stdint.h>

namespace tailor::random {

// SplitMix64's increment (2^64 / golden ratio) and finalizer: a bijective mix whose
// outputs on consecutive counters pass BigCrush.
constexpr uint64_t kGamma = 0x9E3779B97F4A7C15ull;

inline uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// The stream of one kernel call: instruction `pc` of a method's `run`-th execute()
/// since its seed was set.
inline uint64_t stream_key(uint64_t seed, uint64_t run, uint64_t pc) {
  return mix(mix(mix(seed) + run * kGamma) + pc * kGamma);
}

/// The 64 random bits of element `n` of a stream.
inline uint64_t bits(uint64_t key, uint64_t n) { return mix(key + (n + 1) * kGamma); }

/// A uniform value in [0, 1) with `digits` significant bits (24 for float, 53 for
/// double, 11 for Half, 8 for BFloat16), exact in a type with that many.
inline double uniform(uint64_t key, uint64_t n, int digits) {
  return static_cast<double>(bits(key, n) >> (64 - digits)) / static_cast<double>(1ull << digits);
}

}  // namespace tailor::random
