#include "apps/llm/tokenizer/tiktoken_reader.h"

#include "apps/llm/tokenizer/file_reader.h"

namespace llm {
namespace {

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

bool base64_decode(const std::string& text, std::string* out) {
  out->clear();
  if (text.empty() || text.size() % 4 != 0) return false;
  uint32_t bits = 0;
  int count = 0;
  size_t padding = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '=') {
      if (i + 2 < text.size()) return false;  // '=' only in the last two places
      ++padding;
      bits <<= 6;
    } else {
      const int v = base64_value(text[i]);
      if (v < 0 || padding > 0) return false;
      bits = (bits << 6) | static_cast<uint32_t>(v);
    }
    if (++count == 4) {
      out->push_back(static_cast<char>(bits >> 16));
      out->push_back(static_cast<char>((bits >> 8) & 0xFF));
      out->push_back(static_cast<char>(bits & 0xFF));
      bits = 0;
      count = 0;
    }
  }
  out->resize(out->size() - padding);
  return true;
}

// Splits "token rank" into its two fields; false when the line has another shape.
bool split_line(const std::string& line, std::string* token, int64_t* rank) {
  const size_t space = line.find(' ');
  if (space == std::string::npos || space == 0 || space + 1 >= line.size()) return false;
  *token = line.substr(0, space);
  *rank = 0;
  for (size_t i = space + 1; i < line.size(); ++i) {
    if (line[i] < '0' || line[i] > '9' || *rank >= (1 << 24)) return false;
    *rank = *rank * 10 + (line[i] - '0');
  }
  return true;
}

}  // namespace

bool TiktokenReader::looks_like(const std::string& text) {
  const size_t end = text.find('\n');
  std::string line = text.substr(0, end), token, bytes;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  int64_t rank = 0;
  return split_line(line, &token, &rank) && base64_decode(token, &bytes);
}

Status TiktokenReader::read(const std::string& path, const std::string& text,
                            const TiktokenOptions& options, Tokenizer* out) {
  out->format_ = Tokenizer::Format::kTiktoken;
  const std::vector<std::string> lines = split_lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.empty()) continue;
    const std::string where = path + ":" + std::to_string(i + 1) + ": ";
    std::string token, bytes;
    int64_t rank = 0;
    if (!split_line(line, &token, &rank)) {
      return Status::error(where + "expected 'base64-token rank', got '" + line.substr(0, 80) + "'");
    }
    if (!base64_decode(token, &bytes)) return Status::error(where + "'" + token + "' is not base64");
    if (!out->bpe_.add_token(bytes, static_cast<int32_t>(rank))) {
      return Status::error(where + "rank " + std::to_string(rank) + " is given twice");
    }
  }
  for (int b = 0; b < 256; ++b) {
    if (out->bpe_.id_of(std::string(1, static_cast<char>(b))) < 0) {
      return Status::error(path + ": no token for byte " + std::to_string(b) +
                           "; a tiktoken file ranks all 256 bytes");
    }
  }
  Bpe::Options bpe;
  bpe.rank_by_token = true;
  bpe.ignore_merges = true;  // a piece that is a token is that token
  out->bpe_.set_options(bpe);
  Status s = out->pre_tokenizer_.make_split(options.pattern, path + ": split pattern");
  if (!s.is_ok()) return s;
  out->has_pre_tokenizer_ = true;
  for (const auto& [content, id] : options.special_tokens) {
    if (content.empty() || id < 0) {
      return Status::error(path + ": special token '" + content + "' needs text and an id >= 0");
    }
    if (out->bpe_.token(id) != nullptr) {
      return Status::error(path + ": special token '" + content + "' has id " +
                           std::to_string(id) + ", a rank of the file");
    }
    AddedToken t;
    t.id = id;
    t.content = content;
    t.special = true;
    out->added_.add(t, content);
    if (content == "<|begin_of_text|>") out->bos_id_ = id;  // Llama 3's names
    if (content == "<|end_of_text|>") out->eos_id_ = id;
  }
  out->decode_mode_ = Tokenizer::DecodeMode::kRawBytes;
  return Status::ok();
}

}  // namespace llm
