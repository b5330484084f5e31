#include "apps/llm/tokenizer/regex_compiler.h"

#include <utility>

#include "apps/llm/tokenizer/unicode.h"

namespace llm {
namespace {

struct Node {
  enum Kind { kLiteral, kClass, kAny, kConcat, kAlt, kRepeat, kLook } kind = kConcat;
  uint32_t cp = 0;
  bool fold = false;
  int32_t cls = -1;
  int min = 0, max = -1;  // kRepeat; max -1 is unbounded
  bool greedy = true;
  bool negative = false;  // kLook
  std::vector<Node> children;
};

constexpr int kMaxRepeat = 1000;

struct CategoryName {
  const char* name;
  uint32_t mask;
};

uint32_t bits(std::initializer_list<GeneralCategory> cats) {
  uint32_t mask = 0;
  for (GeneralCategory c : cats) mask |= category_bit(c);
  return mask;
}

// \p{..} names: the two-letter categories and their one-letter groups.
bool category_mask(const std::string& name, uint32_t* mask) {
  static const char* const kNames[] = {"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl",
                                       "No", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc",
                                       "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn"};
  for (int c = 0; c <= kCn; ++c) {
    if (name == kNames[c]) {
      *mask = category_bit(static_cast<GeneralCategory>(c));
      return true;
    }
  }
  if (name.size() != 1) return false;
  *mask = 0;
  for (int c = 0; c <= kCn; ++c) {
    if (kNames[c][0] == name[0]) *mask |= category_bit(static_cast<GeneralCategory>(c));
  }
  return *mask != 0;
}

}  // namespace

// Parses a pattern into a tree, then emits the backtracking program.
class RegexCompiler {
 public:
  RegexCompiler(Regex* regex, const std::string& pattern)
      : regex_(regex), pattern_(split_code_points(pattern).cps) {}

  bool compile(std::string* error) {
    Node root;
    bool fold = false;
    if (!parse_alternation(&root, &fold, 0)) {
      *error = error_;
      return false;
    }
    if (pos_ < pattern_.size()) return fail("unbalanced ')'", error);
    if (!emit(root)) {
      *error = error_;
      return false;
    }
    regex_->program_.push_back({Regex::kMatch, 0, 0, 0});
    return true;
  }

 private:
  bool fail(const std::string& what, std::string* error = nullptr) {
    error_ = what + " at character " + std::to_string(pos_);
    if (error != nullptr) *error = error_;
    return false;
  }
  bool at(uint32_t c) const { return pos_ < pattern_.size() && pattern_[pos_] == c; }
  bool at_seq(const char* s) const {
    for (size_t k = 0; s[k] != '\0'; ++k) {
      if (pos_ + k >= pattern_.size() || pattern_[pos_ + k] != static_cast<unsigned char>(s[k])) {
        return false;
      }
    }
    return true;
  }

  // alternation := concat ('|' concat)*; `fold` is the group's (?i) state, which an
  // inline (?i) changes for the rest of the group.
  bool parse_alternation(Node* out, bool* fold, int depth) {
    if (depth > 64) return fail("groups nested deeper than 64");
    out->kind = Node::kAlt;
    for (;;) {
      out->children.emplace_back();
      if (!parse_concat(&out->children.back(), fold, depth)) return false;
      if (!at('|')) break;
      ++pos_;
    }
    return true;
  }

  bool parse_concat(Node* out, bool* fold, int depth) {
    out->kind = Node::kConcat;
    while (pos_ < pattern_.size() && !at('|') && !at(')')) {
      if (at_seq("(?i)")) {
        pos_ += 4;
        *fold = true;
        continue;
      }
      Node atom;
      if (!parse_atom(&atom, *fold, depth)) return false;
      if (!parse_quantifier(&atom)) return false;
      out->children.push_back(std::move(atom));
    }
    return true;
  }

