#include "apps/llm/tokenizer/decoder.h"

#include "apps/llm/tokenizer/byte_alphabet.h"
#include "apps/llm/tokenizer/json_fields.h"
#include "apps/llm/tokenizer/unicode.h"

namespace llm {

int fallback_byte(const std::string& token) {
  if (token.size() != 6 || token.compare(0, 3, "<0x") != 0 || token[5] != '>') return -1;
  int value = 0;
  for (int k = 3; k < 5; ++k) {
    const char h = token[k];
    const int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
    if (d < 0) return -1;
    value = value * 16 + d;
  }
  return value;
}

bool Decoder::has_byte_fallback() const {
  if (kind_ == kByteFallback) return true;
  for (const Decoder& child : children_) {
    if (child.has_byte_fallback()) return true;
  }
  return false;
}

Status Decoder::parse(const Json& json, const std::string& where) {
  std::string type, here;
  Status s = component_type(json, where, &type, &here);
  if (!s.is_ok()) return s;
  if (type == "Sequence") {
    kind_ = kSequence;
    return parse_each(json, "decoders", where, &children_);
  }
  if (type == "ByteLevel") {
    kind_ = kByteLevel;
    return Status::ok();
  }
  if (type == "Replace") {
    kind_ = kReplace;
    return pattern_.parse_replace(json, here, &content_);
  }
  if (type == "ByteFallback") {
    kind_ = kByteFallback;
    return Status::ok();
  }
  if (type == "Fuse") {
    kind_ = kFuse;
    return Status::ok();
  }
  if (type == "Strip") {
    kind_ = kStrip;
    s = string_field(json, "content", here, &content_);
    if (s.is_ok()) s = int_field(json, "start", here, &start_, 0);
    if (s.is_ok()) s = int_field(json, "stop", here, &stop_, 0);
    return s;
  }
  if (type == "Metaspace") {
    kind_ = kMetaspace;
    std::string scheme;
    bool legacy_prefix = true;
    s = string_field(json, "replacement", here, &content_);
    if (s.is_ok()) s = bool_field(json, "add_prefix_space", here, &legacy_prefix, true);
    if (s.is_ok()) s = string_field(json, "prepend_scheme", here, &scheme, false, "");
    prepend_ = scheme.empty() ? legacy_prefix : scheme != "never";
    return s;
  }
  return Status::error(where + ": decoder type \"" + type +
                       "\" is not supported (supported: Sequence, ByteLevel, Replace, "
                       "ByteFallback, Fuse, Strip, Metaspace)");
}

void Decoder::decode_chain(std::vector<std::string>* tokens) const {
  switch (kind_) {
    case kSequence:
      for (const Decoder& d : children_) d.decode_chain(tokens);
      return;
    case kByteLevel: {
      // Tokens outside the alphabet (added tokens) count as their own bytes.
      std::string bytes, token_bytes;
      for (const std::string& t : *tokens) {
        bytes += alphabet_to_bytes(t, &token_bytes) ? token_bytes : t;
      }
      tokens->assign(1, utf8_lossy(bytes));
      return;
    }
    case kReplace:
      for (std::string& t : *tokens) t = pattern_.replace_all(t, content_);
      return;
    case kByteFallback: {
      // Runs of <0xNN> become their bytes when those are valid UTF-8, else one U+FFFD each.
      std::vector<std::string> out;
      std::string run;
      size_t run_tokens = 0;
      auto flush = [&]() {
        if (run_tokens == 0) return;
        if (is_valid_utf8(run)) {
          out.push_back(run);
        } else {
          std::string replacement;
          append_utf8(kReplacementCharacter, &replacement);
          for (size_t k = 0; k < run_tokens; ++k) out.push_back(replacement);
        }
        run.clear();
        run_tokens = 0;
      };
      for (std::string& t : *tokens) {
        const int b = fallback_byte(t);
        if (b >= 0) {
          run.push_back(static_cast<char>(b));
          ++run_tokens;
        } else {
          flush();
          out.push_back(std::move(t));
        }
      }
      flush();
      tokens->swap(out);
      return;
    }
    case kFuse: {
      std::string all;
      for (const std::string& t : *tokens) all += t;
      tokens->assign(1, all);
      return;
    }
    case kStrip:
      for (std::string& t : *tokens) {
        // Up to start_ leading and stop_ trailing copies of the character.
        size_t begin = 0, end = t.size();
        for (int64_t k = 0; k < start_ && t.compare(begin, content_.size(), content_) == 0 &&
                            begin < end; ++k) {
          begin += content_.size();
        }
        for (int64_t k = 0; k < stop_ && end >= begin + content_.size() &&
                            t.compare(end - content_.size(), content_.size(), content_) == 0; ++k) {
          end -= content_.size();
        }
        t = t.substr(begin, end - begin);
      }
      return;
    case kMetaspace:
      // The replacement becomes a space, except in the first token (its prefix).
      for (size_t i = 0; i < tokens->size(); ++i) {
        std::string& t = (*tokens)[i];
        std::string out;
        for (size_t pos = 0; pos < t.size();) {
          if (!content_.empty() && t.compare(pos, content_.size(), content_) == 0) {
            if (!(i == 0 && prepend_)) out.push_back(' ');
            pos += content_.size();
          } else {
            out.push_back(t[pos++]);
          }
        }
        t = std::move(out);
      }
      return;
  }
}

}  // namespace llm
