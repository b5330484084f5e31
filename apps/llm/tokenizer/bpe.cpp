#include "apps/llm/tokenizer/bpe.h"

#include <stdio.h>

#include <queue>

#include "apps/llm/tokenizer/unicode.h"

namespace llm {

bool Bpe::add_token(const std::string& text, int32_t id) {
  if (static_cast<size_t>(id) >= tokens_.size()) {
    tokens_.resize(id + 1);
    known_.resize(id + 1, false);
  }
  if (known_[id]) return false;
  known_[id] = true;
  tokens_[id] = text;
  ids_.emplace(text, id);
  return true;
}

bool Bpe::add_merge(const std::string& left, const std::string& right, std::string* missing) {
  const std::string& prefix = options_.continuing_subword_prefix;
  const std::string right_rest =
      right.compare(0, prefix.size(), prefix) == 0 ? right.substr(prefix.size()) : right;
  const std::string names[3] = {left, right, left + right_rest};
  int32_t ids[3];
  for (int k = 0; k < 3; ++k) {
    ids[k] = id_of(names[k]);
    if (ids[k] < 0) {
      *missing = names[k];
      return false;
    }
  }
  merges_[pair_key(ids[0], ids[1])] = Merge{merge_count_++, ids[2]};
  return true;
}

void Bpe::set_options(const Options& options) {
  options_ = options;
  have_byte_ids_ = true;
  for (int b = 0; b < 256; ++b) {
    char name[8];
    snprintf(name, sizeof(name), "<0x%02X>", b);
    byte_ids_[b] = options.rank_by_token ? id_of(std::string(1, static_cast<char>(b)))
                                         : id_of(name);
    have_byte_ids_ = have_byte_ids_ && byte_ids_[b] >= 0;
  }
}

bool Bpe::find_merge(int32_t left, int32_t right, Merge* merge) const {
  if (options_.rank_by_token) {
    const int32_t id = id_of(tokens_[left] + tokens_[right]);
    if (id < 0) return false;
    *merge = Merge{static_cast<uint32_t>(id), id};
    return true;
  }
  const auto it = merges_.find(pair_key(left, right));
  if (it == merges_.end()) return false;
  *merge = it->second;
  return true;
}

// Repeatedly merges the adjacent pair of lowest rank (leftmost on ties), the order of
// tokenizers' Word::merge_all, through a queue of candidate pairs checked when popped.
void Bpe::merge_symbols(std::vector<int32_t>* symbols) const {
  const int n = static_cast<int>(symbols->size());
  if (n < 2) return;
  std::vector<int32_t>& id = *symbols;
  std::vector<int> prev(n), next(n);
  std::vector<bool> alive(n, true);
  for (int i = 0; i < n; ++i) {
    prev[i] = i - 1;
    next[i] = i + 1 < n ? i + 1 : -1;
  }
  struct Candidate {
    uint32_t rank;
    int pos;
    int32_t merged;
    bool operator>(const Candidate& o) const {
      return rank != o.rank ? rank > o.rank : pos > o.pos;
    }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> queue;
  auto consider = [&](int left) {
    Merge m;
    if (left >= 0 && next[left] >= 0 && find_merge(id[left], id[next[left]], &m)) {
      queue.push({m.rank, left, m.merged});
    }
  };
  for (int i = 0; i + 1 < n; ++i) consider(i);
  while (!queue.empty()) {
    const Candidate top = queue.top();
    queue.pop();
    const int right = alive[top.pos] ? next[top.pos] : -1;
    Merge m;
    if (right < 0 || !find_merge(id[top.pos], id[right], &m) || m.merged != top.merged) {
      continue;  // stale: one side was merged since
    }
    id[top.pos] = top.merged;
    alive[right] = false;
    next[top.pos] = next[right];
    if (next[right] >= 0) prev[next[right]] = top.pos;
    consider(prev[top.pos]);
    consider(top.pos);
  }
  size_t kept = 0;
  for (int i = 0; i >= 0; i = next[i]) id[kept++] = id[i];
  symbols->resize(kept);
}

void Bpe::encode_word(const std::string& word, std::vector<int32_t>* out) const {
  if (word.empty()) return;
  if (options_.ignore_merges) {
    const int32_t whole = id_of(word);
    if (whole >= 0) {
      out->push_back(whole);
      return;
    }
  }
  std::vector<int32_t> symbols;
  if (options_.rank_by_token) {
    for (unsigned char b : word) symbols.push_back(byte_ids_[b]);
    merge_symbols(&symbols);
    out->insert(out->end(), symbols.begin(), symbols.end());
    return;
  }
  // One symbol per character; unknown characters fall back to bytes or unk.
  int32_t pending_unk = -1;
  for (size_t pos = 0; pos < word.size();) {
    size_t length = 0;
    decode_utf8(word, pos, &length);
    std::string piece = word.substr(pos, length);
    if (pos > 0) piece = options_.continuing_subword_prefix + piece;
    if (pos + length == word.size()) piece += options_.end_of_word_suffix;
    pos += length;
    const int32_t found = id_of(piece);
    if (found >= 0) {
      if (pending_unk >= 0) symbols.push_back(pending_unk);
      pending_unk = -1;
      symbols.push_back(found);
      continue;
    }
    if (options_.byte_fallback && have_byte_ids_) {
      if (pending_unk >= 0) symbols.push_back(pending_unk);
      pending_unk = -1;
      for (unsigned char b : piece) symbols.push_back(byte_ids_[b]);
      continue;
    }
    if (options_.unk_id < 0) continue;  // no unk token: the character is dropped
    if (pending_unk >= 0 && !options_.fuse_unk) symbols.push_back(pending_unk);
    pending_unk = options_.unk_id;
  }
  if (pending_unk >= 0) symbols.push_back(pending_unk);
  merge_symbols(&symbols);
  out->insert(out->end(), symbols.begin(), symbols.end());
}

}  // namespace llm
