// Filling a Bpe from the entries tokenizer.json and GPT-2's vocab.json + merges.txt write
// alike: the vocabulary object (token -> id) and merges written "left right".
#pragma once

#include <string>

#include "apps/llm/tokenizer/bpe.h"
#include "apps/llm/tokenizer/json.h"
#include "apps/llm/tokenizer/status.h"

namespace llm {

/// Adds every member of `vocab` (an object of token -> id) to `bpe`; `where` names it.
Status add_vocab(const Json& vocab, const std::string& where, Bpe* bpe);
/// Adds the merge of the line "left right" with the next rank; `where` names the line.
Status add_merge_line(const std::string& line, const std::string& where, Bpe* bpe);
/// Adds the merge of `left` and `right` with the next rank; `where` names the entry.
Status add_merge(const std::string& left, const std::string& right, const std::string& where,
                 Bpe* bpe);

}  // namespace llm
