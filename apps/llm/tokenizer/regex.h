// The split regexes of tokenizer.json and tiktoken (GPT-2's, Llama 3's, Qwen2's, ...):
// a backtracking matcher over code points with Oniguruma's semantics for the subset they
// use. std::regex has no \p{...}, and the tokenizers must not link a regex library.
//
// Supported: literals and escapes (\r \n \t \f \v \xHH \x{H..} \uHHHH, escaped
// punctuation), `.`, classes [...] with ranges, negation, \p{L} \p{Lu} \p{N} ... (any
// general category or its one-letter group; \P{..} negated), \s \S \d \D \w \W;
// alternation; groups (...) (?:...) (?i:...) and (?i) to the end of the group;
// lookahead (?=...) (?!...); quantifiers ? * + {m} {m,} {m,n} and their lazy forms.
// Case-insensitive matching covers ASCII letters (and what case-folds to them, such as
// U+017F LONG S); anything else gives a compile error naming what is not supported.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <string>
#include <vector>

namespace llm {

class Regex final {
 public:
  /// Compiles `pattern` (UTF-8). Returns false with `error` saying what and where.
  bool compile(const std::string& pattern, std::string* error);

  /// The leftmost match starting at or after code point `from` of `text`: true with
  /// [*begin, *end) in code points, or false when there is none. The match may be empty.
  bool find(const std::vector<uint32_t>& text, size_t from, size_t* begin, size_t* end) const;

  const std::string& pattern() const { return pattern_; }

 private:
  friend class RegexCompiler;
  enum Op : uint8_t {
    kChar,       // arg: the code point
    kCharFold,   // arg: the ASCII letter, matched case-insensitively
    kClass,      // arg: index into classes_
    kAny,        // anything but \n
    kSplit,      // try x, then y
    kJmp,        // go to x
    kLook,       // lookahead: body at pc + 1 ending in kLookEnd, continue at x; arg 1 negates
    kLookEnd,
    kMatch,
  };
  struct Inst {
    Op op;
    uint32_t arg;
    int32_t x, y;
  };
  struct ClassItem {
    enum Kind : uint8_t { kRange, kCategories, kSpace, kDigit, kWord } kind;
    bool negated;  // \P{..}, \S, \D, \W
    uint32_t lo, hi;     // kRange
    uint32_t mask;       // kCategories: category bits
  };
  struct CharClass {
    bool negated = false;
    bool fold = false;  // under (?i)
    std::vector<ClassItem> items;
  };

  bool class_matches(const CharClass& c, uint32_t cp) const;
  // The end of a match of the program from `pc` at `pos`, or -1.
  long run(int32_t pc, size_t pos, const std::vector<uint32_t>& text) const;

  std::string pattern_;
  std::vector<Inst> program_;
  std::vector<CharClass> classes_;
};

}  // namespace llm
