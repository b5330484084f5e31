// Decoding token by token for streaming output: each push returns the text its token
// completes, and the pieces joined equal Tokenizer::decode of all the ids. Text is held
// back while it ends in an unfinished character (a UTF-8 sequence cut by a byte-level
// token) or in a run of <0xNN> byte-fallback tokens (the next byte may turn the whole run
// into U+FFFD), and a token's leading space (SentencePiece's ▁) is dropped only where
// decode drops it: at the start of the text.
#pragma once

#include <stdint.h>

#include <string>
#include <vector>

#include "apps/llm/tokenizer/tokenizer.h"

namespace llm {

class StreamDecoder final {
 public:
  explicit StreamDecoder(const Tokenizer& tokenizer) : tokenizer_(&tokenizer) {}

  /// Starts over after `context` (the prompt's ids, already shown): what follows is
  /// decoded as a continuation of it.
  void start(const std::vector<int32_t>& context);
  /// Adds `id`; returns the text that is complete now (often empty).
  std::string push(int32_t id);
  /// The text still held (an unfinished character at the end comes out as U+FFFD, as
  /// decode gives it).
  std::string flush();

 private:
  // The text ids_[shown_..] adds to ids_[context_..shown_): decoding from context_ keeps
  // the neighbours that decide spaces and characters.
  std::string pending_text() const;

  const Tokenizer* tokenizer_;
  std::vector<int32_t> ids_;
  size_t context_ = 0;  // where the decoded window starts
  size_t shown_ = 0;    // the ids whose text is out
};

}  // namespace llm
