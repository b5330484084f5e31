// The BPE model: a vocabulary, merges with ranks, and the word encoder of tokenizers'
// BPE (lowest rank first, leftmost on ties) with unk, byte fallback (<0xNN> tokens) and
// ignore_merges. tiktoken files are the same model with the ranks of the merged tokens
// standing for the merges (`rank_by_token`).
#pragma once

#include <stdint.h>

#include <string>
#include <unordered_map>
#include <vector>

namespace llm {

class Bpe final {
 public:
  struct Options {
    int32_t unk_id = -1;
    bool fuse_unk = false;
    bool byte_fallback = false;
    bool ignore_merges = false;
    std::string continuing_subword_prefix;
    std::string end_of_word_suffix;
    // tiktoken: words start as bytes, and a pair merges when its concatenation is a
    // token, the token's id being its rank.
    bool rank_by_token = false;
  };

  /// Adds token `text` with `id` (ids may have gaps). False when the id is taken.
  bool add_token(const std::string& text, int32_t id);
  /// Adds the merge `left right` with the next rank: false when a part or the result is
  /// not a token (`missing` names it). A pair merged twice keeps the later rank, as in
  /// tokenizers.
  bool add_merge(const std::string& left, const std::string& right, std::string* missing);
  /// Finishes setup: finds the <0xNN> tokens for byte fallback.
  void set_options(const Options& options);

  /// Appends the ids of `word` (one pre-tokenized piece) to `out`.
  void encode_word(const std::string& word, std::vector<int32_t>* out) const;

  /// The token of `id`, or nullptr.
  const std::string* token(int32_t id) const {
    return id >= 0 && static_cast<size_t>(id) < tokens_.size() && known_[id] ? &tokens_[id]
                                                                              : nullptr;
  }
  /// The id of `text`, or -1.
  int32_t id_of(const std::string& text) const {
    const auto it = ids_.find(text);
    return it == ids_.end() ? -1 : it->second;
  }
  size_t id_limit() const { return tokens_.size(); }
  size_t size() const { return ids_.size(); }

 private:
  struct Merge {
    uint32_t rank;
    int32_t merged;
  };
  static uint64_t pair_key(int32_t left, int32_t right) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
  }
  bool find_merge(int32_t left, int32_t right, Merge* merge) const;
  void merge_symbols(std::vector<int32_t>* symbols) const;

  std::vector<std::string> tokens_;  // id -> token text
  std::vector<bool> known_;
  std::unordered_map<std::string, int32_t> ids_;
  std::unordered_map<uint64_t, Merge> merges_;
  uint32_t merge_count_ = 0;
  Options options_;
  int32_t byte_ids_[256] = {};  // <0xNN> (byte fallback) or the byte itself (tiktoken)
  bool have_byte_ids_ = false;
};

}  // namespace llm
