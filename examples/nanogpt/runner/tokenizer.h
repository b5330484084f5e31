// Byte-level BPE tokenizer over GPT-2-format vocab.json + merges.txt. Its ids equal the
// Python reference (examples/nanogpt/bpe.py), which documents the pre-tokenizer rules.
#pragma once

#include <stdint.h>

#include <string>
#include <unordered_map>
#include <vector>

namespace nanogpt {

class Tokenizer final {
 public:
  /// Reads both files. Returns false with `error` naming the file (and line or token)
  /// when a file is missing or malformed, a vocabulary lacks one of the 256 byte
  /// tokens, or a merge names a token the vocabulary does not have.
  bool load(const std::string& vocab_path, const std::string& merges_path, std::string* error);

  /// Token ids of `text` (any bytes; UTF-8 is never split inside a character).
  std::vector<int64_t> encode(const std::string& text) const;

  /// True when `id` names a token of the vocabulary.
  bool has_id(int64_t id) const {
    return id >= 0 && static_cast<size_t>(id) < known_.size() && known_[id];
  }
  /// The bytes of token `id` (has_id(id) must hold); <|endoftext|> decodes to its name.
  const std::string& token_bytes(int64_t id) const { return bytes_[id]; }
  /// One past the largest id.
  size_t id_limit() const { return bytes_.size(); }
  /// The id of <|endoftext|>, or -1 when the vocabulary has none.
  int64_t end_of_text() const { return end_of_text_; }

 private:
  void encode_chunk(const std::string& chunk, std::vector<int64_t>* out) const;

  struct Merge {
    int32_t rank;
    int32_t merged;
  };
  std::vector<std::string> bytes_;               // id -> bytes
  std::vector<bool> known_;                      // id -> in the vocabulary
  std::unordered_map<std::string, int32_t> ids_; // bytes -> id (not special tokens)
  int32_t byte_ids_[256] = {};
  std::unordered_map<uint64_t, Merge> merges_;   // (left id << 32 | right id) -> merge
  int64_t end_of_text_ = -1;
};

/// Holds back the bytes of an unfinished UTF-8 character, so text streamed token by
/// token is printed in whole characters (a token may end inside one).
class Utf8Stream final {
 public:
  /// Appends `bytes`; returns what can be printed now.
  std::string push(const std::string& bytes);
  /// Returns whatever is held (an unfinished character at the end of the text).
  std::string flush();

 private:
  std::string pending_;
};

}  // namespace nanogpt
