#include "apps/llm/tokenizer/byte_alphabet.h"

#include "apps/llm/tokenizer/unicode.h"

namespace llm {
namespace {

bool printable(int b) { return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE; }

struct Tables {
  uint32_t to_cp[256];
  int16_t from_cp[324];  // the alphabet ends at U+0143
  Tables() {
    for (int16_t& v : from_cp) v = -1;
    int extra = 0;
    for (int b = 0; b < 256; ++b) {
      to_cp[b] = printable(b) ? b : 256 + extra++;
      from_cp[to_cp[b]] = static_cast<int16_t>(b);
    }
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

}  // namespace

uint32_t byte_to_code_point(uint8_t b) { return tables().to_cp[b]; }

int code_point_to_byte(uint32_t cp) { return cp < 324 ? tables().from_cp[cp] : -1; }

std::string bytes_to_alphabet(const std::string& bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) append_utf8(byte_to_code_point(b), &out);
  return out;
}

bool alphabet_to_bytes(const std::string& text, std::string* bytes) {
  bytes->clear();
  for (size_t pos = 0; pos < text.size();) {
    size_t length = 0;
    const int b = code_point_to_byte(decode_utf8(text, pos, &length));
    if (b < 0 || length > 2) return false;
    bytes->push_back(static_cast<char>(b));
    pos += length;
  }
  return true;
}

}  // namespace llm
