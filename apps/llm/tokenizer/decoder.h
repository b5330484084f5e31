// tokenizer.json decoders, applied like tokenizers' decode_chain to the list of token
// strings: ByteLevel, Replace, ByteFallback, Fuse, Strip, Metaspace, and Sequence.
#pragma once

#include <string>
#include <vector>

#include "apps/llm/tokenizer/json.h"
#include "apps/llm/tokenizer/pattern.h"
#include "apps/llm/tokenizer/status.h"

namespace llm {

/// The byte of a "<0xNN>" token, or -1.
int fallback_byte(const std::string& token);

class Decoder final {
 public:
  Status parse(const Json& json, const std::string& where);
  /// Rewrites `tokens` in place; their concatenation is the decoded text.
  void decode_chain(std::vector<std::string>* tokens) const;
  /// True when a ByteFallback step is in the chain: a run of <0xNN> tokens that does not
  /// end as valid UTF-8 turns into U+FFFD whole, its earlier characters too.
  bool has_byte_fallback() const;

 private:
  enum Kind { kSequence, kByteLevel, kReplace, kByteFallback, kFuse, kStrip, kMetaspace };
  Kind kind_ = kSequence;
  Pattern pattern_;
  std::string content_;  // Replace's replacement, Strip's character, Metaspace's replacement
  int64_t start_ = 0, stop_ = 0;
  bool prepend_ = true;  // Metaspace: a prepend scheme other than "never"
  std::vector<Decoder> children_;
};

}  // namespace llm
