// Code points: UTF-8 decoding and encoding, general categories, the character classes of
// the split regexes, and NFC. Everything reads the generated tables (unicode_tables.h).
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <string>
#include <vector>

namespace llm {

// The order of gen_unicode_tables.py's CATEGORIES; kCn (unassigned) is last.
enum GeneralCategory : uint8_t {
  kLu, kLl, kLt, kLm, kLo, kMn, kMc, kMe, kNd, kNl, kNo,
  kPc, kPd, kPs, kPe, kPi, kPf, kPo, kSm, kSc, kSk, kSo,
  kZs, kZl, kZp, kCc, kCf, kCs, kCo, kCn,
};
constexpr uint32_t category_bit(GeneralCategory c) { return 1u << c; }
constexpr uint32_t kLetterMask = category_bit(kLu) | category_bit(kLl) | category_bit(kLt) |
                                 category_bit(kLm) | category_bit(kLo);
constexpr uint32_t kMarkMask = category_bit(kMn) | category_bit(kMc) | category_bit(kMe);
constexpr uint32_t kNumberMask = category_bit(kNd) | category_bit(kNl) | category_bit(kNo);

constexpr uint32_t kReplacementCharacter = 0xFFFD;

GeneralCategory general_category(uint32_t cp);
inline bool in_categories(uint32_t cp, uint32_t mask) {
  return (mask & category_bit(general_category(cp))) != 0;
}
/// Oniguruma's \s: U+0009..U+000D, U+0085 and the separators (Zs, Zl, Zp).
bool is_regex_space(uint32_t cp);
/// \w of the regexes: letters, marks, decimal digits, connector punctuation.
bool is_word_character(uint32_t cp);
/// The ASCII letter `cp` case-folds to (A -> a, U+212A KELVIN SIGN -> k), else `cp`.
uint32_t fold_to_ascii(uint32_t cp);

/// The code point at text[pos] and its length in bytes. A malformed sequence reads as
/// one byte standing for U+FFFD, so byte-level tokenizers still see every byte.
uint32_t decode_utf8(const std::string& text, size_t pos, size_t* length);
/// The length of the well-formed UTF-8 sequence at text[pos], 0 when it is malformed.
size_t well_formed_length(const std::string& text, size_t pos);
void append_utf8(uint32_t cp, std::string* out);
/// `bytes` with every malformed sequence replaced by U+FFFD, as Rust's
/// String::from_utf8_lossy does (one U+FFFD per maximal invalid prefix).
std::string utf8_lossy(const std::string& bytes);
/// True when `bytes` is well-formed UTF-8.
bool is_valid_utf8(const std::string& bytes);

/// Unicode Normalization Form C of UTF-8 text.
std::string nfc(const std::string& text);

/// The code points of `text` and where each starts (one more entry: text.size()).
struct CodePoints {
  std::vector<uint32_t> cps;
  std::vector<size_t> offsets;
};
CodePoints split_code_points(const std::string& text);

}  // namespace llm
