// The text between the pipeline's stages: pieces of the input, each either plain text
// still to be tokenized or an added token already matched. Splitting a piece keeps
// `at_start` (the piece begins the input), which Metaspace's "first" scheme reads.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <string>
#include <vector>

namespace llm {

struct Piece {
  std::string text;
  int32_t id = -1;        // an added token's id, or -1 for text to tokenize
  bool at_start = false;  // begins at byte 0 of the input
};

// How a split treats the delimiters it found (tokenizers' SplitDelimiterBehavior).
enum class SplitBehavior { kRemoved, kIsolated, kMergedWithPrevious, kMergedWithNext, kContiguous };

/// A byte range of a piece's text and whether it is a delimiter (a match).
struct Span {
  size_t begin, end;
  bool match;
};

/// Splits `piece` at `spans` (covering its text in order) following `behavior`, appending
/// the non-empty results to `out`.
void split_piece(const Piece& piece, std::vector<Span> spans, SplitBehavior behavior,
                 std::vector<Piece>* out);

}  // namespace llm
