// size_app: the smallest useful application of the runtime, linked to measure its size.
//
//   size_app PROGRAM.pte      loads the program, loads "forward", runs it once on the
//                             planned (zeroed) inputs; exit 0 ok, 1 error, 2 usage
//
// It uses only the core runtime (Program, Method, the kernel table, the platform layer)
// plus MmapDataLoader, and calloc for the memory MethodMeta asks for: no libstdc++, no
// stdio of its own. Budgets in tests/size/budgets.yaml are set on this binary.
#include <stdlib.h>

#include "runtime/executor/memory_manager.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/loader/mmap_data_loader.h"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;
constexpr size_t kMaxArenas = 8;

// Zeroed memory: planned inputs start as zeros, and calloc keeps untouched pages free.
uint8_t* zeroed(size_t size) { return static_cast<uint8_t*>(calloc(size == 0 ? 1 : size, 1)); }

int run(const char* path) {
  tailor::MmapDataLoader loader;
  if (loader.open(path) != tailor::Error::Ok) return kExitFailure;
  tailor::Result<tailor::Program> program = tailor::Program::load(loader);
  if (!program.ok()) return kExitFailure;
  tailor::Result<tailor::MethodMeta> meta = program->method_meta("forward");
  if (!meta.ok() || meta->num_arenas() > kMaxArenas) return kExitFailure;

  // Memory: exactly what the method's metadata asks for (freed at exit).
  const size_t method_bytes = meta->method_allocator_bytes();
  uint8_t* method_memory = zeroed(method_bytes);
  tailor::Span arenas[kMaxArenas];
  for (size_t i = 0; i < meta->num_arenas(); ++i) {
    arenas[i] = tailor::Span{zeroed(meta->arena_size(i)), meta->arena_size(i)};
    if (arenas[i].data == nullptr) return kExitFailure;
  }
  if (method_memory == nullptr) return kExitFailure;
  tailor::MemoryAllocator allocator(method_memory, method_bytes);
  tailor::MemoryManager memory(&allocator,
                               tailor::ArrayRef<tailor::Span>(arenas, meta->num_arenas()));

  tailor::Result<tailor::Method> method = program->load_method("forward", memory);
  if (!method.ok()) return kExitFailure;
  return method->execute() == tailor::Error::Ok ? kExitOk : kExitFailure;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return kExitUsage;
  return run(argv[1]);
}
