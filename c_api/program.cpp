// The C API's program functions: load from a file or a buffer, list methods, destroy.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <new>

#include "c_api/handles.h"
#include "c_api/last_error.h"

using tailor::Error;
using tailor::c_api::begin_call;
using tailor::c_api::fail;

namespace {

// The segment base is 4096-aligned in the file: keep a copy aligned the same way, so
// constants are as aligned as in a mapped file.
constexpr size_t kCopyAlignment = 4096;

// Verifies the program behind `program`'s loader and hands it out, or frees it.
tl_status finish_load(tl_program* program, tailor::DataLoader& loader, const char* what,
                      tl_program** out) {
  tailor::Result<tailor::Program> loaded = tailor::Program::load(loader);
  if (!loaded.ok()) {
    delete program;
    return fail(loaded.error(), "cannot load program %s", what);
  }
  program->program = *loaded;
  *out = program;
  return TL_OK;
}

}  // namespace

void tl_program::FreeDeleter::operator()(void* p) const { free(p); }

namespace tailor::c_api {

void release_program(tl_program* program) {
  if (program->references.fetch_sub(1) == 1) delete program;
}

}  // namespace tailor::c_api

extern "C" {

tl_status tl_program_load_file(const char* path, tl_program** out) {
  begin_call();
  if (out == nullptr) return fail(Error::InvalidArgument, "tl_program_load_file: out is NULL");
  *out = nullptr;
  if (path == nullptr) return fail(Error::InvalidArgument, "tl_program_load_file: path is NULL");
  tl_program* program = new (std::nothrow) tl_program;
  if (program == nullptr) return fail(Error::MemoryAllocationFailed, "cannot load %s", path);
  const Error err = program->file.open(path);
  if (err != Error::Ok) {
    delete program;
    return fail(err, "cannot load program %s", path);
  }
  return finish_load(program, program->file, path, out);
}

tl_status tl_program_load_buffer(const void* data, size_t size, tl_program** out) {
  begin_call();
  if (out == nullptr) return fail(Error::InvalidArgument, "tl_program_load_buffer: out is NULL");
  *out = nullptr;
  if (data == nullptr && size > 0) {
    return fail(Error::InvalidArgument, "tl_program_load_buffer: data is NULL");
  }
  if (size > SIZE_MAX - kCopyAlignment) {
    return fail(Error::InvalidArgument, "tl_program_load_buffer: %zu bytes is no program", size);
  }
  tl_program* program = new (std::nothrow) tl_program;
  // aligned_alloc wants a multiple of the alignment (and at least one byte).
  const size_t rounded = (size / kCopyAlignment + 1) * kCopyAlignment;
  void* copy = program != nullptr ? aligned_alloc(kCopyAlignment, rounded) : nullptr;
  if (copy != nullptr) {
    program->copy.reset(copy);
    program->buffer.reset(new (std::nothrow) tailor::BufferDataLoader(copy, size));
  }
  if (program == nullptr || program->buffer == nullptr) {
    delete program;
    return fail(Error::MemoryAllocationFailed, "cannot copy a %zu-byte program", size);
  }
  if (size > 0) memcpy(copy, data, size);
  return finish_load(program, *program->buffer, "from a buffer", out);
}

void tl_program_destroy(tl_program* program) {
  begin_call();
  if (program != nullptr) tailor::c_api::release_program(program);
}

tl_status tl_program_method_count(const tl_program* program, size_t* out) {
  begin_call();
  if (program == nullptr || out == nullptr) {
    return fail(Error::InvalidArgument, "tl_program_method_count: %s is NULL",
                program == nullptr ? "program" : "out");
  }
  *out = program->program.num_methods();
  return TL_OK;
}

tl_status tl_program_method_name(const tl_program* program, size_t index, const char** out) {
  begin_call();
  if (program == nullptr || out == nullptr) {
    return fail(Error::InvalidArgument, "tl_program_method_name: %s is NULL",
                program == nullptr ? "program" : "out");
  }
  *out = nullptr;
  tailor::Result<const char*> name = program->program.method_name(index);
  if (!name.ok()) {
    return fail(name.error(), "the program has %zu methods, there is no method %zu",
                program->program.num_methods(), index);
  }
  *out = *name;
  return TL_OK;
}

}  // extern "C"
