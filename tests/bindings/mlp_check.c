/* mlp_check: runs a one-input, one-output Float program through the C API (c_api/tailor.h)
 * and compares its output with expected values. Plain C (C11): it checks the header and
 * the shared library serve C callers.
 *
 *   mlp_check PROGRAM INPUT.f32 D0,D1,... EXPECTED.f32 TOLERANCE
 *
 * The .f32 files are raw little-endian float32 in C order. Loads the program from the
 * path and again from a buffer, checks the errors of bad calls, and exits 0 when every
 * check passes, 1 otherwise (each failure printed).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tailor.h"  /* c_api/, or include/ of an install prefix */

static int failures = 0;

/* Prints and counts a failed expectation. */
static void expect(int ok, const char* what) {
  if (!ok) {
    printf("FAILED: %s (last error: %s)\n", what, tl_last_error());
    ++failures;
  }
}

/* The whole file at `path` (malloc'd), its size in *size; NULL when unreadable. */
static void* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  const long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void* data = malloc(n > 0 ? (size_t)n : 1);
  if (data != NULL && fread(data, 1, (size_t)n, f) != (size_t)n) {
    free(data);
    data = NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return data;
}

/* Runs `program`'s forward on `input` (sizes, rank) and compares with `expected`. */
static void run_and_compare(tl_program* program, const float* input, size_t input_bytes,
                            const int64_t* sizes, size_t rank, const float* expected,
                            size_t expected_bytes, double tolerance) {
  tl_method* method = NULL;
  expect(tl_method_load(program, "forward", NULL, &method) == TL_OK, "load forward");
  if (method == NULL) return;

  size_t inputs = 0;
  size_t outputs = 0;
  tl_value_info info;
  expect(tl_method_input_count(method, &inputs) == TL_OK && inputs == 1, "one input");
  expect(tl_method_output_count(method, &outputs) == TL_OK && outputs == 1, "one output");
  expect(tl_method_input_info(method, 0, &info) == TL_OK && info.kind == TL_VALUE_TENSOR &&
             info.dtype == TL_DTYPE_FLOAT32 && info.rank == rank,
         "input 0 is a Float tensor of the given rank");

  /* Before any input is set, a run is refused. */
  expect(tl_method_execute(method) == TL_ERROR_INVALID_STATE, "run without inputs refused");
  expect(strstr(tl_last_error(), "input 0 is not set") != NULL, "message names the input");

  expect(tl_method_set_input(method, 0, TL_DTYPE_FLOAT32, input, input_bytes, sizes, rank) ==
             TL_OK,
         "set input 0");
  expect(tl_method_execute(method) == TL_OK, "execute");
  expect(tl_method_output_info(method, 0, &info) == TL_OK && info.nbytes == expected_bytes,
         "output 0 has the expected size");

  float* actual = calloc(1, expected_bytes);
  expect(tl_method_copy_output(method, 0, actual, expected_bytes) == TL_OK, "copy output 0");
  double max_error = 0;
  for (size_t i = 0; i < expected_bytes / sizeof(float); ++i) {
    const double e = fabs((double)actual[i] - (double)expected[i]);
    if (e > max_error) max_error = e;
  }
  printf("output 0: %zu values, max abs error %.3g\n", expected_bytes / sizeof(float),
         max_error);
  expect(max_error <= tolerance, "output matches the expected values");

  /* Too small a buffer, a wrong dtype, an index out of range: codes, not crashes. */
  expect(tl_method_copy_output(method, 0, actual, expected_bytes - 1) ==
             TL_ERROR_INVALID_ARGUMENT,
         "small buffer refused");
  expect(tl_method_set_input(method, 0, TL_DTYPE_INT32, input, input_bytes, sizes, rank) ==
             TL_ERROR_INVALID_ARGUMENT,
         "wrong dtype refused");
  expect(strstr(tl_last_error(), "dtype Int does not match the expected Float") != NULL,
         "message names both dtypes");
  expect(tl_method_copy_output(method, 7, actual, expected_bytes) ==
             TL_ERROR_INVALID_ARGUMENT,
         "output index out of range refused");
  free(actual);
  tl_method_destroy(method);
}

