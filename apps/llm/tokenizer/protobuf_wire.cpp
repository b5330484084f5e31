#include "apps/llm/tokenizer/protobuf_wire.h"

namespace llm {

bool WireReader::fail(const std::string& what) {
  if (error_.empty()) error_ = "byte " + std::to_string(pos_) + ": " + what;
  return false;
}

bool WireReader::read_varint(uint64_t* value) {
  *value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos_ >= size_) return fail("truncated varint");
    const uint8_t b = static_cast<uint8_t>(data_[pos_++]);
    *value |= static_cast<uint64_t>(b & 0x7F) << shift;
    if ((b & 0x80) == 0) return true;
  }
  return fail("varint longer than 10 bytes");
}

bool WireReader::next_field(uint32_t* field, uint32_t* wire_type) {
  if (at_end()) return false;
  uint64_t tag = 0;
  if (!read_varint(&tag)) return false;
  *field = static_cast<uint32_t>(tag >> 3);
  *wire_type = static_cast<uint32_t>(tag & 7);
  if (*field == 0 || tag >> 3 > 0x1FFFFFFF) return fail("field number 0 or too large");
  return true;
}

bool WireReader::read_bytes(const char** data, size_t* size) {
  uint64_t length = 0;
  if (!read_varint(&length)) return false;
  if (length > size_ - pos_) {
    return fail("a field of " + std::to_string(length) + " bytes runs past the end (" +
                std::to_string(size_ - pos_) + " left)");
  }
  *data = data_ + pos_;
  *size = static_cast<size_t>(length);
  pos_ += *size;
  return true;
}

bool WireReader::read_fixed32(uint32_t* value) {
  if (size_ - pos_ < 4) return fail("truncated fixed32");
  *value = 0;
  for (int i = 0; i < 4; ++i) {  // little-endian on the wire, whatever the host
    *value |= static_cast<uint32_t>(static_cast<uint8_t>(data_[pos_ + i])) << (8 * i);
  }
  pos_ += 4;
  return true;
}

bool WireReader::skip(uint32_t wire_type) {
  uint64_t ignored = 0;
  const char* data = nullptr;
  size_t size = 0;
  switch (wire_type) {
    case kVarint:
      return read_varint(&ignored);
    case kFixed64:
      if (size_ - pos_ < 8) return fail("truncated fixed64");
      pos_ += 8;
      return true;
    case kLengthDelimited:
      return read_bytes(&data, &size);
    case kFixed32:
      if (size_ - pos_ < 4) return fail("truncated fixed32");
      pos_ += 4;
      return true;
    default:  // 3 and 4 are proto1 groups, which no SentencePiece model has; 6, 7 do not exist
      return fail("wire type " + std::to_string(wire_type) + " is not supported");
  }
}

bool WireReader::expect(uint32_t wire_type, uint32_t want, const char* name) {
  if (wire_type == want) return true;
  return fail(std::string(name) + " has wire type " + std::to_string(wire_type) + ", expected " +
              std::to_string(want));
}

}  // namespace llm
