#include "apps/llm/tokenizer/sentencepiece_model.h"

#include <string.h>

#include "apps/llm/tokenizer/protobuf_wire.h"

namespace llm {
namespace {

using Proto = SentencePieceModelProto;

// Field numbers of sentencepiece_model.proto.
enum : uint32_t { kModelPieces = 1, kModelTrainerSpec = 2, kModelNormalizerSpec = 3,
                  kModelDenormalizerSpec = 5 };
enum : uint32_t { kPieceText = 1, kPieceScore = 2, kPieceType = 3 };
enum : uint32_t { kTrainerModelType = 3, kTrainerTreatWhitespaceAsSuffix = 24,
                  kTrainerByteFallback = 35, kTrainerUnkSurface = 44, kTrainerUnkPiece = 45,
                  kTrainerBosPiece = 46, kTrainerEosPiece = 47, kTrainerPadPiece = 48 };
enum : uint32_t { kNormName = 1, kNormCharsmap = 2, kNormAddDummyPrefix = 3,
                  kNormRemoveExtraWhitespaces = 4, kNormEscapeWhitespaces = 5 };

bool read_string(WireReader* r, uint32_t wire_type, const char* name, std::string* out) {
  const char* data = nullptr;
  size_t size = 0;
  if (!r->expect(wire_type, kLengthDelimited, name) || !r->read_bytes(&data, &size)) return false;
  out->assign(data, size);
  return true;
}

bool read_varint(WireReader* r, uint32_t wire_type, const char* name, uint64_t* out) {
  return r->expect(wire_type, kVarint, name) && r->read_varint(out);
}

bool read_bool(WireReader* r, uint32_t wire_type, const char* name, bool* out) {
  uint64_t v = 0;
  if (!read_varint(r, wire_type, name, &v)) return false;
  *out = v != 0;
  return true;
}

// Reads a nested message with `read_field` for each of its fields; errors get `where`.
template <typename ReadField>
Status read_message(const char* data, size_t size, const std::string& where, ReadField read_field) {
  WireReader r(data, size);
  uint32_t field = 0, wire_type = 0;
  std::string invalid;
  while (r.next_field(&field, &wire_type)) {
    if (!read_field(&r, field, wire_type, &invalid)) break;
  }
  if (!invalid.empty()) return Status::error(where + ": " + invalid);
  if (r.failed()) return Status::error(where + ": " + r.error());
  return Status::ok();
}

Status read_piece(const char* data, size_t size, const std::string& where, Proto::Piece* piece) {
  return read_message(data, size, where,
                      [&](WireReader* r, uint32_t field, uint32_t wire_type, std::string* invalid) {
    uint64_t v = 0;
    switch (field) {
      case kPieceText:
        return read_string(r, wire_type, "piece", &piece->text);
      case kPieceScore: {
        uint32_t bits = 0;
        if (!r->expect(wire_type, kFixed32, "score") || !r->read_fixed32(&bits)) return false;
        memcpy(&piece->score, &bits, sizeof(bits));
        return true;
      }
      case kPieceType:
        if (!read_varint(r, wire_type, "type", &v)) return false;
        if (v < Proto::kNormal || v > Proto::kByte) {
          *invalid = "type " + std::to_string(v) + " is not a SentencePiece piece type (1..6)";
          return false;
        }
        piece->type = static_cast<Proto::PieceType>(v);
        return true;
      default:
        return r->skip(wire_type);
    }
  });
}

Status read_trainer(const char* data, size_t size, const std::string& where, Proto* out) {
  return read_message(data, size, where,
                      [&](WireReader* r, uint32_t field, uint32_t wire_type, std::string* invalid) {
    uint64_t v = 0;
    switch (field) {
      case kTrainerModelType:
        if (!read_varint(r, wire_type, "model_type", &v)) return false;
        if (v < Proto::kUnigram || v > Proto::kChar) {
          *invalid = "model_type " + std::to_string(v) + " is not a SentencePiece model type";
          return false;
        }
        out->model_type = static_cast<Proto::ModelType>(v);
        return true;
      case kTrainerTreatWhitespaceAsSuffix:
        return read_bool(r, wire_type, "treat_whitespace_as_suffix",
                         &out->treat_whitespace_as_suffix);
      case kTrainerByteFallback:
        return read_bool(r, wire_type, "byte_fallback", &out->byte_fallback);
      case kTrainerUnkSurface:
        return read_string(r, wire_type, "unk_surface", &out->unk_surface);
      // An empty name means the default, as in sentencepiece's ModelInterface.
      case kTrainerUnkPiece:
      case kTrainerBosPiece:
      case kTrainerEosPiece:
      case kTrainerPadPiece: {
        std::string name;
        if (!read_string(r, wire_type, "a *_piece name", &name)) return false;
        std::string* target = field == kTrainerUnkPiece   ? &out->unk_piece
                              : field == kTrainerBosPiece ? &out->bos_piece
                              : field == kTrainerEosPiece ? &out->eos_piece
                                                          : &out->pad_piece;
        if (!name.empty()) *target = name;
        return true;
      }
      default:
        return r->skip(wire_type);
    }
  });
}

Status read_normalizer(const char* data, size_t size, const std::string& where,
                       Proto::Normalization* out) {
  return read_message(data, size, where,
                      [&](WireReader* r, uint32_t field, uint32_t wire_type, std::string*) {
    switch (field) {
      case kNormName:
        return read_string(r, wire_type, "name", &out->name);
      case kNormCharsmap:
        return read_string(r, wire_type, "precompiled_charsmap", &out->precompiled_charsmap);
      case kNormAddDummyPrefix:
        return read_bool(r, wire_type, "add_dummy_prefix", &out->add_dummy_prefix);
      case kNormRemoveExtraWhitespaces:
        return read_bool(r, wire_type, "remove_extra_whitespaces", &out->remove_extra_whitespaces);
      case kNormEscapeWhitespaces:
        return read_bool(r, wire_type, "escape_whitespaces", &out->escape_whitespaces);
      default:
        return r->skip(wire_type);
    }
  });
}

}  // namespace

bool looks_like_sentencepiece_model(const std::string& bytes) {
  if (bytes.empty() || bytes[0] != 0x0A) return false;
  // A JSON file may start with a newline too: then only a well-formed message counts.
  WireReader r(bytes.data(), bytes.size());
  uint32_t field = 0, wire_type = 0;
  while (r.next_field(&field, &wire_type)) {
    if (!r.skip(wire_type)) return false;
  }
  return !r.failed();
}

Status parse_sentencepiece_model(const std::string& path, const std::string& bytes, Proto* out) {
  *out = Proto();
  WireReader r(bytes.data(), bytes.size());
  uint32_t field = 0, wire_type = 0;
  while (r.next_field(&field, &wire_type)) {
    const char* data = nullptr;
    size_t size = 0;
    if (field != kModelPieces && field != kModelTrainerSpec && field != kModelNormalizerSpec &&
        field != kModelDenormalizerSpec) {
      if (!r.skip(wire_type)) break;
      continue;
    }
    if (!r.expect(wire_type, kLengthDelimited, "a ModelProto message field") ||
        !r.read_bytes(&data, &size)) {
      break;
    }
    Status s = Status::ok();
    if (field == kModelPieces) {
      out->pieces.emplace_back();
      s = read_piece(data, size, path + ": pieces[" + std::to_string(out->pieces.size() - 1) + "]",
                     &out->pieces.back());
    } else if (field == kModelTrainerSpec) {
      s = read_trainer(data, size, path + ": trainer_spec", out);
    } else if (field == kModelNormalizerSpec) {
      s = read_normalizer(data, size, path + ": normalizer_spec", &out->normalizer);
    } else {
      out->has_denormalizer = true;
      s = read_normalizer(data, size, path + ": denormalizer_spec", &out->denormalizer);
    }
    if (!s.is_ok()) return s;
  }
  if (r.failed()) {
    return Status::error(path + ": not a well-formed SentencePiece model (" + r.error() + ")");
  }
  if (out->pieces.empty()) return Status::error(path + ": the SentencePiece model has no pieces");
  return Status::ok();
}

}  // namespace llm
