#include "apps/llm/tokenizer/sentencepiece_vocab.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

namespace llm {

int SentencePieceVocab::piece_to_byte(const std::string& text) {
  static const char kHex[] = "0123456789ABCDEF";  // "<0x%02X>": upper case only
  if (text.size() != 6 || text.compare(0, 3, "<0x") != 0 || text[5] != '>') return -1;
  int value = 0;
  for (int i = 3; i < 5; ++i) {
    const char* digit = text[i] == '\0' ? nullptr : strchr(kHex, text[i]);
    if (digit == nullptr) return -1;
    value = value * 16 + static_cast<int>(digit - kHex);
  }
  return value;
}

Status SentencePieceVocab::build(const SentencePieceModelProto& proto, const std::string& path) {
  pieces_ = proto.pieces;
  byte_fallback_ = proto.byte_fallback;
  bool byte_found[256] = {};
  min_score_ = FLT_MAX;
  max_score_ = FLT_MIN;
  for (size_t i = 0; i < pieces_.size(); ++i) {
    const SentencePieceModelProto::Piece& p = pieces_[i];
    const int32_t id = static_cast<int32_t>(i);
    const std::string where = path + ": pieces[" + std::to_string(i) + "] '" + p.text + "'";
    if (p.text.empty()) return Status::error(where + ": a piece must not be empty");
    const bool normal = p.type == Type::kNormal || p.type == Type::kUserDefined ||
                        p.type == Type::kUnused;
    if (!(normal ? normal_ : reserved_).emplace(p.text, id).second) {
      return Status::error(where + ": the piece is defined twice");
    }
    if (normal) normal_trie_.insert(p.text, id);
    if (p.type == Type::kUserDefined) user_defined_.insert(p.text, id);
    if (p.type == Type::kNormal) {
      min_score_ = p.score < min_score_ ? p.score : min_score_;
      max_score_ = p.score > max_score_ ? p.score : max_score_;
    }
    if (p.type == Type::kUnknown) {
      if (unk_id_ >= 0) return Status::error(where + ": a second unknown piece");
      unk_id_ = id;
    }
    if (p.type == Type::kByte) {
      const int b = piece_to_byte(p.text);
      if (b < 0) return Status::error(where + ": a byte piece must read <0xNN>");
      if (!byte_fallback_) {
        return Status::error(where + ": a byte piece, but trainer_spec.byte_fallback is false");
      }
      byte_found[b] = true;
      byte_ids_[b] = id;
    }
  }
  if (unk_id_ < 0) return Status::error(path + ": the SentencePiece model has no unknown piece");
  if (byte_fallback_) {
    for (int b = 0; b < 256; ++b) {
      if (!byte_found[b]) {
        char name[8];
        snprintf(name, sizeof(name), "<0x%02X>", b);
        return Status::error(path + ": byte_fallback is set but there is no byte piece " + name);
      }
    }
  }
  return Status::ok();
}

int32_t SentencePieceVocab::piece_to_id(const std::string& text) const {
  const auto reserved = reserved_.find(text);
  if (reserved != reserved_.end()) return reserved->second;
  const int32_t id = normal_id(text);
  return id >= 0 ? id : unk_id_;
}

int32_t SentencePieceVocab::normal_id(const std::string& text) const {
  const auto it = normal_.find(text);
  return it == normal_.end() ? -1 : it->second;
}

int32_t SentencePieceVocab::find(const std::string& text) const {
  const auto reserved = reserved_.find(text);
  return reserved != reserved_.end() ? reserved->second : normal_id(text);
}

}  // namespace llm
