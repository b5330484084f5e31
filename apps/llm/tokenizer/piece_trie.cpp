#include "apps/llm/tokenizer/piece_trie.h"

namespace llm {

void PieceTrie::insert(const std::string& key, int32_t value) {
  uint32_t node = 0;
  for (unsigned char b : key) {
    const auto inserted = edges_.emplace(edge_key(node, b), static_cast<uint32_t>(values_.size()));
    if (inserted.second) values_.push_back(-1);
    node = inserted.first->second;
  }
  if (node != 0 && values_[node] < 0) values_[node] = value;
}

size_t PieceTrie::longest_prefix(const std::string& text, size_t pos) const {
  size_t longest = 0;
  for_each_prefix(text, pos, [&](size_t end, int32_t) { longest = end - pos; });
  return longest;
}

}  // namespace llm
