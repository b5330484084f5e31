#include "apps/llm/tokenizer/tokenizer.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "apps/llm/tokenizer/file_reader.h"
#include "apps/llm/tokenizer/json.h"
#include "apps/llm/tokenizer/tiktoken_reader.h"
#include "apps/llm/tokenizer/tokenizer_json_reader.h"
#include "apps/llm/tokenizer/unicode.h"
#include "apps/llm/tokenizer/vocab_merges_reader.h"

namespace llm {

const char kLlama3SplitPattern[] =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}|"
    " ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

Status Tokenizer::load(const std::string& path, const TiktokenOptions& tiktoken) {
  *this = Tokenizer();
  std::string bytes;
  Status s = read_whole_file(path, &bytes);
  if (!s.is_ok()) return s;
  if (looks_like_sentencepiece_model(bytes)) {
    format_ = Format::kSentencePiece;
    s = sentencepiece_.load(path, bytes);
    bos_id_ = sentencepiece_.bos_id();
    eos_id_ = sentencepiece_.eos_id();
    return s;
  }
  size_t first = 0;
  while (first < bytes.size() && strchr(" \t\r\n", bytes[first]) != nullptr) ++first;
  if (first < bytes.size() && bytes[first] == '{') {
    Json doc;
    std::string error;
    if (!Json::parse(bytes, &doc, &error)) return Status::error(path + ": " + error);
    if (doc.find("model") == nullptr && VocabMergesReader::looks_like(doc)) {
      return VocabMergesReader::read(path, doc, VocabMergesReader::merges_beside(path), this);
    }
    return TokenizerJsonReader::read(path, doc, this);
  }
  if (TiktokenReader::looks_like(bytes)) return TiktokenReader::read(path, bytes, tiktoken, this);
  if (!bytes.empty() && bytes[0] == 0x0A) {  // protobuf field 1 (pieces), but malformed
    return sentencepiece_.load(path, bytes);
  }
  return Status::error(path + ": not a tokenizer file (expected tokenizer.json or a tiktoken "
                       "file of 'base64 rank' lines)");
}

Status Tokenizer::load_vocab_merges(const std::string& vocab_path,
                                    const std::string& merges_path) {
  *this = Tokenizer();
  std::string bytes, error;
  Json doc;
  Status s = read_whole_file(vocab_path, &bytes);
  if (!s.is_ok()) return s;
  if (!Json::parse(bytes, &doc, &error)) return Status::error(vocab_path + ": " + error);
  return VocabMergesReader::read(vocab_path, doc, merges_path, this);
}

std::vector<int32_t> Tokenizer::encode(const std::string& text, bool add_special_tokens) const {
  if (format_ == Format::kSentencePiece) {
    std::vector<int32_t> ids = sentencepiece_.encode(text);
    if (add_special_tokens && bos_id_ >= 0) ids.insert(ids.begin(), bos_id_);
    return ids;
  }
  std::vector<Piece> pieces(1);
  pieces[0].text = text;
  pieces[0].at_start = true;
  added_.split(&pieces, false);
  if (has_normalizer_) {
    for (Piece& p : pieces) {
      if (p.id < 0) p.text = normalizer_.normalize(p.text);
    }
  }
  added_.split(&pieces, true);
  if (has_pre_tokenizer_) pre_tokenizer_.apply(&pieces);
  std::vector<int32_t> ids;
  for (const Piece& p : pieces) {
    if (p.id >= 0) {
      ids.push_back(p.id);
    } else {
      bpe_.encode_word(p.text, &ids);
    }
  }
  if (!add_special_tokens || template_.empty()) return ids;
  std::vector<int32_t> out;
  for (const TemplatePart& part : template_) {
    if (part.sequence) {
      out.insert(out.end(), ids.begin(), ids.end());
    } else {
      out.insert(out.end(), part.ids.begin(), part.ids.end());
    }
  }
  return out;
}

std::string Tokenizer::token_text(int32_t id) const {
  if (const AddedToken* t = added_.find(id)) return t->content;
  const std::string* token = bpe_.token(id);
  return token == nullptr ? std::string() : *token;
}

const std::string* Tokenizer::kept_token(int32_t id, bool skip_special_tokens) const {
  const AddedToken* added = added_.find(id);
  const std::string* text = added != nullptr ? &added->content : bpe_.token(id);
  if (text == nullptr || (skip_special_tokens && added_.is_special_content(*text))) {
    return nullptr;
  }
  return text;
}

bool Tokenizer::ends_in_open_byte_run(const std::vector<int32_t>& ids) const {
  if (decode_mode_ != DecodeMode::kDecoder || !decoder_.has_byte_fallback()) return false;
  // The ids decode leaves out do not end the run.
  for (auto it = ids.rbegin(); it != ids.rend(); ++it) {
    if (const std::string* text = kept_token(*it, true)) return fallback_byte(*text) >= 0;
  }
  return false;
}

std::string Tokenizer::decode(const std::vector<int32_t>& ids, bool skip_special_tokens) const {
  if (format_ == Format::kSentencePiece) return sentencepiece_.decode(ids, !skip_special_tokens);
  std::vector<std::string> tokens;
  for (int32_t id : ids) {
    if (const std::string* text = kept_token(id, skip_special_tokens)) tokens.push_back(*text);
  }
  switch (decode_mode_) {
    case DecodeMode::kDecoder: {
      decoder_.decode_chain(&tokens);
      std::string out;
      for (const std::string& t : tokens) out += t;
      return out;
    }
    case DecodeMode::kJoinWithSpaces: {
      std::string out;
      for (size_t i = 0; i < tokens.size(); ++i) out += (i ? " " : "") + tokens[i];
      return out;
    }
    case DecodeMode::kRawBytes: {
      std::string out;
      for (const std::string& t : tokens) out += t;
      return utf8_lossy(out);
    }
  }
  return std::string();
}

size_t Tokenizer::vocab_size() const {
  if (format_ == Format::kSentencePiece) return sentencepiece_.size();
  size_t limit = bpe_.id_limit();
  for (const AddedToken& t : added_.tokens()) {
    if (static_cast<size_t>(t.id) + 1 > limit) limit = t.id + 1;
  }
  return limit;
}

int32_t Tokenizer::token_id(const std::string& token) const {
  if (format_ == Format::kSentencePiece) return sentencepiece_.id_of(token);
  for (const AddedToken& t : added_.tokens()) {
    if (t.content == token) return t.id;
  }
  return bpe_.id_of(token);
}

bool Tokenizer::has_id(int64_t id) const {
  if (id < 0 || id > INT32_MAX) return false;
  return added_.find(static_cast<int32_t>(id)) != nullptr ||
         bpe_.token(static_cast<int32_t>(id)) != nullptr;
}

}  // namespace llm
