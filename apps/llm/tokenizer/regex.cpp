#include "apps/llm/tokenizer/regex.h"

#include "apps/llm/tokenizer/regex_compiler.h"
#include "apps/llm/tokenizer/unicode.h"

namespace llm {

bool Regex::compile(const std::string& pattern, std::string* error) {
  pattern_ = pattern;
  program_.clear();
  classes_.clear();
  return compile_regex(this, pattern, error);
}

bool Regex::class_matches(const CharClass& c, uint32_t cp) const {
  bool hit = false;
  for (const ClassItem& item : c.items) {
    bool m = false;
    switch (item.kind) {
      case ClassItem::kRange: {
        m = cp >= item.lo && cp <= item.hi;
        if (!m && c.fold) {  // (?i): try the other case of an ASCII letter
          const uint32_t lower = fold_to_ascii(cp);
          if (lower >= 'a' && lower <= 'z') {
            m = (lower >= item.lo && lower <= item.hi) ||
                (lower - 32 >= item.lo && lower - 32 <= item.hi);
          }
        }
        break;
      }
      case ClassItem::kCategories: m = in_categories(cp, item.mask); break;
      case ClassItem::kSpace: m = is_regex_space(cp); break;
      case ClassItem::kDigit: m = general_category(cp) == kNd; break;
      case ClassItem::kWord: m = is_word_character(cp); break;
    }
    if (m != item.negated) {
      hit = true;
      break;
    }
  }
  return hit != c.negated;
}

long Regex::run(int32_t pc, size_t pos, const std::vector<uint32_t>& text) const {
  std::vector<std::pair<int32_t, size_t>> backtrack;
  const size_t n = text.size();
  for (;;) {
    const Inst& in = program_[pc];
    bool ok = true;
    switch (in.op) {
      case kChar: ok = pos < n && text[pos] == in.arg; break;
      case kCharFold: ok = pos < n && fold_to_ascii(text[pos]) == in.arg; break;
      case kClass: ok = pos < n && class_matches(classes_[in.arg], text[pos]); break;
      case kAny: ok = pos < n && text[pos] != '\n'; break;
      case kSplit:
        backtrack.emplace_back(in.y, pos);
        pc = in.x;
        continue;
      case kJmp:
        pc = in.x;
        continue;
      case kLook: {
        // Atomic, as in Oniguruma: the body's own choices are not revisited.
        const bool matched = run(pc + 1, pos, text) >= 0;
        ok = matched == (in.arg == 0);
        if (ok) {
          pc = in.x;
          continue;
        }
        break;
      }
      case kLookEnd:
      case kMatch:
        return static_cast<long>(pos);
    }
    if (ok) {  // a character was consumed
      ++pos;
      ++pc;
      continue;
    }
    if (backtrack.empty()) return -1;
    pc = backtrack.back().first;
    pos = backtrack.back().second;
    backtrack.pop_back();
  }
}

bool Regex::find(const std::vector<uint32_t>& text, size_t from, size_t* begin,
                 size_t* end) const {
  for (size_t start = from; start <= text.size(); ++start) {
    const long stop = run(0, start, text);
    if (stop >= 0) {
      *begin = start;
      *end = static_cast<size_t>(stop);
      return true;
    }
  }
  return false;
}

}  // namespace llm
