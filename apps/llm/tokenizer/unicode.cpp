#include "apps/llm/tokenizer/unicode.h"

#include <algorithm>

#include "apps/llm/tokenizer/unicode_tables.h"

namespace llm {
namespace {

// Hangul syllables are composed and decomposed by arithmetic (Unicode 3.12), not tables.
constexpr uint32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr uint32_t kLCount = 19, kVCount = 21, kTCount = 28, kNCount = kVCount * kTCount,
                   kSCount = kLCount * kNCount;

uint8_t combining_class(uint32_t cp) {
  const auto* begin = tables::kCombiningClasses;
  const auto* end = begin + tables::kCombiningClassCount;
  const auto* it = std::lower_bound(begin, end, cp, [](const tables::CodePointPair& p,
                                                       uint32_t v) { return p.code_point < v; });
  return it != end && it->code_point == cp ? static_cast<uint8_t>(it->value) : 0;
}

void decompose(uint32_t cp, std::vector<uint32_t>* out) {
  if (cp >= kSBase && cp < kSBase + kSCount) {
    const uint32_t s = cp - kSBase;
    out->push_back(kLBase + s / kNCount);
    out->push_back(kVBase + (s % kNCount) / kTCount);
    if (s % kTCount != 0) out->push_back(kTBase + s % kTCount);
    return;
  }
  const auto* begin = tables::kDecompositions;
  const auto* end = begin + tables::kDecompositionCount;
  const auto* it = std::lower_bound(begin, end, cp, [](const tables::Decomposition& d,
                                                       uint32_t v) { return d.code_point < v; });
  if (it == end || it->code_point != cp) {
    out->push_back(cp);
    return;
  }
  decompose(it->first, out);  // mappings nest (U+1E14 -> U+0112 U+0300 -> E U+0304 U+0300)
  if (it->second != 0) decompose(it->second, out);
}

// The primary composite of (first, second), or 0.
uint32_t compose(uint32_t first, uint32_t second) {
  if (first >= kLBase && first < kLBase + kLCount && second >= kVBase &&
      second < kVBase + kVCount) {
    return kSBase + ((first - kLBase) * kVCount + (second - kVBase)) * kTCount;
  }
  if (first >= kSBase && first < kSBase + kSCount && (first - kSBase) % kTCount == 0 &&
      second > kTBase && second < kTBase + kTCount) {
    return first + (second - kTBase);
  }
  const auto* begin = tables::kCompositions;
  const auto* end = begin + tables::kCompositionCount;
  const auto* it = std::lower_bound(begin, end, std::make_pair(first, second),
                                    [](const tables::Composition& c,
                                       const std::pair<uint32_t, uint32_t>& v) {
                                      return c.first < v.first ||
                                             (c.first == v.first && c.second < v.second);
                                    });
  return it != end && it->first == first && it->second == second ? it->composite : 0;
}

// Length of the well-formed sequence at text[pos] (1..4), or of its maximal invalid
// prefix negated (so a caller can tell the two apart and still skip the right bytes).
int sequence_length(const std::string& text, size_t pos) {
  const unsigned char c = static_cast<unsigned char>(text[pos]);
  if (c < 0x80) return 1;
  int need = 0;
  unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    need = 1;
  } else if (c >= 0xE0 && c <= 0xEF) {
    need = 2;
    if (c == 0xE0) low = 0xA0;
    if (c == 0xED) high = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 3;
    if (c == 0xF0) low = 0x90;
    if (c == 0xF4) high = 0x8F;
  } else {
    return -1;
  }
  for (int k = 1; k <= need; ++k) {
    if (pos + k >= text.size()) return -k;
    const unsigned char b = static_cast<unsigned char>(text[pos + k]);
    const bool ok = k == 1 ? (b >= low && b <= high) : (b >= 0x80 && b <= 0xBF);
    if (!ok) return -k;
  }
  return need + 1;
}

}  // namespace

GeneralCategory general_category(uint32_t cp) {
  const auto* begin = tables::kCategoryRuns;
  const auto* end = begin + tables::kCategoryRunCount;
  const auto* it = std::upper_bound(begin, end, cp, [](uint32_t v, const tables::CategoryRun& r) {
    return v < r.first;
  });
  if (it == begin) return kCn;
  --it;
  return cp <= it->last ? static_cast<GeneralCategory>(it->category) : kCn;
}

