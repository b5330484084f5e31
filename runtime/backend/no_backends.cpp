// The backend table of a runtime linked without gen/register_backends.cpp (test and
// size apps that bring their own kernel table): no backends. Weak, so the generated
// table replaces it; kept out of backend.cpp so the compiler cannot fold the count.
#include "runtime/backend/backend.h"

namespace tailor::gen {

extern const Backend* const kBackends[] __attribute__((weak)) = {nullptr};
extern const size_t kNumBackends __attribute__((weak)) = 0;

}  // namespace tailor::gen
