#include "apps/llm/tokenizer/precompiled_charsmap.h"

namespace llm {
namespace {

uint32_t read_le32(const std::string& bytes, size_t pos) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    v |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[pos + i])) << (8 * i);
  }
  return v;
}

// The fields of a darts-clone unit.
bool has_leaf(uint32_t unit) { return ((unit >> 8) & 1) != 0; }
uint32_t value_of(uint32_t unit) { return unit & 0x7FFFFFFFu; }
uint32_t label_of(uint32_t unit) { return unit & 0x800000FFu; }  // leaves have the top bit set
uint32_t offset_of(uint32_t unit) { return (unit >> 10) << ((unit & (1u << 9)) >> 6); }

// sentencepiece keeps the first 32 prefix matches of a position (kMaxTrieResultsSize).
constexpr int kMaxMatches = 32;

}  // namespace

Status PrecompiledCharsmap::load(const std::string& blob, const std::string& where) {
  units_.clear();
  strings_.clear();
  if (blob.empty()) return Status::ok();
  if (blob.size() <= 4) return Status::error(where + ": precompiled_charsmap is truncated");
  const uint32_t trie_size = read_le32(blob, 0);
  if (trie_size > blob.size() - 4 || trie_size % 4 != 0 || trie_size == 0) {
    return Status::error(where + ": precompiled_charsmap's trie size " + std::to_string(trie_size) +
                         " does not fit its " + std::to_string(blob.size()) + " bytes");
  }
  units_.resize(trie_size / 4);
  for (size_t i = 0; i < units_.size(); ++i) units_[i] = read_le32(blob, 4 + 4 * i);
  strings_ = blob.substr(4 + trie_size);
  return Status::ok();
}

size_t PrecompiledCharsmap::longest_match(const std::string& text, size_t pos,
                                          std::string* replacement) const {
  if (units_.empty()) return 0;
  size_t longest = 0;
  uint32_t longest_value = 0;
  int matches = 0;
  size_t node = offset_of(units_[0]);
  for (size_t i = pos; i < text.size() && matches < kMaxMatches; ++i) {
    const uint8_t byte = static_cast<uint8_t>(text[i]);
    node ^= byte;
    if (node >= units_.size()) break;
    const uint32_t unit = units_[node];
    if (label_of(unit) != byte) break;
    node ^= offset_of(unit);
    if (node >= units_.size()) break;
    if (has_leaf(unit)) {  // the leaf below `unit` holds the value
      ++matches;
      longest = i + 1 - pos;
      longest_value = value_of(units_[node]);
    }
  }
  if (longest == 0) return 0;
  if (longest_value >= strings_.size()) return 0;  // a damaged leaf: no rule
  const size_t end = strings_.find('\0', longest_value);
  replacement->assign(strings_, longest_value,
                      (end == std::string::npos ? strings_.size() : end) - longest_value);
  return longest;
}

}  // namespace llm
