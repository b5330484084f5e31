#include "apps/llm/tokenizer/unigram.h"

#include <algorithm>

namespace llm {
namespace {

constexpr float kUnkPenalty = 10.0f;

}  // namespace

SentencePieceResult unigram_encode(const SentencePieceVocab& vocab, const std::string& normalized) {
  using Type = SentencePieceVocab::Type;
  struct Best {
    int32_t id = -1;
    double score = 0.0;  // of the best path ending here: in double, as the sentencepiece
                         // release the tests pin sums it (in float, long texts tie apart)
    long start = -1;     // where its last piece starts; -1: not reached yet
  };
  const size_t size = normalized.size();
  const float unk_score = vocab.min_score() - kUnkPenalty;
  std::vector<Best> best(size + 1);
  for (size_t start = 0; start < size;) {
    const double score_here = best[start].score;
    const size_t char_length =
        std::min(sentencepiece_char_length(static_cast<uint8_t>(normalized[start])), size - start);
    bool has_single_piece = false;
    vocab.normal_trie().for_each_prefix(normalized, start, [&](size_t end, int32_t id) {
      if (vocab.type(id) == Type::kUnused) return;
      const size_t length = end - start;
      // As in sentencepiece: a user-defined piece scores length * max_score - 0.1.
      const double score = vocab.type(id) == Type::kUserDefined
                               ? static_cast<float>(length) * vocab.max_score() - 0.1
                               : static_cast<double>(vocab.score(id));
      const double candidate = score + score_here;
      Best& target = best[end];
      if (target.start < 0 || candidate > target.score) {
        target.score = candidate;
        target.start = static_cast<long>(start);
        target.id = id;
      }
      if (length == char_length) has_single_piece = true;
    });
    if (!has_single_piece) {
      Best& target = best[start + char_length];
      const double candidate = unk_score + score_here;
      if (target.start < 0 || candidate > target.score) {
        target.score = candidate;
        target.start = static_cast<long>(start);
        target.id = vocab.unk_id();
      }
    }
    start += char_length;
  }
  SentencePieceResult out;
  for (size_t end = size; end > 0;) {
    const Best& node = best[end];
    if (node.start < 0) break;  // unreachable: every character boundary has a path
    const size_t start = static_cast<size_t>(node.start);
    out.emplace_back(normalized.substr(start, end - start), node.id);
    end = start;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace llm
