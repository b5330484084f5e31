#include "apps/llm/tokenizer/sentencepiece.h"

#include "apps/llm/tokenizer/sentencepiece_bpe.h"
#include "apps/llm/tokenizer/unicode.h"
#include "apps/llm/tokenizer/unigram.h"

namespace llm {
namespace {

const char kSpaceSymbol[] = "\xE2\x96\x81";  // ▁

std::string replace_space_symbols(const std::string& text) {
  std::string out;
  for (size_t pos = 0; pos < text.size();) {
    if (text.compare(pos, 3, kSpaceSymbol) == 0) {
      out += ' ';
      pos += 3;
    } else {
      out += text[pos++];
    }
  }
  return out;
}

// Byte pieces' bytes as text: each well-formed character as it is, each other byte as
// U+FFFD (sentencepiece's ProcessBytePieces).
void append_bytes(const std::string& bytes, std::string* out) {
  for (size_t pos = 0; pos < bytes.size();) {
    const size_t length = well_formed_length(bytes, pos);
    if (length == 0) {
      append_utf8(kReplacementCharacter, out);
      ++pos;
    } else {
      out->append(bytes, pos, length);
      pos += length;
    }
  }
}

}  // namespace

int32_t SentencePiece::control_named(const std::string& name) const {
  const int32_t id = vocab_.piece_to_id(name);
  return vocab_.type(id) == SentencePieceVocab::Type::kControl ? id : -1;
}

Status SentencePiece::load(const std::string& path, const std::string& bytes) {
  Status s = parse_sentencepiece_model(path, bytes, &proto_);
  if (!s.is_ok()) return s;
  if (proto_.model_type != SentencePieceModelProto::kBpe &&
      proto_.model_type != SentencePieceModelProto::kUnigram) {
    return Status::error(path + ": SentencePiece model_type " +
                         (proto_.model_type == SentencePieceModelProto::kWord ? "WORD" : "CHAR") +
                         " is not supported (BPE and UNIGRAM are); train with --model_type=bpe "
                         "or unigram");
  }
  s = vocab_.build(proto_, path);
  if (!s.is_ok()) return s;
  s = normalizer_.init(proto_.normalizer, proto_.treat_whitespace_as_suffix, vocab_.user_defined(),
                       path + ": normalizer_spec");
  if (!s.is_ok()) return s;
  // sentencepiece applies a denormalizer only when it has rules.
  has_denormalizer_ = proto_.has_denormalizer && !proto_.denormalizer.precompiled_charsmap.empty();
  if (has_denormalizer_) {
    s = denormalizer_.init(proto_.denormalizer, false, PieceTrie(), path + ": denormalizer_spec");
    if (!s.is_ok()) return s;
  }
  bos_id_ = control_named(proto_.bos_piece);
  eos_id_ = control_named(proto_.eos_piece);
  return Status::ok();
}

std::vector<int32_t> SentencePiece::encode(const std::string& text) const {
  const std::string normalized = normalizer_.normalize(text);
  const SentencePieceResult result = proto_.model_type == SentencePieceModelProto::kBpe
                                         ? sentencepiece_bpe_encode(vocab_, normalized)
                                         : unigram_encode(vocab_, normalized);
  std::vector<int32_t> ids;
  bool previous_unk = false;
  for (const auto& [piece, id] : result) {
    const bool unk = vocab_.type(id) == SentencePieceVocab::Type::kUnknown;
    if (unk && vocab_.byte_fallback()) {
      for (unsigned char b : piece) ids.push_back(vocab_.byte_id(b));
    } else if (!(unk && previous_unk)) {  // a run of unknown characters is one unk
      ids.push_back(id);
    }
    previous_unk = unk;
  }
  return ids;
}

// sentencepiece's Decode: byte pieces are gathered and written as UTF-8; the first piece
// that writes text loses its leading ▁ (the dummy prefix), and with
// remove_extra_whitespaces so does every piece before it.
std::string SentencePiece::decode(const std::vector<int32_t>& ids, bool keep_control) const {
  using Type = SentencePieceVocab::Type;
  const bool strip_first_space =
      proto_.normalizer.add_dummy_prefix || proto_.normalizer.remove_extra_whitespaces;
  std::string text, bytes;
  size_t control_bytes = 0;  // kept control pieces do not end the start (sentencepiece has none)
  bool at_start = true, stripped = false;
  for (int32_t given : ids) {
    if (!vocab_.valid(given)) continue;
    const std::string& piece = vocab_.piece(given);
    const int32_t id = vocab_.piece_to_id(piece);  // as sentencepiece: ids go through their text
    if (vocab_.type(id) == Type::kByte) {
      bytes.push_back(static_cast<char>(SentencePieceVocab::piece_to_byte(piece)));
      continue;
    }
    append_bytes(bytes, &text);
    bytes.clear();
    if (stripped || text.size() > control_bytes) at_start = false;
    stripped = false;
    if (vocab_.type(id) == Type::kControl) {
      if (keep_control) {
        text += piece;
        control_bytes += piece.size();
      }
    } else if (vocab_.type(id) == Type::kUnknown) {
      text += proto_.unk_surface;
    } else if (at_start && strip_first_space && piece.compare(0, 3, kSpaceSymbol) == 0) {
      text += replace_space_symbols(piece.substr(3));
      stripped = !proto_.normalizer.remove_extra_whitespaces;
    } else {
      text += replace_space_symbols(piece);
    }
  }
  append_bytes(bytes, &text);
  return has_denormalizer_ ? denormalizer_.normalize(text) : text;
}

}  // namespace llm
