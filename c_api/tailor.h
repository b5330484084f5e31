/* tailor.h: the C API of the Tailor runtime, for C and any FFI (JNI, Swift, ctypes).
 *
 * Built into the shared library of `scons model=M lib=shared` (lib/libtailor.so beside
 * the runner), with the runtime and the kernels that build selected.
 *
 *   tl_program* program;  tl_method* method;
 *   if (tl_program_load_file("mlp.pte", &program) != TL_OK) puts(tl_last_error());
 *   tl_method_load(program, "forward", NULL, &method);
 *   int64_t sizes[2] = {2, 16};
 *   tl_method_set_input(method, 0, TL_DTYPE_FLOAT32, x, sizeof x, sizes, 2);
 *   tl_method_execute(method);
 *   tl_method_copy_output(method, 0, y, sizeof y);
 *   tl_method_destroy(method);  tl_program_destroy(program);
 *
 * Every function that can fail returns a tl_status; on failure the calling thread's
 * tl_last_error() says what went wrong. Handles are opaque; a NULL or destroyed handle,
 * an index out of range, a wrong dtype or size is an error code, never a crash (a
 * destroyed handle cannot be detected: do not use one). A program and its methods may
 * be used from any thread, one method by one thread at a time.
 */
#ifndef TAILOR_C_API_H_
#define TAILOR_C_API_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Raised when the functions or structs below change incompatibly. */
#define TL_C_API_VERSION 1

/* The most dimensions a tensor has. */
#define TL_MAX_RANK 16

/* Outcome of a call: the runtime's Error codes (runtime/core/error.h). */
typedef enum tl_status {
  TL_OK = 0x00,
  TL_ERROR_INTERNAL = 0x01,
  TL_ERROR_INVALID_STATE = 0x02,
  TL_ERROR_END_OF_METHOD = 0x03,
  TL_ERROR_INVALID_PROGRAM = 0x10,
  TL_ERROR_INVALID_ARGUMENT = 0x11,
  TL_ERROR_OPERATOR_MISSING = 0x12,
  TL_ERROR_NOT_SUPPORTED = 0x13,
  TL_ERROR_NOT_FOUND = 0x14,
  TL_ERROR_MEMORY_ALLOCATION_FAILED = 0x20,
  TL_ERROR_ACCESS_FAILED = 0x21,
  TL_ERROR_LIMIT_EXCEEDED = 0x22,
  TL_ERROR_DELEGATE_INVALID_COMPATIBILITY = 0x30,
  TL_ERROR_DELEGATE_MEMORY_ALLOCATION_FAILED = 0x31,
  TL_ERROR_DELEGATE_INVALID_HANDLE = 0x32
} tl_status;

/* Element types: the runtime's ScalarType codes (PyTorch's numbering). */
typedef enum tl_dtype {
  TL_DTYPE_UINT8 = 0,
  TL_DTYPE_INT8 = 1,
  TL_DTYPE_INT16 = 2,
  TL_DTYPE_INT32 = 3,
  TL_DTYPE_INT64 = 4,
  TL_DTYPE_FLOAT16 = 5,
  TL_DTYPE_FLOAT32 = 6,
  TL_DTYPE_FLOAT64 = 7,
  TL_DTYPE_BOOL = 11,
  TL_DTYPE_BFLOAT16 = 15
} tl_dtype;

/* What a method input or output is. Scalars have rank 0 and dtype INT64, FLOAT64 or
 * BOOL; OTHER (a list, a string, none) can be neither set nor copied. */
typedef enum tl_value_kind {
  TL_VALUE_TENSOR = 1,
  TL_VALUE_INT = 2,
  TL_VALUE_DOUBLE = 3,
  TL_VALUE_BOOL = 4,
  TL_VALUE_OTHER = 5
} tl_value_kind;

/* The spec of one input or output. */
typedef struct tl_value_info {
  int32_t kind;                 /* tl_value_kind */
  int32_t dtype;                /* tl_dtype */
  uint32_t rank;                /* number of valid entries in sizes */
  uint32_t is_dynamic;          /* 1: sizes are upper bounds, an input may be smaller */
  int64_t sizes[TL_MAX_RANK];
  uint64_t nbytes;              /* bytes of the value at `sizes` */
} tl_value_info;

