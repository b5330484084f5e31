// SentencePiece's ModelProto (sentencepiece_model.proto), read from a .model file without
// the protobuf library: the pieces, and the trainer and normalizer fields that change how
// text is encoded. Fields only training reads (vocab_size, split_digits, ...) are skipped.
#pragma once

#include <stdint.h>

#include <string>
#include <vector>

#include "apps/llm/tokenizer/status.h"

namespace llm {

struct SentencePieceModelProto {
  enum PieceType : int { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5,
                         kByte = 6 };
  enum ModelType : int { kUnigram = 1, kBpe = 2, kWord = 3, kChar = 4 };
  struct Piece {
    std::string text;
    float score = 0.0f;
    PieceType type = kNormal;
  };
  // NormalizerSpec, with the proto's defaults.
  struct Normalization {
    std::string name;
    std::string precompiled_charsmap;  // empty: no rule (identity)
    bool add_dummy_prefix = true;
    bool remove_extra_whitespaces = true;
    bool escape_whitespaces = true;
  };

  std::vector<Piece> pieces;
  // TrainerSpec
  ModelType model_type = kUnigram;
  bool byte_fallback = false;
  bool treat_whitespace_as_suffix = false;
  // sentencepiece finds bos/eos by these names (the *_id fields only drive training).
  std::string unk_piece = "<unk>", bos_piece = "<s>", eos_piece = "</s>", pad_piece = "<pad>";
  std::string unk_surface = " \xE2\x81\x87 ";  // what decoding writes for <unk>
  Normalization normalizer;
  bool has_denormalizer = false;
  Normalization denormalizer;
};

/// True when `bytes` reads as a protobuf message whose first field is a piece (byte 0x0A),
/// which no tokenizer.json or tiktoken file is.
bool looks_like_sentencepiece_model(const std::string& bytes);

/// Parses a serialized ModelProto; errors name `path` and the field.
Status parse_sentencepiece_model(const std::string& path, const std::string& bytes,
                                 SentencePieceModelProto* out);

}  // namespace llm
