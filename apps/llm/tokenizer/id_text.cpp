#include "apps/llm/tokenizer/id_text.h"

#include <algorithm>

namespace llm {

bool parse_ids(const std::string& text, std::vector<int32_t>* ids, std::string* bad) {
  const char* separators = " ,\t\r\n";
  for (size_t i = text.find_first_not_of(separators); i != std::string::npos;
       i = text.find_first_not_of(separators, i)) {
    const size_t end = std::min(text.find_first_of(separators, i), text.size());
    const std::string word = text.substr(i, end - i);
    int64_t value = 0;
    bool digits = !word.empty() && word.size() <= 10;
    for (char c : word) {
      digits = digits && c >= '0' && c <= '9';
      value = value * 10 + (c - '0');
    }
    if (!digits || value > INT32_MAX) {
      *bad = word;
      return false;
    }
    ids->push_back(static_cast<int32_t>(value));
    i = end;
  }
  return true;
}

std::string format_ids(const std::vector<int32_t>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size(); ++i) out += (i ? " " : "") + std::to_string(ids[i]);
  return out;
}

}  // namespace llm