/* Options of tl_method_load(); zero in a field means its default. */
typedef struct tl_method_options {
  uint32_t num_threads;                /* kernels' and delegates' threads (default 1) */
  uint64_t max_memory_bytes;           /* refuse a method planning more (default 1 GiB) */
  uint64_t max_elements_per_execute;   /* refuse a method touching more (default 2^32) */
} tl_method_options;

typedef struct tl_program tl_program;
typedef struct tl_method tl_method;

/* TL_C_API_VERSION of the library, to compare with the header's. */
uint32_t tl_api_version(void);

/* The runtime's name of `status` ("InvalidArgument"), "Unknown" for other values; static. */
const char* tl_status_name(tl_status status);

/* The message of this thread's last call that failed, or "" when its last call
 * succeeded. Valid until this thread's next call into the library. */
const char* tl_last_error(void);

/* Maps and verifies the program file at `path`; *out is a new program, NULL on error.
 * TL_ERROR_ACCESS_FAILED when the file cannot be read, TL_ERROR_INVALID_PROGRAM when
 * it is not a valid program. */
tl_status tl_program_load_file(const char* path, tl_program** out);

/* As tl_program_load_file(), from `size` bytes at `data`, which the library copies:
 * the caller may free them when this returns. */
tl_status tl_program_load_buffer(const void* data, size_t size, tl_program** out);

/* Releases the caller's reference: the program is freed once its last method is
 * destroyed too, so methods stay usable after it. NULL is ignored. */
void tl_program_destroy(tl_program* program);

/* Number of methods of the program. */
tl_status tl_program_method_count(const tl_program* program, size_t* out);

/* Name of method `index` (< method count); the string lives as long as the program. */
tl_status tl_program_method_name(const tl_program* program, size_t index, const char** out);

/* Loads method `name` with memory sized for it (heap) and `options` (NULL: defaults);
 * *out is a new method, NULL on error. TL_ERROR_NOT_FOUND when there is no such
 * method, TL_ERROR_LIMIT_EXCEEDED when it needs more than the options allow,
 * TL_ERROR_OPERATOR_MISSING when this library lacks a kernel it calls. */
tl_status tl_method_load(tl_program* program, const char* name,
                         const tl_method_options* options, tl_method** out);

/* Frees the method and its memory (and the program, when it was destroyed already and
 * this was its last method). NULL is ignored. */
void tl_method_destroy(tl_method* method);

tl_status tl_method_input_count(const tl_method* method, size_t* out);
tl_status tl_method_output_count(const tl_method* method, size_t* out);

/* The spec of input `index` as loaded: dtype, rank and its planned sizes (for a
 * dynamic input, the upper bounds). */
tl_status tl_method_input_info(const tl_method* method, size_t index, tl_value_info* out);

/* The spec of output `index`: its sizes after the last tl_method_execute(), or its
 * planned sizes before the first. */
tl_status tl_method_output_info(const tl_method* method, size_t index, tl_value_info* out);

/* Copies input `index` from `data` (`nbytes` bytes: C order, element type `dtype`,
 * `rank` sizes). A scalar input takes rank 0 and one INT64, FLOAT64 or BOOL element.
 * TL_ERROR_INVALID_ARGUMENT when the dtype differs from the input's, the sizes are not
 * its sizes (or, when dynamic, within its bounds) or `nbytes` does not match them. */
tl_status tl_method_set_input(tl_method* method, size_t index, tl_dtype dtype,
                              const void* data, size_t nbytes, const int64_t* sizes,
                              size_t rank);

/* Seeds the method's random operators (rand, randn, dropout in training) and restarts
 * their sequence: the k-th run after a seed draws the same numbers for the same seed, on
 * any number of threads. A loaded method starts at seed 0. */
tl_status tl_method_set_seed(tl_method* method, uint64_t seed);

/* Runs the method once. Every input must have been set since the last run
 * (TL_ERROR_INVALID_STATE otherwise): a run may reuse an input's memory. */
tl_status tl_method_execute(tl_method* method);

/* Copies output `index` of the last run into `dst` in C order; `capacity` is the size
 * of `dst`, which must hold tl_method_output_info()'s nbytes. TL_ERROR_INVALID_STATE
 * before the first run. */
tl_status tl_method_copy_output(const tl_method* method, size_t index, void* dst,
                                size_t capacity);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* TAILOR_C_API_H_ */
