#include "examples/nanogpt/runner/json_reader.h"

#include <stdio.h>

namespace nanogpt {
namespace {

class Reader {
 public:
  explicit Reader(const std::string& text) : text_(text) {}

  bool fail(const char* what) {
    char where[48];
    snprintf(where, sizeof(where), "byte %zu: ", pos_);
    error_ = std::string(where) + what;
    return false;
  }
  const std::string& error() const { return error_; }

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool at_end() {
    skip_space();
    return pos_ == text_.size();
  }
  bool consume(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  bool read_string(std::string* out) {
    if (!consume('"')) return fail("expected a string");
    out->clear();
    while (pos_ < text_.size()) {
      const unsigned char c = static_cast<unsigned char>(text_[pos_++]);
      if (c == '"') return true;
      if (c < 0x20) return fail("control character inside a string");
      if (c != '\\') {
        out->push_back(static_cast<char>(c));
        continue;
      }
      if (pos_ >= text_.size()) break;
      const char e = text_[pos_++];
      switch (e) {
        case '"': case '\\': case '/': out->push_back(e); break;
        case 'b': out->push_back('\b'); break;
        case 'f': out->push_back('\f'); break;
        case 'n': out->push_back('\n'); break;
        case 'r': out->push_back('\r'); break;
        case 't': out->push_back('\t'); break;
        case 'u': {
          uint32_t cp = 0;
          if (!read_hex4(&cp)) return false;
          // A high surrogate must be followed by \u and a low one: together one code point.
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t low = 0;
            if (pos_ + 1 >= text_.size() || text_[pos_] != '\\' || text_[pos_ + 1] != 'u') {
              return fail("high surrogate without a low one");
            }
            pos_ += 2;
            if (!read_hex4(&low)) return false;
            if (low < 0xDC00 || low > 0xDFFF) return fail("high surrogate without a low one");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return fail("low surrogate without a high one");
          }
          append_utf8(cp, out);
          break;
        }
        default:
          return fail("unknown escape in a string");
      }
    }
    return fail("unterminated string");
  }

  bool read_int(int64_t* out) {
    skip_space();
    const size_t start = pos_;
    bool negative = false;
    if (pos_ < text_.size() && text_[pos_] == '-') {
      negative = true;
      ++pos_;
    }
    int64_t value = 0;
    size_t digits = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      if (value > (INT64_MAX - 9) / 10) return fail("integer out of range");
      value = value * 10 + (text_[pos_++] - '0');
      ++digits;
    }
    if (digits == 0 || (pos_ < text_.size() && (text_[pos_] == '.' || text_[pos_] == 'e' ||
                                                text_[pos_] == 'E'))) {
      pos_ = start;
      return fail("expected an integer");
    }
    *out = negative ? -value : value;
    return true;
  }

 private:
  bool read_hex4(uint32_t* out) {
    *out = 0;
    for (int i = 0; i < 4; ++i, ++pos_) {
      if (pos_ >= text_.size()) return fail("truncated \\u escape");
      const char h = text_[pos_];
      const int digit = h >= '0' && h <= '9'   ? h - '0'
                        : h >= 'a' && h <= 'f' ? h - 'a' + 10
                        : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                               : -1;
      if (digit < 0) return fail("bad hex digit in a \\u escape");
      *out = *out * 16 + static_cast<uint32_t>(digit);
    }
    return true;
  }

  static void append_utf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  const std::string& text_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace

bool parse_string_to_int_object(const std::string& text,
                                std::vector<std::pair<std::string, int64_t>>* entries,
                                std::string* error) {
  Reader r(text);
  entries->clear();
  bool ok = r.consume('{') || r.fail("expected '{'");
  if (ok && !r.consume('}')) {
    do {
      std::string key;
      int64_t value = 0;
      ok = r.read_string(&key) && (r.consume(':') || r.fail("expected ':'")) &&
           r.read_int(&value);
      if (ok) entries->emplace_back(std::move(key), value);
    } while (ok && r.consume(','));
    ok = ok && (r.consume('}') || r.fail("expected ',' or '}'"));
  }
  ok = ok && (r.at_end() || r.fail("unexpected text after the object"));
  if (!ok) *error = r.error();
  return ok;
}

}  // namespace nanogpt
