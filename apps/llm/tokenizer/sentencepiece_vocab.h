// The pieces of a SentencePiece model as its encoders see them (sentencepiece's
// ModelInterface): normal, user-defined and unused pieces are looked up by text;
// unknown, control and byte pieces are reserved (matched only by PieceToId).
#pragma once

#include <stdint.h>

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "apps/llm/tokenizer/piece_trie.h"
#include "apps/llm/tokenizer/sentencepiece_model.h"
#include "apps/llm/tokenizer/status.h"

namespace llm {

/// What a SentencePiece model makes of normalized text: pieces in order with their ids
/// (unk for unknown characters), before byte fallback.
using SentencePieceResult = std::vector<std::pair<std::string, int32_t>>;

/// The length of the character at a lead byte, as sentencepiece counts it (OneCharLen:
/// from the top four bits alone; normalized text is well-formed).
inline size_t sentencepiece_char_length(uint8_t lead) {
  return static_cast<size_t>("\1\1\1\1\1\1\1\1\1\1\1\1\2\2\3\4"[lead >> 4]);
}

class SentencePieceVocab final {
 public:
  using Type = SentencePieceModelProto::PieceType;

  /// Checks the pieces as sentencepiece does (non-empty, unique, one unknown piece, 256
  /// byte pieces with byte_fallback) and indexes them; errors name `path`.
  Status build(const SentencePieceModelProto& proto, const std::string& path);

  size_t size() const { return pieces_.size(); }
  const std::string& piece(int32_t id) const { return pieces_[id].text; }
  float score(int32_t id) const { return pieces_[id].score; }
  Type type(int32_t id) const { return pieces_[id].type; }
  bool valid(int32_t id) const { return id >= 0 && static_cast<size_t>(id) < pieces_.size(); }

  /// sentencepiece's PieceToId: a reserved piece, else a normal one, else unk.
  int32_t piece_to_id(const std::string& text) const;
  /// The id of a normal, user-defined or unused piece `text`, or -1.
  int32_t normal_id(const std::string& text) const;
  /// The id of `text` when it is a piece, else -1.
  int32_t find(const std::string& text) const;

  int32_t unk_id() const { return unk_id_; }
  bool byte_fallback() const { return byte_fallback_; }
  int32_t byte_id(uint8_t b) const { return byte_ids_[b]; }
  /// The byte of a "<0xNN>" piece, or -1.
  static int piece_to_byte(const std::string& text);

  /// Normal, user-defined and unused pieces by text (Unigram's lattice).
  const PieceTrie& normal_trie() const { return normal_trie_; }
  /// The user-defined pieces, matched whole before anything else.
  const PieceTrie& user_defined() const { return user_defined_; }
  /// The extremes of the normal pieces' scores as sentencepiece's Unigram computes them:
  /// from FLT_MAX and FLT_MIN (the smallest positive float, so max_score >= FLT_MIN).
  float min_score() const { return min_score_; }
  float max_score() const { return max_score_; }

 private:
  std::vector<SentencePieceModelProto::Piece> pieces_;
  std::unordered_map<std::string, int32_t> normal_, reserved_;
  PieceTrie normal_trie_, user_defined_;
  int32_t unk_id_ = -1;
  bool byte_fallback_ = false;
  int32_t byte_ids_[256] = {};
  float min_score_ = 0.0f, max_score_ = 0.0f;
};

}  // namespace llm
