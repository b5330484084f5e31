#include "apps/llm/tokenizer/pre_tokenizer.h"

#include <utility>

#include "apps/llm/tokenizer/byte_alphabet.h"
#include "apps/llm/tokenizer/json_fields.h"
#include "apps/llm/tokenizer/unicode.h"

namespace llm {
namespace {

// GPT-2's split regex, which tokenizers' ByteLevel applies when use_regex is true.
const char kGpt2Pattern[] =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

bool parse_behavior(const std::string& name, SplitBehavior* out) {
  static const std::pair<const char*, SplitBehavior> kNames[] = {
      {"Removed", SplitBehavior::kRemoved},
      {"Isolated", SplitBehavior::kIsolated},
      {"MergedWithPrevious", SplitBehavior::kMergedWithPrevious},
      {"MergedWithNext", SplitBehavior::kMergedWithNext},
      {"Contiguous", SplitBehavior::kContiguous}};
  for (const auto& [n, b] : kNames) {
    if (name == n) {
      *out = b;
      return true;
    }
  }
  return false;
}

}  // namespace

Status PreTokenizer::make_split(const std::string& regex, const std::string& where) {
  kind_ = kSplit;
  behavior_ = SplitBehavior::kIsolated;
  return pattern_.compile(regex, true, where);
}

Status PreTokenizer::parse(const Json& json, const std::string& where) {
  std::string type, here;
  Status s = component_type(json, where, &type, &here);
  if (!s.is_ok()) return s;
  if (type == "Sequence") {
    kind_ = kSequence;
    return parse_each(json, "pretokenizers", where, &children_);
  }
  if (type == "ByteLevel") {
    kind_ = kByteLevel;
    s = bool_field(json, "add_prefix_space", here, &add_prefix_space_, true);
    if (s.is_ok()) s = bool_field(json, "use_regex", here, &use_pattern_, true);
    if (s.is_ok() && use_pattern_) s = pattern_.compile(kGpt2Pattern, true, here);
    return s;
  }
  if (type == "Split") {
    kind_ = kSplit;
    std::string pattern, behavior;
    bool is_regex = false;
    s = pattern_field(json, "pattern", here, &pattern, &is_regex);
    if (s.is_ok()) s = pattern_.compile(pattern, is_regex, here);
    if (s.is_ok()) s = bool_field(json, "invert", here, &invert_, false);
    if (s.is_ok()) s = string_field(json, "behavior", here, &behavior);
    if (s.is_ok() && !parse_behavior(behavior, &behavior_)) {
      return Status::error(here + ": unknown behavior \"" + behavior +
                           "\" (Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous)");
    }
    return s;
  }
  if (type == "Metaspace") {
    kind_ = kMetaspace;
    std::string scheme;
    bool legacy_prefix = true;
    s = string_field(json, "replacement", here, &replacement_);
    if (s.is_ok()) s = bool_field(json, "split", here, &split_, true);
    if (s.is_ok()) s = bool_field(json, "add_prefix_space", here, &legacy_prefix, true);
    if (s.is_ok()) s = string_field(json, "prepend_scheme", here, &scheme, false, "");
    if (!s.is_ok()) return s;
    if (scheme.empty()) {
      prepend_ = legacy_prefix ? kAlways : kNever;  // files older than prepend_scheme
    } else if (scheme == "always" || scheme == "first" || scheme == "never") {
      prepend_ = scheme == "always" ? kAlways : scheme == "first" ? kFirst : kNever;
    } else {
      return Status::error(here + ": prepend_scheme \"" + scheme +
                           "\" is not one of always, first, never");
    }
    if (split_ && !replacement_.empty()) s = pattern_.compile(replacement_, false, here);
    return s;
  }
  if (type == "Digits") {
    kind_ = kDigits;
    return bool_field(json, "individual_digits", here, &individual_digits_, false);
  }
  return Status::error(where + ": pre-tokenizer type \"" + type +
                       "\" is not supported (supported: Sequence, ByteLevel, Split, Metaspace, "
                       "Digits)");
}

void PreTokenizer::apply_one(const Piece& piece, std::vector<Piece>* out) const {
  switch (kind_) {
    case kSequence:
      break;  // handled by apply
    case kByteLevel: {
      Piece p = piece;
      // tokenizers never prepends to empty text.
      if (add_prefix_space_ && !p.text.empty() && p.text[0] != ' ') p.text.insert(0, 1, ' ');
      std::vector<Piece> parts;
      if (use_pattern_) {
        split_piece(p, pattern_.spans(p.text), SplitBehavior::kIsolated, &parts);
      } else {
        parts.push_back(p);
      }
      for (Piece& part : parts) {
        part.text = bytes_to_alphabet(part.text);
        out->push_back(std::move(part));
      }
      return;
    }
    case kSplit: {
      std::vector<Span> spans = pattern_.spans(piece.text);
      if (invert_) {
        for (Span& s : spans) s.match = !s.match;
      }
      split_piece(piece, std::move(spans), behavior_, out);
      return;
    }
    case kMetaspace: {
      Piece p = piece;
      std::string replaced;
      for (char c : p.text) {
        if (c == ' ') {
          replaced += replacement_;
        } else {
          replaced.push_back(c);
        }
      }
      p.text = std::move(replaced);
      const bool starts = p.text.compare(0, replacement_.size(), replacement_) == 0;
      if (!starts && !p.text.empty() &&
          (prepend_ == kAlways || (prepend_ == kFirst && p.at_start))) {
        p.text.insert(0, replacement_);
      }
      if (split_ && !replacement_.empty()) {
        split_piece(p, pattern_.spans(p.text), SplitBehavior::kMergedWithNext, out);
      } else {
        out->push_back(std::move(p));
      }
      return;
    }
    case kDigits: {
      // Every numeric character (Rust's char::is_numeric: Nd, Nl, No) is a match.
      std::vector<Span> spans;
      const CodePoints cps = split_code_points(piece.text);
      for (size_t i = 0; i < cps.cps.size(); ++i) {
        const bool digit = in_categories(cps.cps[i], kNumberMask);
        if (!digit && !spans.empty() && !spans.back().match) {
          spans.back().end = cps.offsets[i + 1];
        } else {
          spans.push_back({cps.offsets[i], cps.offsets[i + 1], digit});
        }
      }
      split_piece(piece, std::move(spans),
                  individual_digits_ ? SplitBehavior::kIsolated : SplitBehavior::kContiguous, out);
      return;
    }
  }
}

void PreTokenizer::apply(std::vector<Piece>* pieces) const {
  if (kind_ == kSequence) {
    for (const PreTokenizer& child : children_) child.apply(pieces);
    return;
  }
  std::vector<Piece> out;
  out.reserve(pieces->size());
  for (const Piece& piece : *pieces) {
    if (piece.id >= 0) {
      out.push_back(piece);
    } else {
      apply_one(piece, &out);
    }
  }
  pieces->swap(out);
}

}  // namespace llm
