// Errors as values for the tokenizer library: a Status is ok or carries one message
// that names the file and what is wrong.
#pragma once

#include <string>
#include <utility>

namespace llm {

class [[nodiscard]] Status final {
 public:
  static Status ok() { return Status(); }
  static Status error(std::string message) {
    Status s;
    s.failed_ = true;
    s.message_ = std::move(message);
    return s;
  }
  bool is_ok() const { return !failed_; }
  const std::string& message() const { return message_; }

 private:
  bool failed_ = false;
  std::string message_;
};

}  // namespace llm
