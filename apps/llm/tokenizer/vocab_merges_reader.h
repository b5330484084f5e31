// Fills a Tokenizer from GPT-2's two files: vocab.json (token -> id, tokens written in
// the byte alphabet) and merges.txt ("#version: ..." then "left right" per line, in rank
// order). The result is what GPT2TokenizerFast makes of them: byte-level BPE with GPT-2's
// split regex and decoder, <|endoftext|> (when the vocabulary has it) a special token
// that is bos and eos.
#pragma once

#include <string>

#include "apps/llm/tokenizer/json.h"
#include "apps/llm/tokenizer/tokenizer.h"

namespace llm {

class VocabMergesReader final {
 public:
  /// True when `doc` is an object whose members are all integers (a vocab.json).
  static bool looks_like(const Json& doc);
  /// The merges file that goes with `vocab_path`: its name with "vocab.json" at the end
  /// changed to "merges.txt" (m.vocab.json -> m.merges.txt, gpt2-vocab.json ->
  /// gpt2-merges.txt), else merges.txt in its folder.
  static std::string merges_beside(const std::string& vocab_path);
  /// `vocab` is the parsed content of `vocab_path`.
  static Status read(const std::string& vocab_path, const Json& vocab,
                     const std::string& merges_path, Tokenizer* out);
};

}  // namespace llm