  bool parse_atom(Node* out, bool fold, int depth) {
    const uint32_t c = pattern_[pos_];
    if (c == '(') {
      ++pos_;
      bool group_fold = fold;
      Node* body = out;
      if (at_seq("?:")) {
        pos_ += 2;
      } else if (at_seq("?i:")) {
        pos_ += 3;
        group_fold = true;
      } else if (at_seq("?-i:")) {
        pos_ += 4;
        group_fold = false;
      } else if (at_seq("?=") || at_seq("?!")) {
        out->kind = Node::kLook;
        out->negative = pattern_[pos_ + 1] == '!';
        pos_ += 2;
        out->children.emplace_back();
        body = &out->children.back();
      } else if (at('?')) {
        return fail("unsupported group syntax '(?" +
                    std::string(1, static_cast<char>(pos_ + 1 < pattern_.size()
                                                         ? pattern_[pos_ + 1] : ' ')) + "'");
      }
      if (!parse_alternation(body, &group_fold, depth + 1)) return false;
      if (!at(')')) return fail("missing ')'");
      ++pos_;
      return true;
    }
    if (c == '[') return parse_class(out, fold);
    if (c == '.') {
      ++pos_;
      out->kind = Node::kAny;
      return true;
    }
    if (c == '^' || c == '$') return fail("anchors (^ $) are not supported");
    if (c == '*' || c == '+' || c == '?' || c == '{') return fail("nothing to repeat");
    if (c == '\\') {
      Regex::ClassItem item;
      uint32_t literal = 0;
      bool is_item = false;
      if (!parse_escape(&item, &is_item, &literal)) return false;
      if (is_item) {
        out->kind = Node::kClass;
        out->cls = add_class(false, fold, {item});
        return true;
      }
      out->kind = Node::kLiteral;
      out->cp = literal;
      out->fold = fold;
      return true;
    }
    ++pos_;
    out->kind = Node::kLiteral;
    out->cp = c;
    out->fold = fold;
    return true;
  }

  int32_t add_class(bool negated, bool fold, std::vector<Regex::ClassItem> items) {
    Regex::CharClass cls;
    cls.negated = negated;
    cls.fold = fold;
    cls.items = std::move(items);
    regex_->classes_.push_back(std::move(cls));
    return static_cast<int32_t>(regex_->classes_.size() - 1);
  }

  static Regex::ClassItem range(uint32_t lo, uint32_t hi) {
    return {Regex::ClassItem::kRange, false, lo, hi, 0};
  }

  bool parse_hex(size_t digits, uint32_t* out) {
    *out = 0;
    for (size_t k = 0; k < digits; ++k, ++pos_) {
      const uint32_t h = pos_ < pattern_.size() ? pattern_[pos_] : 0;
      const int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                  : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
      if (d < 0) return fail("bad hex digit in an escape");
      *out = *out * 16 + static_cast<uint32_t>(d);
    }
    return true;
  }

