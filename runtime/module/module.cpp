#include "runtime/module/module.h"

namespace tailor {

Module::~Module() { free_method_memory(); }

void Module::free_method_memory() {
  method_ = Method();  // first: its delegates' state lives in that memory
  memory_.release();
}

Error Module::load(const char* path) {
  TL_CHECK_OR_RETURN_ERROR(!loaded_, InvalidState, "%s: a program is already loaded", path);
  Error err = loader_.open(path);
  if (err != Error::Ok) return err;
  Result<Program> program = Program::load(loader_);
  if (!program.ok()) return program.error();
  program_ = *program;
  loaded_ = true;
  return Error::Ok;
}

Error Module::load_method(const char* name, const BackendOptions& backend_options,
                          const LoadLimits& limits) {
  TL_CHECK_OR_RETURN_ERROR(loaded_, InvalidState, "no program is loaded");
  Result<MethodMeta> meta = program_.method_meta(name);
  if (!meta.ok()) return meta.error();
  free_method_memory();
  const Error err = memory_.allocate(*meta, limits, backend_options.num_threads);
  if (err != Error::Ok) return err;
  MemoryManager memory = memory_.manager();
  Result<Method> method = program_.load_method(name, memory, backend_options, limits);
  if (!method.ok()) return method.error();
  // MethodMeta's figure is exact for an aligned buffer: catch any drift in debug builds.
  // (Without prepacking, the packed weights' share is reserved but not used.)
  TL_DCHECK(memory_.allocator_used() + MemoryAllocator::kAlignment +
                (backend_options.prepack_weights ? 0 : meta->prepack_bytes()) ==
            meta->method_allocator_bytes(backend_options.num_threads));
  method_ = static_cast<Method&&>(*method);
  return Error::Ok;
}

}  // namespace tailor
