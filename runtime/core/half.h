// Half (IEEE 754 binary16) and BFloat16 storage types. Arithmetic goes through float:
// both convert implicitly to and from float, so `Half c = a + b` computes in float
// and rounds once (round to nearest even).
#pragma once

#include <stdint.h>

namespace tailor {
namespace internal {

inline uint32_t float_bits(float f) {
  uint32_t u;
  __builtin_memcpy(&u, &f, sizeof(u));
  return u;
}

inline float bits_float(uint32_t u) {
  float f;
  __builtin_memcpy(&f, &u, sizeof(f));
  return f;
}

// Rounds `x` right by `shift` bits to nearest, ties to even.
inline uint32_t round_shift(uint32_t x, uint32_t shift) {
  const uint32_t kept = x >> shift;
  const uint32_t rest = x & ((1u << shift) - 1);
  const uint32_t half = 1u << (shift - 1);
  return kept + ((rest > half || (rest == half && (kept & 1))) ? 1 : 0);
}

inline uint16_t float_to_half_bits(float f) {
  const uint32_t x = float_bits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t mag = x & 0x7fffffffu;
  if (mag >= 0x7f800000u) {  // Inf stays Inf; NaN stays a (quiet) NaN.
    return static_cast<uint16_t>(sign | 0x7c00u | (mag > 0x7f800000u ? 0x200u : 0));
  }
  if (mag >= 0x477ff000u) {  // Rounds above 65504: overflow to Inf.
    return static_cast<uint16_t>(sign | 0x7c00u);
  }
  if (mag < 0x38800000u) {  // Below 2^-14: a subnormal half or zero.
    if (mag <= 0x33000000u) return static_cast<uint16_t>(sign);  // <= 2^-25 rounds to 0
    const uint32_t mantissa = (mag & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - (mag >> 23);
    return static_cast<uint16_t>(sign | round_shift(mantissa, shift));
  }
  // Normal: rebias the exponent (127 -> 15); a mantissa carry correctly bumps it.
  return static_cast<uint16_t>(sign | round_shift(mag - 0x38000000u, 13));
}

inline float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return bits_float(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {
    if (mantissa == 0) return bits_float(sign);
    // Subnormal: normalise so the leading 1 becomes implicit.
    exponent = 113;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --exponent;
    }
    return bits_float(sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13));
  }
  return bits_float(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

inline uint16_t float_to_bfloat16_bits(float f) {
  const uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) {  // NaN: keep it a quiet NaN.
    return static_cast<uint16_t>((x >> 16) | 0x40u);
  }
  const uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>((x + rounding) >> 16);
}

}  // namespace internal

/// IEEE binary16 storage; 2 bytes, no padding.
struct Half {
  uint16_t bits;

  Half() = default;
  Half(float value) : bits(internal::float_to_half_bits(value)) {}
  operator float() const { return internal::half_bits_to_float(bits); }

  /// A Half with exactly these bits.
  static Half from_bits(uint16_t raw) {
    Half h;
    h.bits = raw;
    return h;
  }
};

/// bfloat16 (the top 16 bits of a float) storage; 2 bytes, no padding.
struct BFloat16 {
  uint16_t bits;

  BFloat16() = default;
  BFloat16(float value) : bits(internal::float_to_bfloat16_bits(value)) {}
  operator float() const { return internal::bits_float(static_cast<uint32_t>(bits) << 16); }

  /// A BFloat16 with exactly these bits.
  static BFloat16 from_bits(uint16_t raw) {
    BFloat16 b;
    b.bits = raw;
    return b;
  }
};

static_assert(sizeof(Half) == 2 && sizeof(BFloat16) == 2, "16-bit float storage");

}  // namespace tailor
