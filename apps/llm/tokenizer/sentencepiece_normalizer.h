// SentencePiece's normalizer: the precompiled charsmap's rules (none for `identity`),
// user-defined pieces passed through untouched, extra spaces removed, the dummy prefix,
// and spaces written as ▁ (U+2581). Only U+0020 counts as a space here: other
// whitespace becomes a space only when the charsmap says so (nmt_nfkc does).
#pragma once

#include <string>

#include "apps/llm/tokenizer/piece_trie.h"
#include "apps/llm/tokenizer/precompiled_charsmap.h"
#include "apps/llm/tokenizer/sentencepiece_model.h"
#include "apps/llm/tokenizer/status.h"

namespace llm {

class SentencePieceNormalizer final {
 public:
  /// `user_defined`: the pieces passed through as they are (copied, so that a copy of
  /// the normalizer stands alone).
  Status init(const SentencePieceModelProto::Normalization& spec, bool treat_whitespace_as_suffix,
              const PieceTrie& user_defined, const std::string& where);
  std::string normalize(const std::string& input) const;

 private:
  // What text[pos..] starts with once normalized; returns the bytes it consumes (> 0).
  size_t normalize_prefix(const std::string& text, size_t pos, std::string* out) const;

  SentencePieceModelProto::Normalization spec_;
  bool treat_whitespace_as_suffix_ = false;
  PieceTrie user_defined_;
  PrecompiledCharsmap charsmap_;
};

}  // namespace llm
