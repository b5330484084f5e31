#include "apps/llm/tokenizer/normalizer.h"

#include "apps/llm/tokenizer/json_fields.h"
#include "apps/llm/tokenizer/unicode.h"

namespace llm {

Status Normalizer::parse(const Json& json, const std::string& where) {
  std::string type, here;
  Status s = component_type(json, where, &type, &here);
  if (!s.is_ok()) return s;
  if (type == "Sequence") {
    kind_ = kSequence;
    return parse_each(json, "normalizers", where, &children_);
  }
  if (type == "Prepend") {
    kind_ = kPrepend;
    return string_field(json, "prepend", here, &content_);
  }
  if (type == "Replace") {
    kind_ = kReplace;
    return pattern_.parse_replace(json, here, &content_);
  }
  if (type == "NFC") {
    kind_ = kNfc;
    return Status::ok();
  }
  if (type == "Strip") {
    kind_ = kStrip;
    s = bool_field(json, "strip_left", here, &strip_left_, false);
    if (s.is_ok()) s = bool_field(json, "strip_right", here, &strip_right_, false);
    return s;
  }
  return Status::error(where + ": normalizer type \"" + type +
                       "\" is not supported (supported: Sequence, Prepend, Replace, NFC, Strip)");
}

std::string Normalizer::normalize(const std::string& text) const {
  switch (kind_) {
    case kSequence: {
      std::string out = text;
      for (const Normalizer& n : children_) out = n.normalize(out);
      return out;
    }
    case kPrepend:
      return text.empty() ? text : content_ + text;  // as tokenizers: never on empty text
    case kReplace:
      return pattern_.replace_all(text, content_);
    case kNfc:
      return nfc(text);
    case kStrip: {
      const CodePoints cps = split_code_points(text);
      size_t begin = 0, end = cps.cps.size();
      while (strip_left_ && begin < end && is_regex_space(cps.cps[begin])) ++begin;
      while (strip_right_ && end > begin && is_regex_space(cps.cps[end - 1])) --end;
      return text.substr(cps.offsets[begin], cps.offsets[end] - cps.offsets[begin]);
    }
  }
  return text;
}

}  // namespace llm
