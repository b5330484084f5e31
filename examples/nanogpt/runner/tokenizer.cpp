#include "examples/nanogpt/runner/tokenizer.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <utility>

#include "examples/nanogpt/runner/json_reader.h"

namespace nanogpt {
namespace {

const char kEndOfText[] = "<|endoftext|>";

bool read_file(const std::string& path, std::string* out, std::string* error) {
  FILE* f = fopen(path.c_str(), "rb");
  if (f == nullptr) {
    *error = path + ": " + strerror(errno);
    return false;
  }
  out->clear();
  char buffer[1 << 16];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof(buffer), f)) > 0) out->append(buffer, n);
  const bool failed = ferror(f) != 0;
  fclose(f);
  if (failed) *error = path + ": read error";
  return !failed;
}

// GPT-2's byte-to-unicode map, inverted: code point -> byte, -1 outside the alphabet.
// Printable Latin-1 bytes stand for themselves; the others were moved to 256 and up.
std::vector<int> unicode_to_byte() {
  std::vector<int> table(512, -1);
  int extra = 0;
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
    table[printable ? b : 256 + extra++] = b;
  }
  return table;
}

// The raw bytes a vocab.json token stands for; false when a character is outside the
// alphabet (or the UTF-8 is malformed).
bool token_to_bytes(const std::string& token, const std::vector<int>& table, std::string* out) {
  out->clear();
  for (size_t i = 0; i < token.size();) {
    const unsigned char c = static_cast<unsigned char>(token[i]);
    uint32_t cp = 0;
    if (c < 0x80) {
      cp = c;
      i += 1;
    } else if ((c & 0xE0) == 0xC0 && i + 1 < token.size()) {
      cp = ((c & 0x1Fu) << 6) | (static_cast<unsigned char>(token[i + 1]) & 0x3Fu);
      i += 2;
    } else {
      return false;  // every alphabet character is below U+0800: one or two bytes
    }
    if (cp >= table.size() || table[cp] < 0) return false;
    out->push_back(static_cast<char>(table[cp]));
  }
  return true;
}

// Byte classes of the pre-tokenizer (examples/nanogpt/bpe.py).
enum ByteClass { kSpace, kLetter, kDigit, kOther };

ByteClass byte_class(unsigned char b) {
  if (b == ' ' || b == '\t' || b == '\n' || b == '\v' || b == '\f' || b == '\r') return kSpace;
  if (b >= 0x80 || (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z')) return kLetter;
  if (b >= '0' && b <= '9') return kDigit;
  return kOther;
}

uint64_t pair_key(int32_t left, int32_t right) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
}

}  // namespace

bool Tokenizer::load(const std::string& vocab_path, const std::string& merges_path,
                     std::string* error) {
  // Vocabulary: token (in the byte alphabet) -> id.
  std::string text;
  if (!read_file(vocab_path, &text, error)) return false;
  std::vector<std::pair<std::string, int64_t>> entries;
  if (!parse_string_to_int_object(text, &entries, error)) {
    *error = vocab_path + ": " + *error + " (expected GPT-2's {\"token\": id, ...})";
    return false;
  }
  const std::vector<int> table = unicode_to_byte();
  for (const auto& [token, id] : entries) {
    if (id < 0 || id >= (1 << 24)) {
      *error = vocab_path + ": token \"" + token + "\" has id " + std::to_string(id) +
               ", outside 0..16777215";
      return false;
    }
    if (static_cast<size_t>(id) >= bytes_.size()) {
      bytes_.resize(id + 1);
      known_.resize(id + 1, false);
    }
    if (known_[id]) {
      *error = vocab_path + ": id " + std::to_string(id) + " is given to two tokens";
      return false;
    }
    known_[id] = true;
    if (token == kEndOfText) {
      bytes_[id] = token;
      end_of_text_ = id;
      continue;
    }
    if (!token_to_bytes(token, table, &bytes_[id])) {
      *error = vocab_path + ": token \"" + token +
               "\" has a character outside GPT-2's byte-to-unicode alphabet";
      return false;
    }
    ids_.emplace(bytes_[id], static_cast<int32_t>(id));
  }
  for (int b = 0; b < 256; ++b) {
    const auto found = ids_.find(std::string(1, static_cast<char>(b)));
    if (found == ids_.end()) {
      char hex[8];
      snprintf(hex, sizeof(hex), "0x%02x", b);
      *error = vocab_path + ": no token for byte " + hex + "; a byte-level vocabulary has all 256";
      return false;
    }
    byte_ids_[b] = found->second;
  }

  // Merges: "left right" per line, in rank order, after an optional "#version" line.
  if (!read_file(merges_path, &text, error)) return false;
  size_t line_number = 0;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || (line_number == 1 && line.rfind("#version", 0) == 0)) continue;
    const std::string where = merges_path + ":" + std::to_string(line_number) + ": ";
    const size_t space = line.find(' ');
    if (space == std::string::npos || space == 0 || space + 1 == line.size() ||
        line.find(' ', space + 1) != std::string::npos) {
      *error = where + "expected 'left right', got '" + line + "'";
      return false;
    }
    int32_t parts[3];
    const std::string names[3] = {line.substr(0, space), line.substr(space + 1),
                                  line.substr(0, space) + line.substr(space + 1)};
    for (int k = 0; k < 3; ++k) {
      std::string raw;
      const auto found = token_to_bytes(names[k], table, &raw) ? ids_.find(raw) : ids_.end();
      if (found == ids_.end()) {
        *error = where + "token '" + names[k] + "' is not in " + vocab_path +
                 " (do the two files belong together?)";
        return false;
      }
      parts[k] = found->second;
    }
    // A repeated merge keeps its first (best) rank.
    merges_.emplace(pair_key(parts[0], parts[1]),
                    Merge{static_cast<int32_t>(merges_.size()), parts[2]});
  }
  return true;
}

