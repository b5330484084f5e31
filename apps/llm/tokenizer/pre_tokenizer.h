// tokenizer.json pre-tokenizers: ByteLevel (GPT-2's split regex, then bytes written in
// the byte alphabet), Split (a regex or string with a delimiter behavior; Llama 3's and
// Qwen2's regexes come this way), Metaspace, Digits, and Sequence of them.
#pragma once

#include <string>
#include <vector>

#include "apps/llm/tokenizer/json.h"
#include "apps/llm/tokenizer/pattern.h"
#include "apps/llm/tokenizer/status.h"
#include "apps/llm/tokenizer/text_pieces.h"

namespace llm {

class PreTokenizer final {
 public:
  Status parse(const Json& json, const std::string& where);
  /// A Split with `regex` and the Isolated behavior (tiktoken files).
  Status make_split(const std::string& regex, const std::string& where);
  /// Splits the text pieces of `pieces` further (added tokens pass through).
  void apply(std::vector<Piece>* pieces) const;

 private:
  enum Kind { kSequence, kByteLevel, kSplit, kMetaspace, kDigits };
  enum Prepend { kAlways, kFirst, kNever };
  void apply_one(const Piece& piece, std::vector<Piece>* out) const;

  Kind kind_ = kSequence;
  Pattern pattern_;
  bool use_pattern_ = false;  // ByteLevel's use_regex
  bool invert_ = false;
  SplitBehavior behavior_ = SplitBehavior::kIsolated;
  bool add_prefix_space_ = false;
  std::string replacement_;  // Metaspace
  Prepend prepend_ = kAlways;
  bool split_ = true;
  bool individual_digits_ = false;
  std::vector<PreTokenizer> children_;
};

}  // namespace llm
