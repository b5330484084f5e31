#include "apps/llm/tokenizer/stream_decoder.h"

namespace llm {
namespace {

bool ends_unfinished(const std::string& text) {
  // decode writes an unfinished character as U+FFFD (EF BF BD).
  return text.size() >= 3 && text.compare(text.size() - 3, 3, "\xEF\xBF\xBD") == 0;
}

}  // namespace

void StreamDecoder::start(const std::vector<int32_t>& context) {
  ids_ = context;
  context_ = 0;
  shown_ = ids_.size();
}

std::string StreamDecoder::pending_text() const {
  const std::vector<int32_t> before(ids_.begin() + context_, ids_.begin() + shown_);
  const std::vector<int32_t> all(ids_.begin() + context_, ids_.end());
  const std::string shown = tokenizer_->decode(before);
  const std::string text = tokenizer_->decode(all);
  // push releases text only where later ids cannot change it, so `shown` is a prefix of
  // `text`. Should a decoder still rewrite it (a prompt ending in an open byte run), the
  // new text starts at the next character: never half of one.
  size_t start = shown.size();
  while (start < text.size() && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) {
    ++start;
  }
  return start < text.size() ? text.substr(start) : std::string();
}

std::string StreamDecoder::push(int32_t id) {
  ids_.push_back(id);
  if (tokenizer_->ends_in_open_byte_run(ids_)) return std::string();
  std::string text = pending_text();
  if (text.empty() || ends_unfinished(text)) return std::string();
  // The next window starts at the ids just shown: they are the context of what follows.
  context_ = shown_;
  shown_ = ids_.size();
  return text;
}

std::string StreamDecoder::flush() {
  std::string text = pending_text();
  context_ = shown_;
  shown_ = ids_.size();
  return text;
}

}  // namespace llm
