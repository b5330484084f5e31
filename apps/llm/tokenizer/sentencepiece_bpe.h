// Encoding with a SentencePiece BPE model (sentencepiece's bpe::Model): characters (and
// user-defined pieces, never merged) as symbols, then repeatedly the adjacent pair whose
// concatenation is a piece with the highest score (leftmost on ties) is merged. Merges
// into unused pieces are undone at the end.
#pragma once

#include <string>

#include "apps/llm/tokenizer/sentencepiece_vocab.h"

namespace llm {

SentencePieceResult sentencepiece_bpe_encode(const SentencePieceVocab& vocab,
                                             const std::string& normalized);

}  // namespace llm
