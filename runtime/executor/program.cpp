#include "runtime/executor/program.h"

#include <inttypes.h>
#include <string.h>

#include "program_generated.h"
#include "runtime/executor/method.h"
#include "runtime/executor/method_layout.h"

namespace tailor {
namespace {

constexpr size_t kIdentifierOffset = 4;
constexpr size_t kHeaderOffset = 8;
constexpr size_t kHeaderSize = 32;
constexpr size_t kMinProgramSize = kHeaderOffset + kHeaderSize;
constexpr size_t kSegmentAlignment = 4096;
// Flatbuffers verifies at most this many bytes (32-bit offsets).
constexpr uint64_t kMaxProgramSize = FLATBUFFERS_MAX_BUFFER_SIZE - 1;
// Method names are checked pairwise for duplicates; this bounds that work.
constexpr size_t kMaxMethods = 1024;

uint32_t read_u32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

uint64_t read_u64(const uint8_t* p) {
  return static_cast<uint64_t>(read_u32(p)) | static_cast<uint64_t>(read_u32(p + 4)) << 32;
}

// Copies 4 bytes as printable text for a message ("TL01", or "\x00..." escaped as '.').
void printable_tag(const uint8_t* p, char out[5]) {
  for (int i = 0; i < 4; ++i) out[i] = (p[i] >= 0x20 && p[i] < 0x7f) ? char(p[i]) : '.';
  out[4] = '\0';
}

struct Header {
  uint64_t program_size;
  uint64_t segment_base;
  uint64_t segment_size;
};

Result<Header> read_header(DataLoader& loader) {
  const size_t file_size = loader.size();
  TL_CHECK_OR_RETURN_ERROR(file_size >= kMinProgramSize, InvalidProgram,
                           "file is %zu bytes, too short to be a program (truncated?)",
                           file_size);
  Result<const void*> bytes = loader.load(0, kMinProgramSize);
  if (!bytes.ok()) return bytes.error();
  const uint8_t* p = static_cast<const uint8_t*>(*bytes);

  char tag[5];
  printable_tag(p + kIdentifierOffset, tag);
  TL_CHECK_OR_RETURN_ERROR(memcmp(p + kIdentifierOffset, fb::ProgramIdentifier(), 4) == 0,
                           InvalidProgram,
                           "not a Tailor program: file identifier is '%s', expected 'TL01'",
                           tag);
  printable_tag(p + kHeaderOffset, tag);
  TL_CHECK_OR_RETURN_ERROR(memcmp(p + kHeaderOffset, "TLH1", 4) == 0, InvalidProgram,
                           "corrupt extended header: magic is '%s', expected 'TLH1'", tag);
  const uint32_t header_size = read_u32(p + 12);
  TL_CHECK_OR_RETURN_ERROR(header_size == kHeaderSize, InvalidProgram,
                           "corrupt extended header: header size %" PRIu32 ", expected %zu",
                           header_size, kHeaderSize);

  Header h{read_u64(p + 16), read_u64(p + 24), read_u64(p + 32)};
  TL_CHECK_OR_RETURN_ERROR(h.program_size >= kMinProgramSize && h.program_size <= kMaxProgramSize,
                           InvalidProgram,
                           "corrupt extended header: program size %" PRIu64 " is invalid",
                           h.program_size);
  TL_CHECK_OR_RETURN_ERROR(h.program_size <= file_size, InvalidProgram,
                           "program is truncated: header says %" PRIu64
                           " bytes of program data, file has %zu bytes",
                           h.program_size, file_size);
  if (h.segment_size == 0) return h;
  TL_CHECK_OR_RETURN_ERROR(
      h.segment_base >= h.program_size && h.segment_base % kSegmentAlignment == 0,
      InvalidProgram,
      "corrupt extended header: segment base %" PRIu64 " must be 4096-aligned and after the "
      "%" PRIu64 "-byte program",
      h.segment_base, h.program_size);
  TL_CHECK_OR_RETURN_ERROR(
      h.segment_base <= file_size && h.segment_size <= file_size - h.segment_base,
      InvalidProgram,
      "program is truncated: constant segment [%" PRIu64 ", +%" PRIu64
      ") ends past the end of the %zu-byte file",
      h.segment_base, h.segment_size, file_size);
  return h;
}

template <typename T>
bool elements_aligned(const flatbuffers::Vector<T>* v) {
  return v == nullptr || v->size() == 0 ||
         reinterpret_cast<uintptr_t>(v->Data()) % alignof(T) == 0;
}

// The flatbuffers verifier checks a vector's length word is 4-byte aligned, not that its
// 8-byte elements are 8-byte aligned (the builder makes them so when there are any):
// reading those of a crafted file would be a misaligned load. An empty vector has no
// element to read (flatc may leave it 4-byte aligned). The buffer is 16-byte aligned in
// memory, so an address's alignment is its offset's.
Error check_vector_alignment(const fb::Program& program) {
  const auto* methods = program.methods();
  for (uint32_t m = 0; methods != nullptr && m < methods->size(); ++m) {
    const fb::Method* method = methods->Get(m);
    TL_CHECK_OR_RETURN_ERROR(elements_aligned(method->arena_sizes()), InvalidProgram,
                             "method %" PRIu32 ": arena_sizes are not 8-byte aligned in the "
                             "file (corrupt program)", m);
    const auto* values = method->values();
    for (uint32_t i = 0; values != nullptr && i < values->size(); ++i) {
      const fb::DoubleList* list = values->Get(i)->val_as_DoubleList();
      TL_CHECK_OR_RETURN_ERROR(list == nullptr || elements_aligned(list->items()),
                               InvalidProgram, "method %" PRIu32 ": value %" PRIu32 ": a "
                               "DoubleList's items are not 8-byte aligned in the file "
                               "(corrupt program)", m, i);
    }
  }
  return Error::Ok;
}

}  // namespace

Result<Program> Program::load(DataLoader& loader) {
  tl_pal_init();
  Result<Header> header = read_header(loader);
  if (!header.ok()) return header.error();

  // Verify: after this every table, vector and string read below is inside the buffer.
  const size_t program_size = static_cast<size_t>(header->program_size);
  Result<const void*> data = loader.load(0, program_size);
  if (!data.ok()) return data.error();
  const uint8_t* bytes = static_cast<const uint8_t*>(*data);
  TL_CHECK_OR_RETURN_ERROR(reinterpret_cast<uintptr_t>(bytes) % 16 == 0, InvalidArgument,
                           "program data must be 16-byte aligned in memory");
  flatbuffers::Verifier::Options options;
  flatbuffers::Verifier verifier(bytes, program_size, options);
  TL_CHECK_OR_RETURN_ERROR(fb::VerifyProgramBuffer(verifier), InvalidProgram,
                           "program flatbuffer is malformed (the flatbuffers verifier "
                           "rejected it: corrupt or truncated)");

  Program program;
  program.program_ = fb::GetProgram(bytes);

  // Constants: one range for all segments, each segment checked to lie inside it.
  if (header->segment_size > 0) {
    Result<const void*> segment = loader.load(static_cast<size_t>(header->segment_base),
                                              static_cast<size_t>(header->segment_size));
    if (!segment.ok()) return segment.error();
    program.segment_data_ = static_cast<const uint8_t*>(*segment);
    program.loader_ = &loader;
    program.segment_size_ = static_cast<size_t>(header->segment_size);
  }
  // Methods are found by name: two with one name would make the second unreachable
  // (and which one runs a matter of order). Pairwise, so the count is bounded.
  const size_t num_methods = program.num_methods();
  TL_CHECK_OR_RETURN_ERROR(num_methods <= kMaxMethods, InvalidProgram,
                           "program has %zu methods, at most %zu are supported", num_methods,
                           kMaxMethods);
  for (size_t i = 0; i < num_methods; ++i) {
    const flatbuffers::String* a = program.program_->methods()->Get(uint32_t(i))->name();
    for (size_t j = 0; j < i; ++j) {
      const flatbuffers::String* b = program.program_->methods()->Get(uint32_t(j))->name();
      const size_t a_size = a != nullptr ? a->size() : 0;
      const size_t b_size = b != nullptr ? b->size() : 0;
      TL_CHECK_OR_RETURN_ERROR(
          a_size != b_size || (a_size > 0 && memcmp(a->data(), b->data(), a_size) != 0),
          InvalidProgram, "methods %zu and %zu are both named '%s'; method names must be unique",
          j, i, a != nullptr ? a->c_str() : "");
    }
  }
  const Error aligned = check_vector_alignment(*program.program_);
  if (aligned != Error::Ok) return aligned;
  if (const auto* segments = program.program_->segments()) {
    for (uint32_t i = 0; i < segments->size(); ++i) {
      const fb::Segment* s = segments->Get(i);
      TL_CHECK_OR_RETURN_ERROR(
          s != nullptr && s->offset() <= program.segment_size_ &&
              s->size() <= program.segment_size_ - s->offset(),
          InvalidProgram,
          "segment %" PRIu32 " [%" PRIu64 ", +%" PRIu64 ") is outside the %zu bytes of "
          "segment data (truncated file?)",
          i, s ? s->offset() : 0, s ? s->size() : 0, program.segment_size_);
    }
  }
  return program;
}

size_t Program::num_methods() const {
  if (program_ == nullptr || program_->methods() == nullptr) return 0;
  return program_->methods()->size();
}

Result<const char*> Program::method_name(size_t index) const {
  TL_CHECK_OR_RETURN_ERROR(index < num_methods(), InvalidArgument,
                           "method index %zu out of range (%zu methods)", index, num_methods());
  const fb::Method* m = program_->methods()->Get(static_cast<uint32_t>(index));
  return Result<const char*>(m != nullptr && m->name() != nullptr ? m->name()->c_str() : "");
}

const fb::Method* Program::find_method(const char* name) const {
  for (size_t i = 0; i < num_methods(); ++i) {
    const fb::Method* m = program_->methods()->Get(static_cast<uint32_t>(i));
    const flatbuffers::String* method_name = m != nullptr ? m->name() : nullptr;
    // Length + memcmp: flatbuffers strings know their size (and GCC's overread
    // analysis misjudges strcmp on them).
    if (method_name != nullptr && method_name->size() == strlen(name) &&
        memcmp(method_name->data(), name, method_name->size()) == 0) {
      return m;
    }
  }
  return nullptr;
}

Result<MethodMeta> Program::method_meta(const char* name) const {
  TL_CHECK_OR_RETURN_ERROR(program_ != nullptr, InvalidState, "program is not loaded");
  const fb::Method* m = find_method(name);
  TL_CHECK_OR_RETURN_ERROR(m != nullptr, NotFound, "no method '%s' in the program", name);
  return MethodMeta(m);
}

Result<Method> Program::load_method(const char* name, MemoryManager& memory,
                                    const BackendOptions& backend_options,
                                    const LoadLimits& limits) const {
  TL_CHECK_OR_RETURN_ERROR(program_ != nullptr, InvalidState, "program is not loaded");
  const fb::Method* m = find_method(name);
  TL_CHECK_OR_RETURN_ERROR(m != nullptr, NotFound, "no method '%s' in the program", name);
  Method method;
  const Error err = method.init(*this, m, memory, backend_options, limits);
  if (err != Error::Ok) return err;
  return method;
}

Result<const uint8_t*> Program::constant_data(uint32_t segment, uint64_t offset,
                                              size_t nbytes) const {
  const auto* segments = program_->segments();
  if (segments == nullptr || segment >= segments->size()) return Error::InvalidProgram;
  const fb::Segment* s = segments->Get(segment);
  // Program::load checked the segment is inside the segment data.
  if (offset > s->size() || nbytes > s->size() - offset) return Error::InvalidProgram;
  return Result<const uint8_t*>(segment_data_ + s->offset() + offset);
}

// MethodMeta

const char* MethodMeta::name() const {
  return method_->name() != nullptr ? method_->name()->c_str() : "";
}

size_t MethodMeta::num_inputs() const {
  return method_->inputs() != nullptr ? method_->inputs()->size() : 0;
}

size_t MethodMeta::num_outputs() const {
  return method_->outputs() != nullptr ? method_->outputs()->size() : 0;
}

size_t MethodMeta::num_arenas() const {
  return method_->arena_sizes() != nullptr ? method_->arena_sizes()->size() : 0;
}

size_t MethodMeta::arena_size(size_t index) const {
  if (index >= num_arenas()) return 0;
  const uint64_t size = method_->arena_sizes()->Get(static_cast<uint32_t>(index));
  return size > SIZE_MAX ? SIZE_MAX : static_cast<size_t>(size);
}

uint64_t MethodMeta::planned_bytes(uint32_t threads) const {
  return internal::planned_bytes(*method_, threads);
}

uint64_t MethodMeta::elements_per_execute() const {
  return internal::elements_per_execute(*method_);
}

Error MethodMeta::check_limits(const LoadLimits& limits, uint32_t threads) const {
  return internal::check_limits(*method_, limits, threads);
}

namespace internal {

uint64_t planned_bytes(const fb::Method& method, uint32_t threads) {
  uint64_t total = MethodMeta(&method).method_allocator_bytes(threads);
  const auto* arenas = method.arena_sizes();
  for (uint32_t i = 0; arenas != nullptr && i < arenas->size(); ++i) {
    const uint64_t size = arenas->Get(i);
    total = size > UINT64_MAX - total ? UINT64_MAX : total + size;
  }
  return total;
}

}  // namespace internal

size_t MethodMeta::kernel_scratch_bytes() const {
  return internal::method_scratch_bytes(*method_);
}

size_t MethodMeta::method_allocator_bytes(uint32_t threads) const {
  return MemoryAllocator::kAlignment + internal::values_allocator_bytes(*method_) +
         internal::steps_allocator_bytes(*method_) + internal::io_allocator_bytes(*method_) +
         internal::scratch_allocator_bytes(*method_, threads) +
         internal::prepack_allocator_bytes(*method_);
}

size_t MethodMeta::prepack_bytes() const { return internal::prepack_allocator_bytes(*method_); }

}  // namespace tailor
