#include "apps/llm/tokenizer/json.h"

#include <stdio.h>
#include <stdlib.h>

#include "apps/llm/tokenizer/unicode.h"

namespace llm {

// Recursive descent over the text; depth is bounded so a hostile file cannot overflow
// the stack.
class JsonParser {
 public:
  explicit JsonParser(const std::string& text) : text_(text) {}

  bool parse_document(Json* out) {
    if (!parse_value(out, 0)) return false;
    skip_space();
    return pos_ == text_.size() || fail("unexpected text after the document");
  }
  const std::string& error() const { return error_; }

 private:
  static constexpr int kMaxDepth = 256;

  bool fail(const char* what) {
    char where[48];
    snprintf(where, sizeof(where), "byte %zu: ", pos_);
    error_ = std::string(where) + what;
    return false;
  }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool consume(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool consume_word(const char* word) {
    size_t n = 0;
    while (word[n] != '\0') ++n;
    if (text_.compare(pos_, n, word) != 0) return false;
    pos_ += n;
    return true;
  }

  bool parse_value(Json* out, int depth) {
    if (depth > kMaxDepth) return fail("nesting deeper than 256 levels");
    skip_space();
    if (pos_ >= text_.size()) return fail("expected a value, found the end of the file");
    const char c = text_[pos_];
    if (c == '{') return parse_object(out, depth);
    if (c == '[') return parse_array(out, depth);
    if (c == '"') {
      out->kind_ = Json::kString;
      return parse_string(&out->string_);
    }
    if (consume_word("true") || consume_word("false")) {
      out->kind_ = Json::kBool;
      out->bool_ = text_[pos_ - 4] == 't';  // "true" is 4 bytes, "false" 5
      return true;
    }
    if (consume_word("null")) {
      out->kind_ = Json::kNull;
      return true;
    }
    return parse_number(out);
  }

  bool parse_object(Json* out, int depth) {
    ++pos_;
    out->kind_ = Json::kObject;
    if (consume('}')) return true;
    do {
      skip_space();
      std::string key;
      if (pos_ >= text_.size() || text_[pos_] != '"') return fail("expected a member name");
      if (!parse_string(&key)) return false;
      if (!consume(':')) return fail("expected ':'");
      out->members_.emplace_back(std::move(key), Json());
      if (!parse_value(&out->members_.back().second, depth + 1)) return false;
    } while (consume(','));
    return consume('}') || fail("expected ',' or '}'");
  }

  bool parse_array(Json* out, int depth) {
    ++pos_;
    out->kind_ = Json::kArray;
    if (consume(']')) return true;
    do {
      out->items_.emplace_back();
      if (!parse_value(&out->items_.back(), depth + 1)) return false;
    } while (consume(','));
    return consume(']') || fail("expected ',' or ']'");
  }

  bool parse_number(Json* out) {
    const size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    const size_t digits = pos_;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
    if (pos_ == digits) return fail("expected a value");
    bool integral = true;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      integral = false;
      ++pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      integral = false;
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
    }
    const std::string literal = text_.substr(start, pos_ - start);
    out->kind_ = Json::kNumber;
    out->number_ = strtod(literal.c_str(), nullptr);
    if (integral && pos_ - digits <= 18) {  // 18 digits always fit in int64
      out->integral_ = true;
      out->integer_ = strtoll(literal.c_str(), nullptr, 10);
    }
    return true;
  }

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

  bool parse_string(std::string* out) {
    ++pos_;  // the opening quote
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

  const std::string& text_;
  size_t pos_ = 0;
  std::string error_;
};

bool Json::parse(const std::string& text, Json* out, std::string* error) {
  *out = Json();
  JsonParser parser(text);
  if (parser.parse_document(out)) return true;
  *error = parser.error();
  return false;
}

const Json* Json::find(const std::string& key) const {
  for (const auto& member : members_) {
    if (member.first == key) return &member.second;
  }
  return nullptr;
}

const char* Json::describe(Kind kind) {
  switch (kind) {
    case kNull: return "null";
    case kBool: return "a boolean";
    case kNumber: return "a number";
    case kString: return "a string";
    case kArray: return "an array";
    case kObject: return "an object";
  }
  return "a value";
}

}  // namespace llm
