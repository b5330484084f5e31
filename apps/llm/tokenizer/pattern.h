// A tokenizer.json pattern, {"String": s} or {"Regex": r}: every match in a text as
// byte spans covering it (matches and the gaps between them).
#pragma once

#include <string>
#include <vector>

#include "apps/llm/tokenizer/json.h"
#include "apps/llm/tokenizer/regex.h"
#include "apps/llm/tokenizer/status.h"
#include "apps/llm/tokenizer/text_pieces.h"

namespace llm {

class Pattern final {
 public:
  /// `where` names the file and entry for the error message.
  Status compile(const std::string& pattern, bool is_regex, const std::string& where);
  /// Reads a Replace step ({"pattern": {...}, "content": "..."}) of a normalizer or decoder.
  Status parse_replace(const Json& json, const std::string& where, std::string* content);
  /// Spans covering `text` in order, `match` set on the matches (never two gaps in a row).
  std::vector<Span> spans(const std::string& text) const;
  /// `text` with every match replaced by `content`.
  std::string replace_all(const std::string& text, const std::string& content) const;

 private:
  bool is_regex_ = false;
  std::string literal_;
  Regex regex_;
};

}  // namespace llm
