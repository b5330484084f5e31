// SentencePiece's precompiled charsmap (NormalizerSpec.precompiled_charsmap), the form
// in which nmt_nfkc, nfkc, nfkc_cf and custom rules reach a .model file: a little-endian
// uint32 size, a darts-clone double-array trie of that many bytes whose leaves hold
// offsets, and the replacement strings, each ending with a NUL, that the offsets point to.
// Normalizing is a longest-prefix lookup. A damaged trie cannot make a lookup read
// outside the blob: it then finds no rule.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <string>
#include <vector>

#include "apps/llm/tokenizer/status.h"

namespace llm {

class PrecompiledCharsmap final {
 public:
  /// Reads `blob`; errors name `where`.
  Status load(const std::string& blob, const std::string& where);
  bool empty() const { return units_.empty(); }

  /// The longest rule matching text[pos..): its length in bytes, 0 when none matches,
  /// and in `replacement` what it becomes.
  size_t longest_match(const std::string& text, size_t pos, std::string* replacement) const;

 private:
  std::vector<uint32_t> units_;
  std::string strings_;  // the replacement strings, NUL-terminated
};

}  // namespace llm
