// A byte trie of strings with an id each: every key that starts text at a position,
// shortest first (the Viterbi of Unigram models and the user-defined-symbol matcher of
// SentencePiece both walk the text this way).
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <string>
#include <unordered_map>
#include <vector>

namespace llm {

class PieceTrie final {
 public:
  PieceTrie() : values_(1, -1) {}

  /// Adds `key` (non-empty) with `value` >= 0; a key added twice keeps its first value.
  void insert(const std::string& key, int32_t value);
  bool empty() const { return values_.size() == 1; }

  /// Calls visit(end, value) for every key equal to text[pos, end), in increasing end.
  template <typename Visit>
  void for_each_prefix(const std::string& text, size_t pos, Visit visit) const {
    uint32_t node = 0;
    for (size_t i = pos; i < text.size(); ++i) {
      const auto it = edges_.find(edge_key(node, static_cast<uint8_t>(text[i])));
      if (it == edges_.end()) return;
      node = it->second;
      if (values_[node] >= 0) visit(i + 1, values_[node]);
    }
  }
  /// The length of the longest key starting text at `pos`, 0 when none does.
  size_t longest_prefix(const std::string& text, size_t pos) const;

 private:
  static uint64_t edge_key(uint32_t node, uint8_t byte) {
    return (static_cast<uint64_t>(node) << 8) | byte;
  }
  std::unordered_map<uint64_t, uint32_t> edges_;  // (node, byte) -> child node
  std::vector<int32_t> values_;                    // node -> value, -1 when no key ends there
};

}  // namespace llm