bool is_regex_space(uint32_t cp) {
  if ((cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85) return true;
  if (cp < 0x80) return false;
  return in_categories(cp, category_bit(kZs) | category_bit(kZl) | category_bit(kZp));
}

bool is_word_character(uint32_t cp) {
  return in_categories(cp, kLetterMask | kMarkMask | category_bit(kNd) | category_bit(kPc));
}

uint32_t fold_to_ascii(uint32_t cp) {
  if (cp >= 'A' && cp <= 'Z') return cp + ('a' - 'A');
  if (cp < 0x80) return cp;
  for (size_t i = 0; i < tables::kAsciiFoldCount; ++i) {
    if (tables::kAsciiFolds[i].code_point == cp) return tables::kAsciiFolds[i].value;
  }
  return cp;
}

uint32_t decode_utf8(const std::string& text, size_t pos, size_t* length) {
  const int n = sequence_length(text, pos);
  if (n < 0) {
    *length = static_cast<size_t>(-n);
    return kReplacementCharacter;
  }
  *length = static_cast<size_t>(n);
  const unsigned char c = static_cast<unsigned char>(text[pos]);
  if (n == 1) return c;
  uint32_t cp = c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
  for (int k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(text[pos + k]) & 0x3F);
  return cp;
}

size_t well_formed_length(const std::string& text, size_t pos) {
  const int n = sequence_length(text, pos);
  return n > 0 ? static_cast<size_t>(n) : 0;
}

void append_utf8(uint32_t cp, std::string* out) {
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

std::string utf8_lossy(const std::string& bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (size_t pos = 0; pos < bytes.size();) {
    const int n = sequence_length(bytes, pos);
    if (n > 0) {
      out.append(bytes, pos, n);
      pos += n;
    } else {
      append_utf8(kReplacementCharacter, &out);
      pos += -n;
    }
  }
  return out;
}

bool is_valid_utf8(const std::string& bytes) {
  for (size_t pos = 0; pos < bytes.size();) {
    const int n = sequence_length(bytes, pos);
    if (n < 0) return false;
    pos += n;
  }
  return true;
}

std::string nfc(const std::string& text) {
  // Below U+0300 nothing decomposes into something that recomposes differently.
  bool simple = true;
  for (unsigned char c : text) simple = simple && c < 0xCC;
  if (simple) return text;
  std::vector<uint32_t> cps;
  for (size_t pos = 0; pos < text.size();) {
    size_t length = 0;
    decompose(decode_utf8(text, pos, &length), &cps);
    pos += length;
  }
  // Canonical order: each run of non-starters sorted (stably) by combining class.
  for (size_t i = 0; i < cps.size();) {
    if (combining_class(cps[i]) == 0) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < cps.size() && combining_class(cps[j]) != 0) ++j;
    std::stable_sort(cps.begin() + i, cps.begin() + j, [](uint32_t a, uint32_t b) {
      return combining_class(a) < combining_class(b);
    });
    i = j;
  }
  // Compose each character with the last starter unless a mark of the same or a higher
  // class stands between them (blocked).
  if (!cps.empty()) {
    size_t starter = 0, kept = 1;
    int last_class = combining_class(cps[0]) == 0 ? 0 : 256;
    for (size_t i = 1; i < cps.size(); ++i) {
      const uint32_t c = cps[i];
      const int cls = combining_class(c);
      const uint32_t composite = compose(cps[starter], c);
      if (composite != 0 && (last_class < cls || last_class == 0)) {
        cps[starter] = composite;
        continue;
      }
      if (cls == 0) starter = kept;
      last_class = cls;
      cps[kept++] = c;
    }
    cps.resize(kept);
  }
  std::string out;
  out.reserve(text.size());
  for (uint32_t cp : cps) append_utf8(cp, &out);
  return out;
}

CodePoints split_code_points(const std::string& text) {
  CodePoints result;
  result.cps.reserve(text.size());
  result.offsets.reserve(text.size() + 1);
  for (size_t pos = 0; pos < text.size();) {
    size_t length = 0;
    result.offsets.push_back(pos);
    result.cps.push_back(decode_utf8(text, pos, &length));
    pos += length;
  }
  result.offsets.push_back(text.size());
  return result;
}

}  // namespace llm
