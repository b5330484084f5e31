// A SentencePiece .model file, encoded and decoded as the `sentencepiece` library does:
// its normalizer, the BPE or Unigram model, unknown characters as one unk per run or as
// <0xNN> byte pieces (byte_fallback), user-defined pieces matched whole. Control pieces
// written in the text are plain text, as in sentencepiece. Decoding joins the pieces
// with ▁ as a space, drops the dummy prefix's leading space, assembles byte pieces into
// UTF-8 (U+FFFD for each malformed byte) and skips control pieces.
#pragma once

#include <stdint.h>

#include <string>
#include <vector>

#include "apps/llm/tokenizer/sentencepiece_model.h"
#include "apps/llm/tokenizer/sentencepiece_normalizer.h"
#include "apps/llm/tokenizer/sentencepiece_vocab.h"
#include "apps/llm/tokenizer/status.h"

namespace llm {

class SentencePiece final {
 public:
  /// Reads the serialized ModelProto `bytes` of file `path`.
  Status load(const std::string& path, const std::string& bytes);

  /// The ids sentencepiece's encode(text) gives.
  std::vector<int32_t> encode(const std::string& text) const;
  /// The text of `ids` (ids outside the vocabulary are skipped); control pieces are
  /// written as their text when `keep_control`.
  std::string decode(const std::vector<int32_t>& ids, bool keep_control) const;

  /// The control pieces named bos/eos by the trainer spec, or -1.
  int32_t bos_id() const { return bos_id_; }
  int32_t eos_id() const { return eos_id_; }
  size_t size() const { return vocab_.size(); }
  /// The id of piece `text`, or -1.
  int32_t id_of(const std::string& text) const { return vocab_.find(text); }
  /// The text of piece `id`, or nullptr.
  const std::string* piece(int32_t id) const {
    return vocab_.valid(id) ? &vocab_.piece(id) : nullptr;
  }

 private:
  int32_t control_named(const std::string& name) const;

  SentencePieceModelProto proto_;
  SentencePieceVocab vocab_;
  SentencePieceNormalizer normalizer_, denormalizer_;
  bool has_denormalizer_ = false;
  int32_t bos_id_ = -1, eos_id_ = -1;
};

}  // namespace llm
