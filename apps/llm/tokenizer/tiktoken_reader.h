// Fills a Tokenizer from a tiktoken file: "base64-token rank" per line (Llama 3's
// original tokenizer.model, OpenAI's .tiktoken files).
#pragma once

#include <string>

#include "apps/llm/tokenizer/tokenizer.h"

namespace llm {

class TiktokenReader final {
 public:
  /// True when the first line reads as "base64 integer".
  static bool looks_like(const std::string& text);
  static Status read(const std::string& path, const std::string& text,
                     const TiktokenOptions& options, Tokenizer* out);
};

}  // namespace llm
