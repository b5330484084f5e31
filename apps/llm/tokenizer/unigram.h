// Encoding with a SentencePiece Unigram model: the Viterbi path over the pieces' scores
// (sentencepiece's EncodeOptimized: the same order of candidates and the same precision,
// so ties break the same way), unknown characters as unk pieces scored min_score - 10,
// user-defined pieces given a bonus that makes them win.
#pragma once

#include <string>

#include "apps/llm/tokenizer/sentencepiece_vocab.h"

namespace llm {

SentencePieceResult unigram_encode(const SentencePieceVocab& vocab, const std::string& normalized);

}  // namespace llm
