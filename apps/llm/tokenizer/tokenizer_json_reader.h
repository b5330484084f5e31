// Fills a Tokenizer from a tokenizer.json document (model, added tokens, normalizer,
// pre-tokenizer, decoder, post-processor) and tokenizer_config.json beside it for bos/eos.
#pragma once

#include <string>

#include "apps/llm/tokenizer/json.h"
#include "apps/llm/tokenizer/tokenizer.h"

namespace llm {

class TokenizerJsonReader final {
 public:
  /// `doc` is the parsed content of `path`.
  static Status read(const std::string& path, const Json& doc, Tokenizer* out);
};

}  // namespace llm
