// The C API's version and error reporting entry points.
#include "c_api/last_error.h"
#include "c_api/tailor.h"

extern "C" {

uint32_t tl_api_version(void) { return TL_C_API_VERSION; }

const char* tl_status_name(tl_status status) {
  return tailor::error_name(static_cast<tailor::Error>(status));
}

const char* tl_last_error(void) { return tailor::c_api::last_error(); }

}  // extern "C"