/* Parses "2,16" into sizes; returns the rank (0 on a malformed list). */
static size_t parse_sizes(const char* text, int64_t* sizes) {
  size_t rank = 0;
  char* end = NULL;
  while (rank < TL_MAX_RANK) {
    sizes[rank++] = strtoll(text, &end, 10);
    if (*end != ',') break;
    text = end + 1;
  }
  return *end == '\0' ? rank : 0;
}

int main(int argc, char** argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: mlp_check PROGRAM INPUT.f32 D0,D1,... EXPECTED.f32 TOLERANCE\n");
    return 2;
  }
  int64_t sizes[TL_MAX_RANK];
  const size_t rank = parse_sizes(argv[3], sizes);
  size_t input_bytes = 0;
  size_t expected_bytes = 0;
  size_t program_bytes = 0;
  float* input = read_file(argv[2], &input_bytes);
  float* expected = read_file(argv[4], &expected_bytes);
  void* program_data = read_file(argv[1], &program_bytes);
  if (rank == 0 || input == NULL || expected == NULL || program_data == NULL) {
    fprintf(stderr, "mlp_check: cannot read the arguments\n");
    return 2;
  }
  const double tolerance = strtod(argv[5], NULL);
  expect(tl_api_version() == TL_C_API_VERSION, "library and header versions agree");

  /* A path that does not exist: an error code and a message naming it. */
  tl_program* program = NULL;
  expect(tl_program_load_file("/nonexistent/m.pte", &program) == TL_ERROR_ACCESS_FAILED &&
             program == NULL,
         "missing file refused");
  expect(strstr(tl_last_error(), "/nonexistent/m.pte") != NULL, "message names the path");
  /* Bytes that are not a program. */
  expect(tl_program_load_buffer("not a program", 13, &program) == TL_ERROR_INVALID_PROGRAM,
         "garbage refused");
  expect(tl_program_load_buffer("", SIZE_MAX, &program) == TL_ERROR_INVALID_ARGUMENT,
         "impossible size refused");
  /* NULL handles. */
  size_t count = 0;
  expect(tl_program_method_count(NULL, &count) == TL_ERROR_INVALID_ARGUMENT, "NULL program");
  expect(tl_method_execute(NULL) == TL_ERROR_INVALID_ARGUMENT, "NULL method");

  /* From the path. */
  expect(tl_program_load_file(argv[1], &program) == TL_OK, "load from the path");
  if (program != NULL) {
    const char* name = NULL;
    expect(tl_program_method_count(program, &count) == TL_OK && count >= 1, "methods listed");
    expect(tl_program_method_name(program, 0, &name) == TL_OK && name != NULL, "method name");
    printf("methods: %zu, first: %s\n", count, name != NULL ? name : "?");
    expect(tl_program_method_name(program, count, &name) == TL_ERROR_INVALID_ARGUMENT,
           "method index out of range refused");
    tl_method* missing = NULL;
    expect(tl_method_load(program, "no_such_method", NULL, &missing) == TL_ERROR_NOT_FOUND,
           "unknown method refused");
    run_and_compare(program, input, input_bytes, sizes, rank, expected, expected_bytes,
                    tolerance);
    tl_program_destroy(program);
  }

  /* From a buffer, freed right after loading: the library keeps its own copy. */
  program = NULL;
  expect(tl_program_load_buffer(program_data, program_bytes, &program) == TL_OK,
         "load from a buffer");
  memset(program_data, 0, program_bytes);
  free(program_data);
  if (program != NULL) {
    run_and_compare(program, input, input_bytes, sizes, rank, expected, expected_bytes,
                    tolerance);
    tl_program_destroy(program);
  }
  free(input);
  free(expected);
  printf(failures == 0 ? "c api check passed\n" : "c api check FAILED (%d)\n", failures);
  return failures == 0 ? 0 : 1;
}
