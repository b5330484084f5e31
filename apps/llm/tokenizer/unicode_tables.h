// The Unicode data the tokenizers need, generated into unicode_tables.cpp by
// gen_unicode_tables.py (which says how to regenerate it). Lookups are in unicode.h.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace llm {
namespace tables {

struct CategoryRun {
  uint32_t first, last;
  uint8_t category;  // a GeneralCategory (unicode.h)
};
struct CodePointPair {
  uint32_t code_point, value;
};
struct Decomposition {
  uint32_t code_point, first, second;  // second is 0 for a one-character mapping
};
struct Composition {
  uint32_t first, second, composite;
};

extern const char kUnicodeVersion[];
extern const CategoryRun kCategoryRuns[];  // sorted, disjoint
extern const size_t kCategoryRunCount;
extern const CodePointPair kAsciiFolds[];  // code point -> the ASCII letter it case-folds to
extern const size_t kAsciiFoldCount;
extern const Decomposition kDecompositions[];  // sorted by code point; canonical only
extern const size_t kDecompositionCount;
extern const Composition kCompositions[];  // sorted by (first, second)
extern const size_t kCompositionCount;
extern const CodePointPair kCombiningClasses[];  // sorted; the classes that are not 0
extern const size_t kCombiningClassCount;

}  // namespace tables
}  // namespace llm
