// Added tokens (tokenizer.json's "added_tokens", tiktoken's special tokens): matched in
// the text before the model sees it (leftmost, longest first) and never merged. Tokens
// marked "normalized" are matched in the normalized text, the others in the raw text.
#pragma once

#include <stdint.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "apps/llm/tokenizer/text_pieces.h"

namespace llm {

struct AddedToken {
  int32_t id = -1;
  std::string content;
  bool single_word = false, lstrip = false, rstrip = false;
  bool normalized = false, special = false;
};

class AddedTokens final {
 public:
  /// Adds `token`; `pattern` is what is matched (its content, normalized when it is).
  void add(const AddedToken& token, const std::string& pattern);
  /// Splits every text piece of `pieces` at the tokens whose `normalized` flag equals
  /// `normalized`; a matched token becomes a piece with its id.
  void split(std::vector<Piece>* pieces, bool normalized) const;

  /// The token with `id`, or nullptr.
  const AddedToken* find(int32_t id) const;
  /// True when `content` is the content of a special token.
  bool is_special_content(const std::string& content) const;
  const std::vector<AddedToken>& tokens() const { return tokens_; }

 private:
  void split_one(const Piece& piece, bool normalized, std::vector<Piece>* out) const;

  std::vector<AddedToken> tokens_;
  std::vector<std::string> patterns_;
  std::unordered_map<int32_t, size_t> by_id_;
  std::vector<size_t> by_first_byte_[256];  // token indexes, by the first byte of the pattern
};

}  // namespace llm
