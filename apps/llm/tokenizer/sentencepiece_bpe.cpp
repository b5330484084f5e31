#include "apps/llm/tokenizer/sentencepiece_bpe.h"

#include <algorithm>
#include <queue>
#include <unordered_map>

namespace llm {
namespace {

struct Symbol {
  int prev, next;
  bool frozen;   // a user-defined piece
  size_t begin;  // in the normalized text
  size_t size;   // 0 once merged into its left neighbour
};

struct Pair {
  int left, right;
  float score;
  size_t size;  // of the merged piece: a pair is stale once its sides changed
  bool operator<(const Pair& o) const {  // the queue's top: highest score, then leftmost
    return score < o.score || (score == o.score && left > o.left);
  }
};

}  // namespace

SentencePieceResult sentencepiece_bpe_encode(const SentencePieceVocab& vocab,
                                             const std::string& normalized) {
  std::vector<Symbol> symbols;
  for (size_t pos = 0; pos < normalized.size();) {
    size_t length = vocab.user_defined().longest_prefix(normalized, pos);
    const bool frozen = length > 0;
    if (!frozen) {
      length = std::min(sentencepiece_char_length(static_cast<uint8_t>(normalized[pos])),
                        normalized.size() - pos);
    }
    const int index = static_cast<int>(symbols.size());
    symbols.push_back(Symbol{index - 1, pos + length < normalized.size() ? index + 1 : -1,
                             frozen, pos, length});
    pos += length;
  }
  std::priority_queue<Pair> queue;
  // Merged text -> the two texts it was merged from, for merges into unused pieces.
  std::unordered_map<std::string, std::pair<std::string, std::string>> unmerge;
  auto consider = [&](int left, int right) {
    if (left < 0 || right < 0 || symbols[left].frozen || symbols[right].frozen) return;
    const Symbol& l = symbols[left];
    const Symbol& r = symbols[right];
    const std::string merged = normalized.substr(l.begin, l.size + r.size);
    const int32_t id = vocab.normal_id(merged);
    if (id < 0) return;
    queue.push(Pair{left, right, vocab.score(id), merged.size()});
    if (vocab.type(id) == SentencePieceVocab::Type::kUnused) {
      unmerge[merged] = {normalized.substr(l.begin, l.size), normalized.substr(r.begin, r.size)};
    }
  };
  for (int i = 1; i < static_cast<int>(symbols.size()); ++i) consider(i - 1, i);
  while (!queue.empty()) {
    const Pair top = queue.top();
    queue.pop();
    Symbol& l = symbols[top.left];
    Symbol& r = symbols[top.right];
    if (l.size == 0 || r.size == 0 || l.size + r.size != top.size) continue;  // stale
    l.size += r.size;
    l.next = r.next;
    if (r.next >= 0) symbols[r.next].prev = top.left;
    r.size = 0;
    consider(l.prev, top.left);
    consider(top.left, l.next);
  }
  SentencePieceResult out;
  // Unused pieces go back to what they were merged from (sentencepiece's resegment).
  std::vector<std::string> stack;
  for (int i = symbols.empty() ? -1 : 0; i >= 0; i = symbols[i].next) {
    stack.push_back(normalized.substr(symbols[i].begin, symbols[i].size));
    while (!stack.empty()) {
      std::string text = std::move(stack.back());
      stack.pop_back();
      const int32_t id = vocab.piece_to_id(text);
      const auto split = vocab.type(id) == SentencePieceVocab::Type::kUnused ? unmerge.find(text)
                                                                             : unmerge.end();
      if (split == unmerge.end()) {
        out.emplace_back(std::move(text), id);
      } else {
        stack.push_back(split->second.second);
        stack.push_back(split->second.first);
      }
    }
  }
  return out;
}

}  // namespace llm
