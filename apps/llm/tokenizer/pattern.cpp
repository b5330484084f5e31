#include "apps/llm/tokenizer/pattern.h"

#include "apps/llm/tokenizer/json_fields.h"
#include "apps/llm/tokenizer/unicode.h"

namespace llm {

Status Pattern::compile(const std::string& pattern, bool is_regex, const std::string& where) {
  is_regex_ = is_regex;
  literal_ = pattern;
  if (!is_regex) {
    if (pattern.empty()) return Status::error(where + ": an empty string pattern");
    return Status::ok();
  }
  std::string error;
  if (!regex_.compile(pattern, &error)) {
    return Status::error(where + ": regex " + pattern + ": " + error);
  }
  return Status::ok();
}

Status Pattern::parse_replace(const Json& json, const std::string& where, std::string* content) {
  std::string pattern;
  bool is_regex = false;
  Status s = pattern_field(json, "pattern", where, &pattern, &is_regex);
  if (s.is_ok()) s = compile(pattern, is_regex, where);
  if (s.is_ok()) s = string_field(json, "content", where, content);
  return s;
}

std::vector<Span> Pattern::spans(const std::string& text) const {
  std::vector<Span> out;
  size_t previous = 0;
  auto add_match = [&](size_t begin, size_t end) {
    if (begin > previous) out.push_back({previous, begin, false});
    out.push_back({begin, end, true});
    previous = end;
  };
  if (!is_regex_) {
    for (size_t at = text.find(literal_); at != std::string::npos;
         at = text.find(literal_, at + literal_.size())) {
      add_match(at, at + literal_.size());
    }
  } else {
    const CodePoints cps = split_code_points(text);
    size_t from = 0, begin = 0, end = 0;
    while (from <= cps.cps.size() && regex_.find(cps.cps, from, &begin, &end)) {
      add_match(cps.offsets[begin], cps.offsets[end]);
      from = end > begin ? end : end + 1;  // step over an empty match
    }
  }
  if (previous < text.size()) out.push_back({previous, text.size(), false});
  return out;
}

std::string Pattern::replace_all(const std::string& text, const std::string& content) const {
  std::string out;
  for (const Span& s : spans(text)) {
    if (s.match) {
      out += content;
    } else {
      out.append(text, s.begin, s.end - s.begin);
    }
  }
  return out;
}

}  // namespace llm
