#include "apps/llm/tokenizer/bpe_entries.h"

namespace llm {

Status add_vocab(const Json& vocab, const std::string& where, Bpe* bpe) {
  if (!vocab.is_object()) return Status::error(where + " must be an object of token -> id");
  for (const auto& [token, id] : vocab.members()) {
    if (!id.is_integer() || id.as_int() < 0 || id.as_int() >= (1 << 24)) {
      return Status::error(where + ": token \"" + token + "\" needs an id in 0..16777215");
    }
    if (!bpe->add_token(token, static_cast<int32_t>(id.as_int()))) {
      return Status::error(where + ": id " + std::to_string(id.as_int()) +
                           " is given to two tokens");
    }
  }
  return Status::ok();
}

Status add_merge(const std::string& left, const std::string& right, const std::string& where,
                 Bpe* bpe) {
  std::string missing;
  if (!bpe->add_merge(left, right, &missing)) {
    return Status::error(where + ": token \"" + missing + "\" is not in the vocabulary");
  }
  return Status::ok();
}

Status add_merge_line(const std::string& line, const std::string& where, Bpe* bpe) {
  // Tokens never hold a space (byte-level BPE writes it as Ġ), so the first one splits.
  const size_t space = line.find(' ', 1);
  if (space == std::string::npos || space + 1 >= line.size() ||
      line.find(' ', space + 1) != std::string::npos) {
    return Status::error(where + ": expected \"left right\", got \"" + line + "\"");
  }
  return add_merge(line.substr(0, space), line.substr(space + 1), where, bpe);
}

}  // namespace llm
