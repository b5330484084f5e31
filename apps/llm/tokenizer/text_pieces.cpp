#include "apps/llm/tokenizer/text_pieces.h"

#include <algorithm>

namespace llm {

void split_piece(const Piece& piece, std::vector<Span> spans, SplitBehavior behavior,
                 std::vector<Piece>* out) {
  std::vector<Span> kept;  // `match` now means "drop"
  switch (behavior) {
    case SplitBehavior::kRemoved:
      kept = std::move(spans);
      break;
    case SplitBehavior::kIsolated:
      for (Span s : spans) kept.push_back({s.begin, s.end, false});
      break;
    case SplitBehavior::kContiguous: {
      bool previous = false;
      for (Span s : spans) {
        if (s.match == previous && !kept.empty()) {
          kept.back().end = s.end;
        } else {
          kept.push_back({s.begin, s.end, false});
        }
        previous = s.match;
      }
      break;
    }
    case SplitBehavior::kMergedWithPrevious: {
      bool previous = false;
      for (Span s : spans) {
        if (s.match && !previous && !kept.empty()) {
          kept.back().end = s.end;
        } else {
          kept.push_back({s.begin, s.end, false});
        }
        previous = s.match;
      }
      break;
    }
    case SplitBehavior::kMergedWithNext: {
      bool previous = false;
      for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
        if (it->match && !previous && !kept.empty()) {
          kept.back().begin = it->begin;
        } else {
          kept.push_back({it->begin, it->end, false});
        }
        previous = it->match;
      }
      std::reverse(kept.begin(), kept.end());
      break;
    }
  }
  for (const Span& s : kept) {
    if (s.match || s.end == s.begin) continue;
    Piece p;
    p.text = piece.text.substr(s.begin, s.end - s.begin);
    p.at_start = piece.at_start && s.begin == 0;
    out->push_back(std::move(p));
  }
}

}  // namespace llm
