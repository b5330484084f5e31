// libFuzzer target: input bytes -> Program::load -> load every method -> execute on the
// planned (zeroed) inputs, as the runner does without --input -> tear down. Any crash,
// sanitizer report or leak is a bug: a malformed program must come back as an Error.
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <memory>

#include "runtime/executor/memory_allocator.h"
#include "runtime/executor/memory_manager.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/loader/buffer_data_loader.h"
#include "runtime/platform/platform.h"

namespace {

struct Free {
  void operator()(void* p) const { free(p); }
};
using Buffer = std::unique_ptr<uint8_t, Free>;

// Zeroed like Module's memory, so execution sees what the runner's would.
Buffer zeroed(size_t size) { return Buffer(static_cast<uint8_t*>(calloc(size == 0 ? 1 : size, 1))); }

// Far below the runner's defaults: an input must run in well under a millisecond for
// thousands of executions a second, and a planned size beyond these is refused before
// anything is allocated. The seeds need a few KB and a few thousand elements, besides
// the one scratch slice (one thread) the method's kernels declare (4 MB with Winograd).
tailor::LoadLimits fuzz_limits(const tailor::MethodMeta& meta) {
  tailor::LoadLimits limits;
  limits.max_memory_bytes = (uint64_t{1} << 20) + meta.kernel_scratch_bytes();
  limits.max_elements_per_execute = uint64_t{1} << 16;
  return limits;
}

void run_method(const tailor::Program& program, const char* name) {
  tailor::Result<tailor::MethodMeta> meta = program.method_meta(name);
  if (!meta.ok()) return;
  const tailor::LoadLimits limits = fuzz_limits(*meta);
  if (meta->check_limits(limits) != tailor::Error::Ok) return;

  const size_t method_bytes = meta->method_allocator_bytes();
  Buffer method_memory = zeroed(method_bytes);
  const size_t num_arenas = meta->num_arenas();
  std::unique_ptr<Buffer[]> arena_memory(new Buffer[num_arenas]);
  std::unique_ptr<tailor::Span[]> arenas(new tailor::Span[num_arenas > 0 ? num_arenas : 1]);
  if (method_memory == nullptr) return;
  for (size_t i = 0; i < num_arenas; ++i) {
    const size_t size = meta->arena_size(i);
    arena_memory[i] = zeroed(size);
    if (arena_memory[i] == nullptr) return;
    arenas[i] = tailor::Span{arena_memory[i].get(), size};
  }
  tailor::MemoryAllocator allocator(method_memory.get(), method_bytes);
  tailor::MemoryManager memory(&allocator,
                               tailor::ArrayRef<tailor::Span>(arenas.get(), num_arenas));
  tailor::Result<tailor::Method> method =
      program.load_method(name, memory, tailor::BackendOptions(), limits);
  if (!method.ok()) return;
  // Twice: the second run starts from the first one's arena contents.
  for (int run = 0; run < 2; ++run) {
    if (method->execute() != tailor::Error::Ok) return;
  }
}

}  // namespace

// Quiet: a log line per rejected input would drown libFuzzer's own output.
extern "C" void tl_pal_emit_log(tl_pal_log_level_t, const char*, size_t, const char*) {}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A copy of exactly `size` bytes: 16-byte aligned as Program::load needs, and any
  // read past the end lands in ASan's redzone.
  void* copy = nullptr;
  if (posix_memalign(&copy, 16, size == 0 ? 1 : size) != 0) return 0;
  Buffer bytes(static_cast<uint8_t*>(copy));
  if (size > 0) memcpy(copy, data, size);

  tailor::BufferDataLoader loader(copy, size);
  tailor::Result<tailor::Program> program = tailor::Program::load(loader);
  if (!program.ok()) return 0;
  for (size_t i = 0; i < program->num_methods(); ++i) {
    tailor::Result<const char*> name = program->method_name(i);
    if (name.ok()) run_method(*program, *name);
  }
  return 0;
}