  // After a backslash: either a class item (\s \d \w \p{..} and negations) or a literal.
  bool parse_escape(Regex::ClassItem* item, bool* is_item, uint32_t* literal) {
    ++pos_;
    if (pos_ >= pattern_.size()) return fail("pattern ends with a backslash");
    const uint32_t e = pattern_[pos_++];
    *is_item = true;
    switch (e) {
      case 's': case 'S': *item = {Regex::ClassItem::kSpace, e == 'S', 0, 0, 0}; return true;
      case 'd': case 'D': *item = {Regex::ClassItem::kDigit, e == 'D', 0, 0, 0}; return true;
      case 'w': case 'W': *item = {Regex::ClassItem::kWord, e == 'W', 0, 0, 0}; return true;
      case 'p': case 'P': {
        std::string name;
        if (at('{')) {
          ++pos_;
          bool negated_inside = false;
          if (at('^')) {
            negated_inside = true;
            ++pos_;
          }
          while (pos_ < pattern_.size() && !at('}')) name.push_back(static_cast<char>(pattern_[pos_++]));
          if (!at('}')) return fail("missing '}' after \\p{");
          ++pos_;
          *item = {Regex::ClassItem::kCategories, (e == 'P') != negated_inside, 0, 0, 0};
        } else if (pos_ < pattern_.size()) {
          name.push_back(static_cast<char>(pattern_[pos_++]));
          *item = {Regex::ClassItem::kCategories, e == 'P', 0, 0, 0};
        }
        if (!category_mask(name, &item->mask)) {
          return fail("unsupported property \\p{" + name +
                      "} (general categories such as L, Lu, N, Nd, P, S, Z are supported)");
        }
        return true;
      }
      default:
        break;
    }
    *is_item = false;
    switch (e) {
      case 'r': *literal = '\r'; return true;
      case 'n': *literal = '\n'; return true;
      case 't': *literal = '\t'; return true;
      case 'f': *literal = '\f'; return true;
      case 'v': *literal = '\v'; return true;
      case 'a': *literal = 0x07; return true;
      case 'e': *literal = 0x1B; return true;
      case 'u': return parse_hex(4, literal);
      case 'x':
        if (at('{')) {
          ++pos_;
          size_t digits = 0;
          while (pos_ + digits < pattern_.size() && pattern_[pos_ + digits] != '}') ++digits;
          if (digits == 0 || digits > 6 || !parse_hex(digits, literal)) return fail("bad \\x{...}");
          ++pos_;
          return true;
        }
        return parse_hex(2, literal);
      default:
        break;
    }
    if ((e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9')) {
      --pos_;
      return fail(std::string("unsupported escape \\") + static_cast<char>(e));
    }
    *literal = e;  // escaped punctuation stands for itself
    return true;
  }

  bool parse_class(Node* out, bool fold) {
    ++pos_;
    bool negated = false;
    if (at('^')) {
      negated = true;
      ++pos_;
    }
    std::vector<Regex::ClassItem> items;
    bool first = true;
    while (pos_ < pattern_.size() && (first || !at(']'))) {
      first = false;
      if (at('[')) return fail("nested classes are not supported");
      if (at_seq("&&")) return fail("class intersection (&&) is not supported");
      uint32_t lo = 0;
      if (at('\\')) {
        Regex::ClassItem item;
        bool is_item = false;
        if (!parse_escape(&item, &is_item, &lo)) return false;
        if (is_item) {
          items.push_back(item);
          continue;
        }
      } else {
        lo = pattern_[pos_++];
      }
      uint32_t hi = lo;
      if (at('-') && pos_ + 1 < pattern_.size() && pattern_[pos_ + 1] != ']') {
        ++pos_;
        if (at('\\')) {
          Regex::ClassItem item;
          bool is_item = false;
          if (!parse_escape(&item, &is_item, &hi)) return false;
          if (is_item) return fail("a range cannot end in a class escape");
        } else {
          hi = pattern_[pos_++];
        }
        if (hi < lo) return fail("range out of order in a class");
      }
      items.push_back(range(lo, hi));
    }
    if (!at(']')) return fail("missing ']'");
    ++pos_;
    out->kind = Node::kClass;
    out->cls = add_class(negated, fold, std::move(items));
    return true;
  }

  bool parse_number(int* out) {
    size_t start = pos_;
    long value = 0;
    while (pos_ < pattern_.size() && pattern_[pos_] >= '0' && pattern_[pos_] <= '9') {
      value = value * 10 + (pattern_[pos_++] - '0');
      if (value > kMaxRepeat) return fail("repeat count above 1000");
    }
    *out = static_cast<int>(value);
    return pos_ > start;
  }

  bool parse_quantifier(Node* atom) {
    if (pos_ >= pattern_.size()) return true;
    int min = 0, max = -1;
    const uint32_t c = pattern_[pos_];
    if (c == '?') {
      max = 1;
      ++pos_;
    } else if (c == '*') {
      ++pos_;
    } else if (c == '+') {
      min = 1;
      ++pos_;
    } else if (c == '{') {
      ++pos_;
      if (!parse_number(&min)) return fail("expected a number after '{'");
      max = min;
      if (at(',')) {
        ++pos_;
        max = -1;
        if (!at('}') && !parse_number(&max)) return fail("expected a number or '}'");
      }
      if (!at('}')) return fail("missing '}' in a repeat");
      ++pos_;
      if (max >= 0 && max < min) return fail("repeat {m,n} with n < m");
    } else {
      return true;
    }
    bool greedy = true;
    if (at('?')) {
      greedy = false;
      ++pos_;
    } else if (at('+')) {
      return fail("possessive quantifiers are not supported");
    }
    if (at('?') || at('*') || at('+')) return fail("a quantifier cannot follow a quantifier");
    if (atom->kind == Node::kLook) return fail("a lookahead cannot be repeated");
    Node repeat;
    repeat.kind = Node::kRepeat;
    repeat.min = min;
    repeat.max = max;
    repeat.greedy = greedy;
    repeat.children.push_back(std::move(*atom));
    *atom = std::move(repeat);
    return true;
  }

  static bool nullable(const Node& n) {
    switch (n.kind) {
      case Node::kLiteral: case Node::kClass: case Node::kAny: return false;
      case Node::kLook: return true;
      case Node::kRepeat: return n.min == 0 || nullable(n.children[0]);
      case Node::kConcat:
        for (const Node& c : n.children) {
          if (!nullable(c)) return false;
        }
        return true;
      case Node::kAlt:
        for (const Node& c : n.children) {
          if (nullable(c)) return true;
        }
        return false;
    }
    return true;
  }

  int32_t here() const { return static_cast<int32_t>(regex_->program_.size()); }
  int32_t push(Regex::Op op, uint32_t arg = 0, int32_t x = 0, int32_t y = 0) {
    regex_->program_.push_back({op, arg, x, y});
    return here() - 1;
  }

  // An optional `body`: SPLIT body, skip (swapped when lazy).
  bool emit_optional(const Node& body, bool greedy) {
    const int32_t split = push(Regex::kSplit);
    if (!emit(body)) return false;
    auto& inst = regex_->program_[split];
    inst.x = greedy ? split + 1 : here();
    inst.y = greedy ? here() : split + 1;
    return true;
  }

  bool emit(const Node& n) {
    if (regex_->program_.size() > 100000) return fail("pattern too large");
    switch (n.kind) {
      case Node::kLiteral: {
        const uint32_t folded = fold_to_ascii(n.cp);
        if (n.fold && folded < 0x80 && ((folded >= 'a' && folded <= 'z'))) {
          push(Regex::kCharFold, folded);
        } else if (n.fold && in_categories(n.cp, bits({kLu, kLl, kLt}))) {
          return fail("case-insensitive matching of a non-ASCII letter is not supported");
        } else {
          push(Regex::kChar, n.cp);
        }
        return true;
      }
      case Node::kClass: push(Regex::kClass, static_cast<uint32_t>(n.cls)); return true;
      case Node::kAny: push(Regex::kAny); return true;
      case Node::kConcat:
        for (const Node& c : n.children) {
          if (!emit(c)) return false;
        }
        return true;
      case Node::kAlt: {
        if (n.children.size() == 1) return emit(n.children[0]);
        std::vector<int32_t> jumps;
        for (size_t i = 0; i < n.children.size(); ++i) {
          int32_t split = -1;
          if (i + 1 < n.children.size()) split = push(Regex::kSplit);
          if (split >= 0) regex_->program_[split].x = here();
          if (!emit(n.children[i])) return false;
          if (split >= 0) {
            jumps.push_back(push(Regex::kJmp));
            regex_->program_[split].y = here();
          }
        }
        for (int32_t j : jumps) regex_->program_[j].x = here();
        return true;
      }
      case Node::kLook: {
        const int32_t look = push(Regex::kLook, n.negative ? 1 : 0);
        if (!emit(n.children[0])) return false;
        push(Regex::kLookEnd);
        regex_->program_[look].x = here();
        return true;
      }
      case Node::kRepeat: {
        const Node& body = n.children[0];
        if (n.max < 0 && nullable(body)) {
          return fail("a repeated part that can match the empty string is not supported");
        }
        for (int k = 0; k < n.min; ++k) {
          if (!emit(body)) return false;
        }
        if (n.max < 0) {  // loop: SPLIT body, out; body; JMP split
          const int32_t split = push(Regex::kSplit);
          if (!emit(body)) return false;
          push(Regex::kJmp, 0, split);
          auto& inst = regex_->program_[split];
          inst.x = n.greedy ? split + 1 : here();
          inst.y = n.greedy ? here() : split + 1;
          return true;
        }
        for (int k = n.min; k < n.max; ++k) {
          if (!emit_optional(body, n.greedy)) return false;
        }
        return true;
      }
    }
    return false;
  }

  Regex* regex_;
  std::vector<uint32_t> pattern_;
  size_t pos_ = 0;
  std::string error_;
};

bool compile_regex(Regex* regex, const std::string& pattern, std::string* error) {
  RegexCompiler compiler(regex, pattern);
  return compiler.compile(error);
}

}  // namespace llm
