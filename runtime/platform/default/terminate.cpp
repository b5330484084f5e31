// Replaces libstdc++'s verbose terminate handler with a plain abort.
//
// The default handler prints the demangled type of an uncaught exception, so a
// statically linked libstdc++ brings its demangler (cp-demangle.o, ~47 KB) into every
// binary, even one built with -fno-exceptions. The runtime never throws. Linked as an
// object (not from the archive) so it is seen before libstdc++.a is searched; weak, so
// an application can still define its own.
#include <stdlib.h>

namespace __gnu_cxx {

__attribute__((weak)) void __verbose_terminate_handler() { abort(); }

}  // namespace __gnu_cxx
