#include "apps/llm/tokenizer/added_tokens.h"

#include "apps/llm/tokenizer/unicode.h"

namespace llm {
namespace {

// Whether the text before `pos` ends with a word character / the text from `pos` starts
// with one (single_word tokens must stand alone).
bool word_before(const std::string& text, size_t pos) {
  if (pos == 0) return false;
  size_t start = pos - 1;
  while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
  size_t length = 0;
  return is_word_character(decode_utf8(text, start, &length));
}
bool word_after(const std::string& text, size_t pos) {
  size_t length = 0;
  return pos < text.size() && is_word_character(decode_utf8(text, pos, &length));
}

}  // namespace

void AddedTokens::add(const AddedToken& token, const std::string& pattern) {
  const auto existing = by_id_.find(token.id);
  if (existing != by_id_.end()) {  // the later entry wins
    tokens_[existing->second] = token;
    patterns_[existing->second] = pattern;
  } else {
    by_id_[token.id] = tokens_.size();
    tokens_.push_back(token);
    patterns_.push_back(pattern);
  }
  for (auto& bucket : by_first_byte_) bucket.clear();
  for (size_t i = 0; i < tokens_.size(); ++i) {
    if (!patterns_[i].empty()) by_first_byte_[static_cast<unsigned char>(patterns_[i][0])].push_back(i);
  }
}

const AddedToken* AddedTokens::find(int32_t id) const {
  const auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &tokens_[it->second];
}

bool AddedTokens::is_special_content(const std::string& content) const {
  for (const AddedToken& t : tokens_) {
    if (t.special && t.content == content) return true;
  }
  return false;
}

void AddedTokens::split_one(const Piece& piece, bool normalized, std::vector<Piece>* out) const {
  const std::string& text = piece.text;
  size_t emitted = 0;  // text before this is already in `out`
  auto emit_text = [&](size_t begin, size_t end) {
    if (end <= begin) return;
    Piece p;
    p.text = text.substr(begin, end - begin);
    p.at_start = piece.at_start && begin == 0;
    out->push_back(std::move(p));
  };
  for (size_t pos = 0; pos < text.size();) {
    // Leftmost-longest: the longest pattern starting here, else move on one byte.
    size_t best = SIZE_MAX;
    for (size_t i : by_first_byte_[static_cast<unsigned char>(text[pos])]) {
      if (tokens_[i].normalized != normalized) continue;
      const std::string& p = patterns_[i];
      if (text.compare(pos, p.size(), p) == 0 &&
          (best == SIZE_MAX || p.size() > patterns_[best].size())) {
        best = i;
      }
    }
    if (best == SIZE_MAX) {
      ++pos;
      continue;
    }
    const AddedToken& token = tokens_[best];
    size_t start = pos, stop = pos + patterns_[best].size();
    pos = stop;
    if (token.single_word && (word_before(text, start) || word_after(text, stop))) continue;
    if (token.lstrip) {
      size_t s = start;
      while (s > emitted) {  // whitespace before it, down to what is already emitted
        size_t back = s - 1;
        while (back > 0 && (static_cast<unsigned char>(text[back]) & 0xC0) == 0x80) --back;
        size_t length = 0;
        if (!is_regex_space(decode_utf8(text, back, &length))) break;
        s = back;
      }
      start = s;
    }
    if (token.rstrip) {
      size_t length = 0;
      while (stop < text.size() && is_regex_space(decode_utf8(text, stop, &length))) stop += length;
      pos = stop;
    }
    emit_text(emitted, start);
    Piece p;
    p.text = text.substr(start, stop - start);
    p.id = token.id;
    out->push_back(std::move(p));
    emitted = stop;
  }
  if (emitted == 0) {
    out->push_back(piece);  // nothing matched (this keeps an empty input as one piece)
  } else {
    emit_text(emitted, text.size());
  }
}

void AddedTokens::split(std::vector<Piece>* pieces, bool normalized) const {
  if (tokens_.empty()) return;
  std::vector<Piece> out;
  for (const Piece& piece : *pieces) {
    if (piece.id >= 0) {
      out.push_back(piece);
    } else {
      split_one(piece, normalized, &out);
    }
  }
  pieces->swap(out);
}

}  // namespace llm
