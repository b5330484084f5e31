// A reader of the protobuf wire format: tags, varints, length-delimited fields and
// fixed32/fixed64 values, enough to read a message whose schema the caller knows (the
// SentencePiece model). Every read is bounds-checked: malformed input makes the reader
// fail with what went wrong and where, and it never reads past its end.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <string>

namespace llm {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

class WireReader final {
 public:
  WireReader(const char* data, size_t size) : data_(data), size_(size) {}

  bool at_end() const { return pos_ >= size_ || failed(); }
  bool failed() const { return !error_.empty(); }
  /// What went wrong, with the byte offset in this reader's data.
  const std::string& error() const { return error_; }

  /// Reads a tag; false at the end or on error.
  bool next_field(uint32_t* field, uint32_t* wire_type);
  bool read_varint(uint64_t* value);
  /// A length-delimited field: its bytes stay in the reader's buffer.
  bool read_bytes(const char** data, size_t* size);
  bool read_fixed32(uint32_t* value);
  /// Skips a field of `wire_type` whose tag was just read (fields the caller ignores).
  bool skip(uint32_t wire_type);

  /// The value of a field with the wire type the schema gives: false (and an error naming
  /// `name`) when the field was written with another wire type.
  bool expect(uint32_t wire_type, uint32_t want, const char* name);

 private:
  bool fail(const std::string& what);

  const char* data_;
  size_t size_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace llm
