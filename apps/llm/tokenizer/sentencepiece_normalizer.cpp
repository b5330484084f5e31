#include "apps/llm/tokenizer/sentencepiece_normalizer.h"

#include "apps/llm/tokenizer/unicode.h"

namespace llm {
namespace {

const char kSpaceSymbol[] = "\xE2\x96\x81";  // ▁
const char kReplacement[] = "\xEF\xBF\xBD";   // U+FFFD

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Status SentencePieceNormalizer::init(const SentencePieceModelProto::Normalization& spec,
                                     bool treat_whitespace_as_suffix,
                                     const PieceTrie& user_defined, const std::string& where) {
  spec_ = spec;
  treat_whitespace_as_suffix_ = treat_whitespace_as_suffix;
  user_defined_ = user_defined;
  return charsmap_.load(spec.precompiled_charsmap, where);
}

size_t SentencePieceNormalizer::normalize_prefix(const std::string& text, size_t pos,
                                                 std::string* out) const {
  if (!user_defined_.empty()) {
    const size_t length = user_defined_.longest_prefix(text, pos);
    if (length > 0) {
      out->assign(text, pos, length);
      return length;
    }
  }
  const size_t length = charsmap_.longest_match(text, pos, out);
  if (length > 0) return length;
  const size_t char_length = well_formed_length(text, pos);
  if (char_length == 0) {
    out->assign(kReplacement);  // a malformed byte: one U+FFFD each, as sentencepiece
    return 1;
  }
  out->assign(text, pos, char_length);
  return char_length;
}

// sentencepiece's Normalizer::Normalize, without the offsets back to the input.
std::string SentencePieceNormalizer::normalize(const std::string& input) const {
  std::string out, piece;
  size_t pos = 0;
  if (spec_.remove_extra_whitespaces) {  // leading spaces go
    while (pos < input.size()) {
      const size_t consumed = normalize_prefix(input, pos, &piece);
      if (piece != " ") break;
      pos += consumed;
    }
  }
  if (pos >= input.size()) return out;
  const std::string space = spec_.escape_whitespaces ? kSpaceSymbol : " ";
  if (!treat_whitespace_as_suffix_ && spec_.add_dummy_prefix) out += space;
  bool previous_space = spec_.remove_extra_whitespaces;
  while (pos < input.size()) {
    pos += normalize_prefix(input, pos, &piece);
    size_t start = 0;
    while (previous_space && start < piece.size() && piece[start] == ' ') ++start;
    if (start < piece.size()) {
      for (size_t i = start; i < piece.size(); ++i) {
        if (piece[i] == ' ') {
          out += space;
        } else {
          out += piece[i];
        }
      }
      previous_space = piece.back() == ' ';
    }
    if (!spec_.remove_extra_whitespaces) previous_space = false;
  }
  if (spec_.remove_extra_whitespaces) {  // trailing spaces go
    while (ends_with(out, space)) out.resize(out.size() - space.size());
  }
  if (treat_whitespace_as_suffix_ && spec_.add_dummy_prefix) out += space;
  return out;
}

}  // namespace llm
