// tokenizer.json normalizers: Sequence, Prepend, Replace, NFC, Strip. The
// SentencePiece-style tokenizers (Llama 2, Mistral, Gemma) use Prepend("▁") and
// Replace(" " -> "▁"); Qwen2 uses NFC.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "apps/llm/tokenizer/json.h"
#include "apps/llm/tokenizer/pattern.h"
#include "apps/llm/tokenizer/status.h"

namespace llm {

class Normalizer final {
 public:
  /// Reads a tokenizer.json "normalizer" object; `where` names the file and entry.
  Status parse(const Json& json, const std::string& where);
  std::string normalize(const std::string& text) const;

 private:
  enum Kind { kSequence, kPrepend, kReplace, kNfc, kStrip };
  Kind kind_ = kSequence;
  std::string content_;
  Pattern pattern_;
  bool strip_left_ = false, strip_right_ = false;
  std::vector<Normalizer> children_;
};

}  // namespace llm