void Tokenizer::encode_chunk(const std::string& chunk, std::vector<int64_t>* out) const {
  std::vector<int32_t> symbols;
  symbols.reserve(chunk.size());
  for (unsigned char b : chunk) symbols.push_back(byte_ids_[b]);
  // Merge every occurrence of the best-ranked adjacent pair, until no pair has a rank.
  while (symbols.size() > 1) {
    const Merge* best = nullptr;
    uint64_t best_key = 0;
    for (size_t i = 0; i + 1 < symbols.size(); ++i) {
      const uint64_t key = pair_key(symbols[i], symbols[i + 1]);
      const auto found = merges_.find(key);
      if (found != merges_.end() && (best == nullptr || found->second.rank < best->rank)) {
        best = &found->second;
        best_key = key;
      }
    }
    if (best == nullptr) break;
    size_t kept = 0;
    for (size_t i = 0; i < symbols.size(); ++i) {
      if (i + 1 < symbols.size() && pair_key(symbols[i], symbols[i + 1]) == best_key) {
        symbols[kept++] = best->merged;
        ++i;
      } else {
        symbols[kept++] = symbols[i];
      }
    }
    symbols.resize(kept);
  }
  out->insert(out->end(), symbols.begin(), symbols.end());
}

std::vector<int64_t> Tokenizer::encode(const std::string& text) const {
  std::vector<int64_t> ids;
  const size_t n = text.size();
  auto cls = [&](size_t i) { return byte_class(static_cast<unsigned char>(text[i])); };
  for (size_t i = 0; i < n;) {
    size_t start = i;
    ByteClass run = cls(i);
    if (text[i] == ' ' && i + 1 < n && cls(i + 1) != kSpace) {
      run = cls(++i);  // a single space leads the word, number or punctuation after it
    } else if (run == kSpace) {
      size_t j = i;
      while (j < n && cls(j) == kSpace) ++j;
      if (j < n && j - i > 1 && text[j - 1] == ' ') --j;  // that space leads the next chunk
      encode_chunk(text.substr(i, j - i), &ids);
      i = j;
      continue;
    }
    while (i < n && cls(i) == run) ++i;
    encode_chunk(text.substr(start, i - start), &ids);
  }
  return ids;
}

std::string Utf8Stream::push(const std::string& bytes) {
  pending_ += bytes;
  // Find where the last character starts and whether all its bytes are here.
  size_t lead = pending_.size();
  for (size_t back = 0; back < 4 && lead > 0; ++back) {
    --lead;
    if ((static_cast<unsigned char>(pending_[lead]) & 0xC0) != 0x80) break;
  }
  size_t keep = 0;
  if (lead < pending_.size()) {
    const unsigned char c = static_cast<unsigned char>(pending_[lead]);
    const size_t need = c >= 0xF0 && c < 0xF8 ? 4 : c >= 0xE0 && c < 0xF0 ? 3 : c >= 0xC0 && c < 0xE0 ? 2 : 1;
    if (pending_.size() - lead < need) keep = pending_.size() - lead;
  }
  std::string ready = pending_.substr(0, pending_.size() - keep);
  pending_.erase(0, pending_.size() - keep);
  return ready;
}

std::string Utf8Stream::flush() {
  std::string rest;
  rest.swap(pending_);
  return rest;
}

}  // namespace nanogpt
