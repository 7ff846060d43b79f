/* The C API (include/stubjit/stubjit.h) from a C99 program linked to the shared library
 * only, on the CPU backend, without a test framework. Every check compares with a
 * computation in plain C loops here, never with the library itself: the basics
 * (version, type sizes, status names, option defaults), a runtime's backend, limits and
 * counters, saxpy over allocated fields, caller-owned memory wrapped row-major,
 * column-major and strided (the results land in the caller's arrays), a Fortran-order
 * domain from loops with a negative step, a rank-5 strided view, a reduce, streams, every
 * error status with its typed details (and nothing run or lost after a refused launch),
 * and handle lifetimes; then, on the CUDA backend over the test tree's fake driver
 * (STUBJIT_TEST_FAKE_CUDA_DRIVER), a launch that fails part-way: STUBJIT_LAUNCH_ERROR.
 * Prints each failed check as file:line and exits 1 if any failed. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stubjit/stubjit.h"

static int checks = 0;
static int failures = 0;

/* --- checks ----------------------------------------------------------------------- */

#define CHECK(expr)                                                   \
  do {                                                                \
    ++checks;                                                         \
    if (!(expr)) {                                                    \
      ++failures;                                                     \
      printf("%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #expr); \
    }                                                                 \
  } while (0)

#define CHECK_INT(actual, expected) \
  check_int(__FILE__, __LINE__, #actual, (long long)(actual), (long long)(expected))
#define CHECK_F64(actual, expected) \
  check_f64(__FILE__, __LINE__, #actual, (double)(actual), (double)(expected))
#define CHECK_STR(actual, expected) check_str(__FILE__, __LINE__, #actual, (actual), (expected))
#define CHECK_CONTAINS(text, part) check_contains(__FILE__, __LINE__, #text, (text), (part))
#define CHECK_OK(call) check_status(__FILE__, __LINE__, #call, (call), STUBJIT_OK)
#define CHECK_STATUS(call, expected) check_status(__FILE__, __LINE__, #call, (call), (expected))

static int check_int(const char* file, int line, const char* text, long long actual,
                     long long expected) {
  ++checks;
  if (actual == expected) return 1;
  ++failures;
  printf("%s:%d: CHECK failed: %s == %lld (got %lld)\n", file, line, text, expected, actual);
  return 0;
}

static int check_f64(const char* file, int line, const char* text, double actual, double expected) {
  ++checks;
  if (actual == expected) return 1;
  ++failures;
  printf("%s:%d: CHECK failed: %s == %.17g (got %.17g)\n", file, line, text, expected, actual);
  return 0;
}

static int check_str(const char* file, int line, const char* text, const char* actual,
                     const char* expected) {
  ++checks;
  if (actual != NULL && strcmp(actual, expected) == 0) return 1;
  ++failures;
  printf("%s:%d: CHECK failed: %s == \"%s\" (got %s%s%s)\n", file, line, text, expected,
         actual ? "\"" : "", actual ? actual : "NULL", actual ? "\"" : "");
  return 0;
}

static int check_contains(const char* file, int line, const char* text, const char* actual,
                          const char* part) {
  ++checks;
  if (actual != NULL && strstr(actual, part) != NULL) return 1;
  ++failures;
  printf("%s:%d: CHECK failed: %s contains \"%s\" (got %s%s%s)\n", file, line, text, part,
         actual ? "\"" : "", actual ? actual : "NULL", actual ? "\"" : "");
  return 0;
}

static const char* name_or_number(stubjit_status status) {
  static char number[32];
  const char* name = stubjit_status_name(status);
  if (name != NULL) return name;
  sprintf(number, "%d", (int)status);
  return number;
}

/* The status a call returned against the one expected; on a mismatch, what the last
 * error says. */
static int check_status(const char* file, int line, const char* text, stubjit_status actual,
                        stubjit_status expected) {
  const stubjit_error* error;
  ++checks;
  if (actual == expected) return 1;
  ++failures;
  error = stubjit_last_error();
  printf("%s:%d: CHECK failed: %s == %s (got %s", file, line, text, name_or_number(expected),
         name_or_number(actual));
  if (actual != STUBJIT_OK && error != NULL && error->message != NULL)
    printf(": %s", error->message);
  printf(")\n");
  return 0;
}

/* --- helpers ---------------------------------------------------------------------- */

static stubjit_runtime new_cpu_runtime(void) {
  stubjit_runtime_options options;
  stubjit_runtime runtime = NULL;
  stubjit_runtime_options_init(&options);
  options.backend = "cpu";
  options.disk_cache = 0;
  CHECK_OK(stubjit_runtime_create(&options, &runtime));
  CHECK(runtime != NULL);
  return runtime;
}

static stubjit_status create_kernel(stubjit_runtime runtime, const char* name,
                                    const stubjit_param* params, size_t param_count,
                                    const char* body, stubjit_kernel* out) {
  stubjit_kernel_source source;
  stubjit_kernel_source_init(&source);
  source.param_size = sizeof(stubjit_param);
  source.name = name;
  source.params = params;
  source.param_count = param_count;
  source.body = body;
  return stubjit_kernel_create(runtime, &source, out);
}

static stubjit_kernel new_kernel(stubjit_runtime runtime, const char* name,
                                 const stubjit_param* params, size_t param_count,
                                 const char* body) {
  stubjit_kernel kernel = NULL;
  CHECK_OK(create_kernel(runtime, name, params, param_count, body, &kernel));
  CHECK(kernel != NULL);
  return kernel;
}

/* "saxpy": y = a * x + y over float fields of rank 0. */
static stubjit_kernel new_saxpy(stubjit_runtime runtime) {
  stubjit_param params[3];
  params[0] = stubjit_param_scalar("a", STUBJIT_F32);
  params[1] = stubjit_param_in("x", STUBJIT_F32, 0);
  params[2] = stubjit_param_inout("y", STUBJIT_F32, 0);
  return new_kernel(runtime, "saxpy", params, 3, "y = a * x + y;");
}

/* "shift": y = y + 10 p[0] + p[1] over a rank-2 domain, through the index token. */
static stubjit_kernel new_shift(stubjit_runtime runtime) {
  stubjit_param params[2];
  params[0] = stubjit_param_index("p");
  params[1] = stubjit_param_inout("y", STUBJIT_F64, 0);
  return new_kernel(runtime, "shift", params, 2, "y = y + 10.0 * double(p[0]) + double(p[1]);");
}

/* A domain with first 0 and step 1 in each dimension. */
static stubjit_domain new_box(int rank, const int64_t* counts, stubjit_order order) {
  stubjit_dim dims[8];
  stubjit_domain domain = NULL;
  int d;
  for (d = 0; d < rank; ++d) {
    dims[d].first = 0;
    dims[d].count = counts[d];
    dims[d].step = 1;
  }
  CHECK_OK(stubjit_domain_create(rank, dims, order, &domain));
  CHECK(domain != NULL);
  return domain;
}

static stubjit_field new_field(stubjit_runtime runtime, stubjit_type type, int rank,
                               const int64_t* extents, stubjit_layout layout) {
  stubjit_field field = NULL;
  CHECK_OK(stubjit_field_allocate(runtime, type, rank, extents, layout, &field));
  CHECK(field != NULL);
  return field;
}

static stubjit_cache_counters counters_of(stubjit_runtime runtime) {
  stubjit_cache_counters counters;
  memset(&counters, 0xff, sizeof counters);
  counters.struct_size = sizeof counters;
  CHECK_OK(stubjit_runtime_counters(runtime, &counters));
  return counters;
}

static stubjit_launch_summary empty_summary(void) {
  stubjit_launch_summary summary;
  memset(&summary, 0, sizeof summary);
  summary.struct_size = sizeof summary;
  return summary;
}

/* The last error is `status`, and every detail not listed in `uses` has its "does not
 * apply" value ("" for strings, -1 for the dimension, 0 otherwise). */
enum { USES_PARAMETER = 1, USES_LIMIT = 2, USES_COMPILE = 4, USES_DIMENSION = 8 };

static const stubjit_error* check_last_error_at(const char* file, int line, stubjit_status status,
                                                int uses) {
  const stubjit_error* error = stubjit_last_error();
  check_int(file, line, "stubjit_last_error() != NULL", error != NULL, 1);
  if (error == NULL) return NULL;
  check_status(file, line, "stubjit_last_error()->status", error->status, status);
  check_int(file, line, "stubjit_last_error()->message is not empty",
            error->message != NULL && error->message[0] != '\0', 1);
  if (!(uses & USES_PARAMETER)) {
    check_str(file, line, "stubjit_last_error()->parameter", error->parameter, "");
    check_str(file, line, "stubjit_last_error()->other_parameter", error->other_parameter, "");
  }
  if (!(uses & USES_LIMIT)) {
    check_str(file, line, "stubjit_last_error()->limit", error->limit, "");
    check_int(file, line, "stubjit_last_error()->limit_value", (long long)error->limit_value, 0);
  }
  if (!(uses & USES_COMPILE)) {
    check_str(file, line, "stubjit_last_error()->kernel", error->kernel, "");
    check_str(file, line, "stubjit_last_error()->log", error->log, "");
    check_str(file, line, "stubjit_last_error()->source", error->source, "");
  }
  if (!(uses & USES_DIMENSION))
    check_int(file, line, "stubjit_last_error()->dimension", error->dimension, -1);
  check_int(file, line, "stubjit_last_error()->dispatches_issued",
            (long long)error->dispatches_issued, 0);
  check_int(file, line, "stubjit_last_error()->dispatches_total",
            (long long)error->dispatches_total, 0);
  return error;
}
#define CHECK_LAST_ERROR(status, uses) check_last_error_at(__FILE__, __LINE__, (status), (uses))

/* --- basics ----------------------------------------------------------------------- */

static void test_basics(void) {
  const stubjit_error* error;
  char prefix[32];
  int major = -1, minor = -1, patch = -1;
  char tail = 0;
  stubjit_runtime_options options;
  stubjit_kernel_source source;
  stubjit_launch_options launch;

  /* Nothing has failed on this thread yet. */
  error = stubjit_last_error();
  CHECK(error != NULL);
  if (error != NULL) {
    CHECK_INT(error->status, STUBJIT_OK);
    CHECK_STR(error->message, "");
  }

  /* "MAJOR.MINOR.PATCH" of the header's major and minor. */
  CHECK(stubjit_version() != NULL);
  sprintf(prefix, "%d.%d.", STUBJIT_VERSION_MAJOR, STUBJIT_VERSION_MINOR);
  CHECK(strncmp(stubjit_version(), prefix, strlen(prefix)) == 0);
  CHECK_INT(sscanf(stubjit_version(), "%d.%d.%d%c", &major, &minor, &patch, &tail), 3);
  CHECK_INT(major, STUBJIT_VERSION_MAJOR);
  CHECK_INT(minor, STUBJIT_VERSION_MINOR);
  CHECK(patch >= 0);

  CHECK_INT(stubjit_type_size(STUBJIT_F32), sizeof(float));
  CHECK_INT(stubjit_type_size(STUBJIT_F64), sizeof(double));
  CHECK_INT(stubjit_type_size(STUBJIT_I32), sizeof(int32_t));
  CHECK_INT(stubjit_type_size(STUBJIT_I64), sizeof(int64_t));
  CHECK_INT(stubjit_type_size(STUBJIT_U32), sizeof(uint32_t));
  CHECK_INT(stubjit_type_size(STUBJIT_I8), sizeof(int8_t));
  CHECK_INT(stubjit_type_size(STUBJIT_U8), sizeof(uint8_t));
  CHECK_INT(stubjit_type_size(STUBJIT_I16), sizeof(int16_t));
  CHECK_INT(stubjit_type_size(STUBJIT_U16), sizeof(uint16_t));
  CHECK_INT(stubjit_type_size(STUBJIT_U64), sizeof(uint64_t));
  CHECK_INT(stubjit_type_size(STUBJIT_BOOL), 1);
  CHECK_INT(stubjit_type_size(STUBJIT_FLOAT16), sizeof(uint16_t));
  CHECK_INT(stubjit_type_size(STUBJIT_BFLOAT16), sizeof(uint16_t));
  CHECK_INT(stubjit_type_size(STUBJIT_COMPLEX_F32), 2 * sizeof(float));
  CHECK_INT(stubjit_type_size(STUBJIT_COMPLEX_F64), 2 * sizeof(double));
  CHECK_INT(stubjit_type_size((stubjit_type)99), 0);
  CHECK_INT(stubjit_type_size((stubjit_type)-1), 0);

  CHECK_STR(stubjit_status_name(STUBJIT_OK), "STUBJIT_OK");
  CHECK_STR(stubjit_status_name(STUBJIT_ERROR), "STUBJIT_ERROR");
  CHECK_STR(stubjit_status_name(STUBJIT_DOMAIN_ERROR), "STUBJIT_DOMAIN_ERROR");
  CHECK_STR(stubjit_status_name(STUBJIT_SIGNATURE_ERROR), "STUBJIT_SIGNATURE_ERROR");
  CHECK_STR(stubjit_status_name(STUBJIT_ARGUMENT_ERROR), "STUBJIT_ARGUMENT_ERROR");
  CHECK_STR(stubjit_status_name(STUBJIT_ALIAS_ERROR), "STUBJIT_ALIAS_ERROR");
  CHECK_STR(stubjit_status_name(STUBJIT_PLAN_ERROR), "STUBJIT_PLAN_ERROR");
  CHECK_STR(stubjit_status_name(STUBJIT_COMPILE_ERROR), "STUBJIT_COMPILE_ERROR");
  CHECK_STR(stubjit_status_name(STUBJIT_BACKEND_ERROR), "STUBJIT_BACKEND_ERROR");
  CHECK_STR(stubjit_status_name(STUBJIT_LAUNCH_ERROR), "STUBJIT_LAUNCH_ERROR");
  CHECK_STR(stubjit_status_name(STUBJIT_FIELD_ERROR), "STUBJIT_FIELD_ERROR");
  CHECK_STR(stubjit_status_name(STUBJIT_INVALID_ARGUMENT), "STUBJIT_INVALID_ARGUMENT");
  CHECK_STR(stubjit_status_name(STUBJIT_OUT_OF_MEMORY), "STUBJIT_OUT_OF_MEMORY");
  CHECK_STR(stubjit_status_name(STUBJIT_INTERNAL_ERROR), "STUBJIT_INTERNAL_ERROR");
  CHECK_STR(stubjit_status_name((stubjit_status)14), "unknown status");
  CHECK_STR(stubjit_status_name((stubjit_status)-3), "unknown status");

  /* The _init functions: the sizes of this build, and the documented defaults. */
  memset(&options, 0x5a, sizeof options);
  stubjit_runtime_options_init(&options);
  CHECK_INT(options.struct_size, sizeof options);
  CHECK(options.backend == NULL || options.backend[0] == '\0');
  CHECK(options.target == NULL || options.target[0] == '\0');
  CHECK_INT(options.device, 0);
  CHECK_INT(options.disk_cache, 1);
  CHECK_INT(options.compile_timeout_ms, -1);
  CHECK_INT(options.memory_cache_stubs, -1);
  CHECK_INT(options.fuse_dimensions, 1);
  CHECK_INT(options.specialize_short_rows, 1);
  CHECK_INT(options.compiler_option_count, 0);
  CHECK_INT(options.include_directory_count, 0);

  memset(&source, 0x5a, sizeof source);
  stubjit_kernel_source_init(&source);
  CHECK_INT(source.struct_size, sizeof source);
  CHECK_INT(source.param_size, sizeof(stubjit_param));
  CHECK_INT(source.param_count, 0);
  CHECK(source.helpers == NULL || source.helpers[0] == '\0');
  CHECK(source.filter == NULL || source.filter[0] == '\0');
  CHECK_INT(source.specialize, STUBJIT_SPECIALIZE_AT_LAUNCH);

  memset(&launch, 0x5a, sizeof launch);
  stubjit_launch_options_init(&launch);
  CHECK_INT(launch.struct_size, sizeof launch);
  CHECK_INT(launch.mode, STUBJIT_MODE_AUTO);
  CHECK(launch.stream == NULL);
  CHECK_INT(launch.group_size, 0);
  CHECK_INT(launch.tile_rank, 0);
  CHECK_INT(launch.reduce_dimension, -1);
  CHECK_INT(launch.reduce_assign, 0);
}

/* --- a runtime, its counters, saxpy over allocated fields ------------------------- */

static void test_runtime_and_saxpy(void) {
  const int64_t extents[2] = {3, 5};
  enum { N = 15 };
  float x[N], y[N], expected[N], got[N];
  stubjit_device_limits limits;
  stubjit_cache_counters counters;
  stubjit_launch_summary summary;
  stubjit_arg args[3];
  stubjit_runtime runtime;
  stubjit_kernel saxpy;
  stubjit_field fx, fy;
  stubjit_domain domain;
  char detail[8];
  int available = -1;
  size_t length = 0;
  char* source = NULL;
  char small[8];
  int i;

  runtime = new_cpu_runtime();
  if (runtime == NULL) return;
  CHECK_STR(stubjit_runtime_backend(runtime), "cpu");
  CHECK(stubjit_runtime_target(runtime) != NULL && stubjit_runtime_target(runtime)[0] != '\0');
  CHECK(stubjit_runtime_compiler(runtime) != NULL && stubjit_runtime_compiler(runtime)[0] != '\0');
  CHECK_STR(stubjit_runtime_cache_dir(runtime), ""); /* memory-only */
  CHECK_STR(stubjit_runtime_backend(NULL), "");

  memset(&limits, 0, sizeof limits);
  CHECK_OK(stubjit_runtime_limits(runtime, &limits));
  for (i = 0; i < 3; ++i) {
    CHECK(limits.max_grid[i] > 0);
    CHECK(limits.max_block[i] > 0);
  }
  CHECK(limits.max_threads_per_block > 0);
  CHECK_INT(limits.warp_size, 1); /* the CPU backend: one lane */

  CHECK_OK(stubjit_backend_status("cpu", &available, detail, sizeof detail));
  CHECK_INT(available, 1);
  CHECK(memchr(detail, '\0', sizeof detail) != NULL); /* cut to 8 bytes, terminated */

  counters = counters_of(runtime);
  CHECK_INT(counters.compiles, 0);
  CHECK_INT(counters.compile_failures, 0);
  CHECK_INT(counters.memory_hits, 0);
  CHECK_INT(counters.launches, 0);
  CHECK_INT(counters.disk_hits, 0);
  CHECK_INT(counters.disk_writes, 0);

  saxpy = new_saxpy(runtime);
  CHECK_STR(stubjit_kernel_name(saxpy), "saxpy");
  counters = counters_of(runtime);
  CHECK_INT(counters.compiles, 0); /* nothing compiles before a launch needs it */

  fx = new_field(runtime, STUBJIT_F32, 2, extents, STUBJIT_ROW_MAJOR);
  fy = new_field(runtime, STUBJIT_F32, 2, extents, STUBJIT_ROW_MAJOR);
  CHECK_INT(stubjit_field_type(fx), STUBJIT_F32);
  CHECK_INT(stubjit_field_rank(fx), 2);
  CHECK_INT(stubjit_field_size(fx), 15);
  CHECK_INT(stubjit_field_extent(fx, 0), 3);
  CHECK_INT(stubjit_field_extent(fx, 1), 5);
  CHECK_INT(stubjit_field_extent(fx, 2), -1);
  CHECK_INT(stubjit_field_stride(fx, 0), 5);
  CHECK_INT(stubjit_field_stride(fx, 1), 1);
  CHECK_INT(stubjit_field_stride(fx, -1), -1);

  /* Small integers and halves: a * x + y is exact, fused or not. */
  for (i = 0; i < N; ++i) {
    x[i] = (float)(i % 7) - 3.0f;
    y[i] = 0.5f * (float)i;
  }
  CHECK_OK(stubjit_field_copy_from_host(fx, x, sizeof x));
  CHECK_OK(stubjit_field_copy_from_host(fy, y, sizeof y));

  domain = new_box(2, extents, STUBJIT_ORDER_C);
  CHECK_INT(stubjit_domain_rank(domain), 2);
  CHECK_INT(stubjit_domain_size(domain), 15);
  CHECK_INT(stubjit_domain_size(NULL), 0);

  args[0] = stubjit_arg_f32(2.0f);
  args[1] = stubjit_arg_field(fx);
  args[2] = stubjit_arg_field(fy);

  /* The stub source a launch would compile holds the body. */
  CHECK_OK(stubjit_kernel_stub_source(saxpy, NULL, domain, args, 3, NULL, 0, &length));
  CHECK(length > 0);
  CHECK_OK(stubjit_kernel_stub_source(saxpy, NULL, domain, args, 3, small, sizeof small, &length));
  CHECK_INT(strlen(small), sizeof small - 1); /* cut, terminated */
  {
    static char whole[1 << 20];
    if (length < sizeof whole) {
      source = whole;
      CHECK_OK(
          stubjit_kernel_stub_source(saxpy, NULL, domain, args, 3, whole, sizeof whole, &length));
      CHECK_INT(strlen(whole), length);
      CHECK_CONTAINS(source, "y = a * x + y;");
    }
  }

  summary = empty_summary();
  CHECK_OK(stubjit_kernel_launch(saxpy, NULL, domain, args, 3, &summary));
  CHECK_INT(summary.compiled, 1);
  CHECK(summary.dispatches >= 1);
  counters = counters_of(runtime);
  CHECK_INT(counters.compiles, 1);
  CHECK_INT(counters.memory_hits, 0);
  CHECK_INT(counters.launches, 1);

  for (i = 0; i < N; ++i) expected[i] = 2.0f * x[i] + y[i];
  memset(got, 0, sizeof got);
  CHECK_OK(stubjit_field_copy_to_host(fy, got, sizeof got));
  for (i = 0; i < N; ++i) CHECK_F64(got[i], expected[i]);
  /* x is read only */
  CHECK_OK(stubjit_field_copy_to_host(fx, got, sizeof got));
  for (i = 0; i < N; ++i) CHECK_F64(got[i], x[i]);

  /* The same kernel over the same domain again: found in memory. */
  summary = empty_summary();
  CHECK_OK(stubjit_kernel_launch(saxpy, NULL, domain, args, 3, &summary));
  CHECK_INT(summary.compiled, 0);
  counters = counters_of(runtime);
  CHECK_INT(counters.compiles, 1);
  CHECK_INT(counters.memory_hits, 1);
  CHECK_INT(counters.launches, 2);
  for (i = 0; i < N; ++i) expected[i] = 2.0f * x[i] + expected[i];
  CHECK_OK(stubjit_field_copy_to_host(fy, got, sizeof got));
  for (i = 0; i < N; ++i) CHECK_F64(got[i], expected[i]);

  CHECK_OK(stubjit_runtime_synchronize(runtime));
  stubjit_domain_destroy(domain);
  stubjit_field_destroy(fx);
  stubjit_field_destroy(fy);
  stubjit_kernel_destroy(saxpy);
  stubjit_runtime_destroy(runtime);
}

/* --- caller-owned memory ---------------------------------------------------------- */

static void test_wrapped_memory(stubjit_runtime runtime) {
  const int64_t extents[2] = {3, 4};
  double row[12], col[12], big[48], expected[48];
  stubjit_kernel shift = new_shift(runtime);
  stubjit_field field = NULL;
  stubjit_domain domain;
  stubjit_arg arg;
  int i, j, k;

  /* Row-major, strides NULL: element (i, j) at i * 4 + j. */
  for (k = 0; k < 12; ++k) row[k] = 0.25 * k;
  CHECK_OK(stubjit_field_wrap(runtime, row, STUBJIT_F64, 2, extents, NULL, STUBJIT_ROW_MAJOR, 1,
                              &field));
  CHECK(stubjit_field_data(field) == (void*)row);
  CHECK_INT(stubjit_field_stride(field, 0), 4);
  CHECK_INT(stubjit_field_stride(field, 1), 1);
  domain = new_box(2, extents, STUBJIT_ORDER_C);
  arg = stubjit_arg_field(field);
  CHECK_OK(stubjit_kernel_launch(shift, NULL, domain, &arg, 1, NULL));
  CHECK_OK(stubjit_runtime_synchronize(runtime));
  for (i = 0; i < 3; ++i)
    for (j = 0; j < 4; ++j) CHECK_F64(row[i * 4 + j], 0.25 * (i * 4 + j) + 10.0 * i + j);
  stubjit_field_destroy(field);
  stubjit_domain_destroy(domain);

  /* Column-major, strides NULL: element (i, j) at i + 3 * j; launched over a
   * Fortran-order domain (dimension 0 fastest). */
  for (k = 0; k < 12; ++k) col[k] = -0.5 * k;
  field = NULL;
  CHECK_OK(stubjit_field_wrap(runtime, col, STUBJIT_F64, 2, extents, NULL, STUBJIT_COLUMN_MAJOR, 1,
                              &field));
  CHECK(stubjit_field_data(field) == (void*)col);
  CHECK_INT(stubjit_field_stride(field, 0), 1);
  CHECK_INT(stubjit_field_stride(field, 1), 3);
  domain = new_box(2, extents, STUBJIT_ORDER_FORTRAN);
  arg = stubjit_arg_field(field);
  CHECK_OK(stubjit_kernel_launch(shift, NULL, domain, &arg, 1, NULL));
  CHECK_OK(stubjit_runtime_synchronize(runtime));
  for (i = 0; i < 3; ++i)
    for (j = 0; j < 4; ++j) CHECK_F64(col[i + 3 * j], -0.5 * (i + 3 * j) + 10.0 * i + j);
  stubjit_field_destroy(field);
  stubjit_domain_destroy(domain);

  /* Explicit strides: every other element of every other row of a 6 x 8 array,
   * element (i, j) at 16 i + 2 j; the other elements stay as they were. */
  {
    const int64_t strides[2] = {16, 2};
    for (k = 0; k < 48; ++k) big[k] = expected[k] = 1000.0 + k;
    for (i = 0; i < 3; ++i)
      for (j = 0; j < 4; ++j) expected[16 * i + 2 * j] += 10.0 * i + j;
    field = NULL;
    CHECK_OK(stubjit_field_wrap(runtime, big, STUBJIT_F64, 2, extents, strides, STUBJIT_ROW_MAJOR,
                                1, &field));
    CHECK_INT(stubjit_field_stride(field, 0), 16);
    CHECK_INT(stubjit_field_stride(field, 1), 2);
    CHECK_INT(stubjit_field_size(field), 12);
    domain = new_box(2, extents, STUBJIT_ORDER_C);
    arg = stubjit_arg_field(field);
    CHECK_OK(stubjit_kernel_launch(shift, NULL, domain, &arg, 1, NULL));
    CHECK_OK(stubjit_runtime_synchronize(runtime));
    for (k = 0; k < 48; ++k) CHECK_F64(big[k], expected[k]);
    stubjit_field_destroy(field);
    stubjit_domain_destroy(domain);
  }

  /* A read-only wrap bound to the read-write parameter: refused, the array untouched. */
  for (k = 0; k < 12; ++k) row[k] = 7.0;
  field = NULL;
  CHECK_OK(stubjit_field_wrap(runtime, row, STUBJIT_F64, 2, extents, NULL, STUBJIT_ROW_MAJOR, 0,
                              &field));
  domain = new_box(2, extents, STUBJIT_ORDER_C);
  arg = stubjit_arg_field(field);
  CHECK_STATUS(stubjit_kernel_launch(shift, NULL, domain, &arg, 1, NULL), STUBJIT_ARGUMENT_ERROR);
  {
    const stubjit_error* error = CHECK_LAST_ERROR(STUBJIT_ARGUMENT_ERROR, USES_PARAMETER);
    if (error != NULL) CHECK_STR(error->parameter, "y");
  }
  for (k = 0; k < 12; ++k) CHECK_F64(row[k], 7.0);
  stubjit_field_destroy(field);
  stubjit_domain_destroy(domain);
  stubjit_kernel_destroy(shift);
}

/* --- a Fortran-order domain from loops, with a negative step ---------------------- */

static void test_fortran_loops(stubjit_runtime runtime) {
  /* do j = 4, 1, -1; do i = 1, 3: out(i, j) = 100 i + j over a column-major
   * out(0:4, 0:4) the caller owns. In Fortran order the loops are given as written,
   * outermost first, and dimension 0 of the domain (p[0]) is the innermost loop, i. */
  const stubjit_loop loops[2] = {{4, 1, -1}, {1, 3, 1}};
  const int64_t extents[2] = {5, 5};
  double out[25], expected[25];
  stubjit_param params[2];
  stubjit_kernel kernel;
  stubjit_field field = NULL;
  stubjit_domain domain = NULL;
  stubjit_arg arg;
  int64_t i, j, visited = 0;
  int k;

  params[0] = stubjit_param_index("p");
  params[1] = stubjit_param_inout("out", STUBJIT_F64, 2);
  kernel = new_kernel(runtime, "fortran_nest", params, 2,
                      "out(p[0], p[1]) = 100.0 * double(p[0]) + double(p[1]);");

  for (k = 0; k < 25; ++k) out[k] = expected[k] = -1.0;
  for (j = 4; j >= 1; --j)
    for (i = 1; i <= 3; ++i) {
      expected[i + 5 * j] = 100.0 * (double)i + (double)j;
      ++visited;
    }

  CHECK_OK(stubjit_domain_from_loops(2, loops, STUBJIT_ORDER_FORTRAN, &domain));
  CHECK_INT(stubjit_domain_rank(domain), 2);
  CHECK_INT(stubjit_domain_size(domain), visited);
  CHECK_OK(stubjit_field_wrap(runtime, out, STUBJIT_F64, 2, extents, NULL, STUBJIT_COLUMN_MAJOR, 1,
                              &field));
  arg = stubjit_arg_field(field);
  CHECK_OK(stubjit_kernel_launch(kernel, NULL, domain, &arg, 1, NULL));
  CHECK_OK(stubjit_runtime_synchronize(runtime));
  for (k = 0; k < 25; ++k) {
    if (out[k] != expected[k])
      printf("  fortran_nest: out(%d, %d) = %g, expected %g\n", k % 5, k / 5, out[k], expected[k]);
    CHECK_F64(out[k], expected[k]);
  }
  stubjit_field_destroy(field);
  stubjit_domain_destroy(domain);
  stubjit_kernel_destroy(kernel);
}

/* --- a rank-5 strided view -------------------------------------------------------- */

static void test_rank5_view(stubjit_runtime runtime) {
  /* base(0:2, 0:3, 0:4, 0:1, 0:2) row-major: strides 120, 30, 6, 3, 1. The view:
   * base(:, :, 4:0:-2, :, :) with dimensions 1 and 4 swapped, so that
   * view(a, b, c, d, e) = base(a, e, 4 - 2c, d, b). */
  const int64_t extents[5] = {3, 4, 5, 2, 3};
  const int64_t view_extents[5] = {3, 3, 3, 2, 4};
  const int64_t view_strides[5] = {120, 1, -12, 3, 30};
  enum { SIZE = 3 * 4 * 5 * 2 * 3 };
  static double init[SIZE], expected[SIZE], got[SIZE];
  stubjit_param params[2];
  stubjit_kernel kernel;
  stubjit_field base, section = NULL, view = NULL;
  stubjit_domain domain;
  stubjit_arg arg;
  int a, b, c, d, e, k;

  params[0] = stubjit_param_index("p");
  params[1] = stubjit_param_inout("v", STUBJIT_F64, 0);
  kernel = new_kernel(runtime, "mark5", params, 2,
                      "v = 2.0 * v + double(p[0] * 10000 + p[1] * 1000 + p[2] * 100 + "
                      "p[3] * 10 + p[4]);");

  base = new_field(runtime, STUBJIT_F64, 5, extents, STUBJIT_ROW_MAJOR);
  for (k = 0; k < SIZE; ++k) init[k] = expected[k] = 0.5 * k;
  CHECK_OK(stubjit_field_copy_from_host(base, init, sizeof init));

  CHECK_OK(stubjit_field_section(base, 2, 4, 0, -2, &section));
  CHECK_OK(stubjit_field_transpose(section, 1, 4, &view));
  CHECK_INT(stubjit_field_rank(view), 5);
  for (k = 0; k < 5; ++k) {
    CHECK_INT(stubjit_field_extent(view, k), view_extents[k]);
    CHECK_INT(stubjit_field_stride(view, k), view_strides[k]);
  }
  CHECK(stubjit_field_data(view) == (void*)((double*)stubjit_field_data(base) + 4 * 6));

  for (a = 0; a < 3; ++a)
    for (b = 0; b < 3; ++b)
      for (c = 0; c < 3; ++c)
        for (d = 0; d < 2; ++d)
          for (e = 0; e < 4; ++e) {
            const int at = a * 120 + e * 30 + (4 - 2 * c) * 6 + d * 3 + b;
            expected[at] = 2.0 * init[at] + (a * 10000 + b * 1000 + c * 100 + d * 10 + e);
          }

  domain = new_box(5, view_extents, STUBJIT_ORDER_C);
  arg = stubjit_arg_field(view);
  CHECK_OK(stubjit_kernel_launch(kernel, NULL, domain, &arg, 1, NULL));
  CHECK_OK(stubjit_field_copy_to_host(base, got, sizeof got));
  for (k = 0; k < SIZE; ++k) CHECK_F64(got[k], expected[k]);

  /* The view itself is not dense: a whole-field copy of it is refused. */
  CHECK_STATUS(stubjit_field_copy_to_host(view, got, 3 * 3 * 3 * 2 * 4 * sizeof(double)),
               STUBJIT_FIELD_ERROR);
  CHECK_LAST_ERROR(STUBJIT_FIELD_ERROR, 0);

  stubjit_domain_destroy(domain);
  stubjit_field_destroy(view);
  stubjit_field_destroy(section);
  stubjit_field_destroy(base);
  stubjit_kernel_destroy(kernel);
}

/* --- a reduce ---------------------------------------------------------------------- */

static void test_reduce(stubjit_runtime runtime) {
  const int64_t extents[2] = {6, 7};
  double x[42], sum = 0.0, total = 0.0, start = 123.0;
  int64_t unused_extent = 1;
  stubjit_param params[2];
  stubjit_launch_options options;
  stubjit_launch_summary summary;
  stubjit_kernel kernel;
  stubjit_field fx, result;
  stubjit_domain domain;
  stubjit_arg args[2];
  int k;

  params[0] = stubjit_param_in("x", STUBJIT_F64, 0);
  params[1] = stubjit_param_result("s", STUBJIT_F64, STUBJIT_COMBINE_SUM, 0);
  kernel = new_kernel(runtime, "total", params, 2, "s = x;");

  /* Quarters: every partial sum is exact, in whatever order the launch adds. */
  for (k = 0; k < 42; ++k) {
    x[k] = 0.25 * (double)((k * 7) % 11) - 1.0;
    sum += x[k];
  }
  fx = new_field(runtime, STUBJIT_F64, 2, extents, STUBJIT_ROW_MAJOR);
  CHECK_OK(stubjit_field_copy_from_host(fx, x, sizeof x));
  result = new_field(runtime, STUBJIT_F64, 0, &unused_extent, STUBJIT_ROW_MAJOR);
  CHECK_INT(stubjit_field_rank(result), 0);
  CHECK_INT(stubjit_field_size(result), 1);
  CHECK_OK(stubjit_field_copy_from_host(result, &start, sizeof start));

  domain = new_box(2, extents, STUBJIT_ORDER_C);
  args[0] = stubjit_arg_field(fx);
  args[1] = stubjit_arg_field(result);
  stubjit_launch_options_init(&options);
  options.reduce_assign = 1;
  summary = empty_summary();
  CHECK_OK(stubjit_kernel_launch(kernel, &options, domain, args, 2, &summary));
  CHECK(summary.reduce_parts >= 1);
  CHECK_OK(stubjit_field_copy_to_host(result, &total, sizeof total));
  CHECK_F64(total, sum);

  /* Without reduce_assign: combined with what the field holds. */
  CHECK_OK(stubjit_field_copy_from_host(result, &start, sizeof start));
  CHECK_OK(stubjit_kernel_launch(kernel, NULL, domain, args, 2, NULL));
  CHECK_OK(stubjit_field_copy_to_host(result, &total, sizeof total));
  CHECK_F64(total, start + sum);

  stubjit_domain_destroy(domain);
  stubjit_field_destroy(result);
  stubjit_field_destroy(fx);
  stubjit_kernel_destroy(kernel);
}

/* --- streams ----------------------------------------------------------------------- */

/* saxpy (y = a*x + y) ready to launch: its kernel, x and y filled from the host (n
 * floats each), a box of n and the arguments. */
typedef struct {
  stubjit_kernel kernel;
  stubjit_field x, y;
  stubjit_domain domain;
  stubjit_arg args[3];
} saxpy_launch;

static saxpy_launch saxpy_setup(stubjit_runtime runtime, int64_t n, float a, const float* x,
                                const float* y) {
  saxpy_launch s;
  s.kernel = new_saxpy(runtime);
  s.x = new_field(runtime, STUBJIT_F32, 1, &n, STUBJIT_ROW_MAJOR);
  s.y = new_field(runtime, STUBJIT_F32, 1, &n, STUBJIT_ROW_MAJOR);
  s.domain = new_box(1, &n, STUBJIT_ORDER_C);
  CHECK_OK(stubjit_field_copy_from_host(s.x, x, (size_t)n * sizeof *x));
  CHECK_OK(stubjit_field_copy_from_host(s.y, y, (size_t)n * sizeof *y));
  s.args[0] = stubjit_arg_f32(a);
  s.args[1] = stubjit_arg_field(s.x);
  s.args[2] = stubjit_arg_field(s.y);
  return s;
}

static void saxpy_release(saxpy_launch* s) {
  stubjit_domain_destroy(s->domain);
  stubjit_field_destroy(s->x);
  stubjit_field_destroy(s->y);
  stubjit_kernel_destroy(s->kernel);
}

static void test_streams(stubjit_runtime runtime) {
  float x[64], y[64], got[64];
  stubjit_launch_options options;
  stubjit_stream stream = NULL;
  saxpy_launch saxpy;
  int i;

  for (i = 0; i < 64; ++i) {
    x[i] = (float)i;
    y[i] = (float)(100 - i);
  }
  saxpy = saxpy_setup(runtime, 64, -3.0f, x, y);
  CHECK_OK(stubjit_stream_create(runtime, &stream));
  CHECK(stream != NULL);
  stubjit_launch_options_init(&options);
  options.stream = stream;
  CHECK_OK(stubjit_kernel_launch(saxpy.kernel, &options, saxpy.domain, saxpy.args, 3, NULL));
  CHECK_OK(stubjit_kernel_launch(saxpy.kernel, &options, saxpy.domain, saxpy.args, 3, NULL));
  CHECK_OK(stubjit_stream_synchronize(stream));
  CHECK_OK(stubjit_field_copy_to_host(saxpy.y, got, sizeof got));
  for (i = 0; i < 64; ++i) CHECK_F64(got[i], -3.0f * x[i] + (-3.0f * x[i] + y[i]));
  stubjit_stream_destroy(stream);
  saxpy_release(&saxpy);
}

/* --- errors ------------------------------------------------------------------------ */

/* y (16 floats of 5) unchanged and no launch counted beyond `launches`. */
static void check_nothing_ran_at(const char* file, int line, stubjit_runtime runtime,
                                 stubjit_field y, uint64_t launches) {
  float got[16];
  stubjit_cache_counters counters;
  int i, same = 1;
  memset(&counters, 0xff, sizeof counters);
  counters.struct_size = sizeof counters;
  check_status(file, line, "stubjit_runtime_counters", stubjit_runtime_counters(runtime, &counters),
               STUBJIT_OK);
  check_int(file, line, "counters.launches (nothing ran)", (long long)counters.launches,
            (long long)launches);
  memset(got, 0, sizeof got);
  check_status(file, line, "stubjit_field_copy_to_host(y)",
               stubjit_field_copy_to_host(y, got, sizeof got), STUBJIT_OK);
  for (i = 0; i < 16; ++i)
    if (got[i] != 5.0f) same = 0;
  check_int(file, line, "y unchanged (all 5)", same, 1);
}
#define CHECK_NOTHING_RAN(runtime, y, launches) \
  check_nothing_ran_at(__FILE__, __LINE__, (runtime), (y), (launches))

static void test_errors(void) {
  const int64_t n = 16;
  const int64_t four[4] = {2, 2, 2, 2};
  float ones[16], fives[16], sentinel[16];
  stubjit_runtime runtime = new_cpu_runtime();
  stubjit_kernel saxpy, kernel = NULL;
  stubjit_field x, y, field = NULL;
  stubjit_domain domain, domain4, bad_domain = NULL;
  stubjit_cache_counters before, after;
  const stubjit_error* error;
  stubjit_param params[3];
  stubjit_arg args[3];
  stubjit_launch_options options;
  stubjit_runtime_options runtime_options;
  stubjit_runtime other = NULL;
  int k;

  if (runtime == NULL) return;
  saxpy = new_saxpy(runtime);
  x = new_field(runtime, STUBJIT_F32, 1, &n, STUBJIT_ROW_MAJOR);
  y = new_field(runtime, STUBJIT_F32, 1, &n, STUBJIT_ROW_MAJOR);
  for (k = 0; k < 16; ++k) {
    ones[k] = 1.0f;
    fives[k] = 5.0f;
  }
  CHECK_OK(stubjit_field_copy_from_host(x, ones, sizeof ones));
  CHECK_OK(stubjit_field_copy_from_host(y, fives, sizeof fives));
  domain = new_box(1, &n, STUBJIT_ORDER_C);

  /* SIGNATURE_ERROR: a name that is no identifier; two parameters of one name. */
  params[0] = stubjit_param_inout("y", STUBJIT_F32, 0);
  CHECK_STATUS(create_kernel(runtime, "bad name", params, 1, "y = 1;", &kernel),
               STUBJIT_SIGNATURE_ERROR);
  CHECK_LAST_ERROR(STUBJIT_SIGNATURE_ERROR, 0);
  params[0] = stubjit_param_in("x", STUBJIT_F32, 0);
  params[1] = stubjit_param_inout("x", STUBJIT_F32, 0);
  CHECK_STATUS(create_kernel(runtime, "twice", params, 2, "x = 1;", &kernel),
               STUBJIT_SIGNATURE_ERROR);
  CHECK_LAST_ERROR(STUBJIT_SIGNATURE_ERROR, 0);
  CHECK_NOTHING_RAN(runtime, y, 0);

  /* ARGUMENT_ERROR: two arguments for three parameters (parameter ""). */
  args[0] = stubjit_arg_f32(2.0f);
  args[1] = stubjit_arg_field(x);
  args[2] = stubjit_arg_field(y);
  CHECK_STATUS(stubjit_kernel_launch(saxpy, NULL, domain, args, 2, NULL), STUBJIT_ARGUMENT_ERROR);
  error = CHECK_LAST_ERROR(STUBJIT_ARGUMENT_ERROR, USES_PARAMETER);
  if (error != NULL) {
    CHECK_STR(error->parameter, "");
    CHECK_STR(error->other_parameter, "");
  }
  CHECK_NOTHING_RAN(runtime, y, 0);

  /* ARGUMENT_ERROR: a double for the float scalar a. */
  args[0] = stubjit_arg_f64(2.0);
  CHECK_STATUS(stubjit_kernel_launch(saxpy, NULL, domain, args, 3, NULL), STUBJIT_ARGUMENT_ERROR);
  error = CHECK_LAST_ERROR(STUBJIT_ARGUMENT_ERROR, USES_PARAMETER);
  if (error != NULL) {
    CHECK_STR(error->parameter, "a");
    CHECK_STR(error->other_parameter, "");
  }
  CHECK_NOTHING_RAN(runtime, y, 0);

  /* ALIAS_ERROR: y bound to x (read) and y (read-write). */
  args[0] = stubjit_arg_f32(2.0f);
  args[1] = stubjit_arg_field(y);
  args[2] = stubjit_arg_field(y);
  CHECK_STATUS(stubjit_kernel_launch(saxpy, NULL, domain, args, 3, NULL), STUBJIT_ALIAS_ERROR);
  error = CHECK_LAST_ERROR(STUBJIT_ALIAS_ERROR, USES_PARAMETER);
  if (error != NULL) {
    CHECK_STR(error->parameter, "y");
    CHECK_STR(error->other_parameter, "x");
  }
  CHECK_NOTHING_RAN(runtime, y, 0);
  args[1] = stubjit_arg_field(x);

  /* PLAN_ERROR: direct mode cannot cover a rank-4 domain. */
  {
    float four_in[16], four_out[16];
    params[0] = stubjit_param_inout("v", STUBJIT_F32, 0);
    kernel = new_kernel(runtime, "bump", params, 1, "v = v + 1.0f;");
    field = new_field(runtime, STUBJIT_F32, 4, four, STUBJIT_ROW_MAJOR);
    for (k = 0; k < 16; ++k) four_in[k] = (float)k;
    CHECK_OK(stubjit_field_copy_from_host(field, four_in, sizeof four_in));
    domain4 = new_box(4, four, STUBJIT_ORDER_C);
    stubjit_launch_options_init(&options);
    options.mode = STUBJIT_MODE_DIRECT;
    args[0] = stubjit_arg_field(field);
    CHECK_STATUS(stubjit_kernel_launch(kernel, &options, domain4, args, 1, NULL),
                 STUBJIT_PLAN_ERROR);
    error = CHECK_LAST_ERROR(STUBJIT_PLAN_ERROR, USES_LIMIT);
    if (error != NULL) {
      CHECK(error->limit != NULL && error->limit[0] != '\0');
      CHECK_STR(error->limit, "rank"); /* as the C++ suite finds (tests/cpu/errors_test) */
    }
    CHECK_OK(stubjit_field_copy_to_host(field, four_out, sizeof four_out));
    for (k = 0; k < 16; ++k) CHECK_F64(four_out[k], four_in[k]);
    CHECK_NOTHING_RAN(runtime, y, 0);
    /* The same domain in the planner's own mode runs. */
    CHECK_OK(stubjit_kernel_launch(kernel, NULL, domain4, args, 1, NULL));
    CHECK_OK(stubjit_field_copy_to_host(field, four_out, sizeof four_out));
    for (k = 0; k < 16; ++k) CHECK_F64(four_out[k], four_in[k] + 1.0f);
    stubjit_domain_destroy(domain4);
    stubjit_field_destroy(field);
    stubjit_kernel_destroy(kernel);
    kernel = NULL;
    field = NULL;
  }

  /* COMPILE_ERROR: a syntax error on the body's second line. Creating the kernel
   * compiles nothing; each launch fails, the compiler ran once. */
  params[0] = stubjit_param_scalar("a", STUBJIT_F32);
  params[1] = stubjit_param_in("x", STUBJIT_F32, 0);
  params[2] = stubjit_param_inout("y", STUBJIT_F32, 0);
  kernel = new_kernel(runtime, "broken", params, 3, "float t = a * x;\ny = t + ;");
  before = counters_of(runtime);
  args[0] = stubjit_arg_f32(2.0f);
  args[1] = stubjit_arg_field(x);
  args[2] = stubjit_arg_field(y);
  for (k = 0; k < 2; ++k) {
    CHECK_STATUS(stubjit_kernel_launch(kernel, NULL, domain, args, 3, NULL), STUBJIT_COMPILE_ERROR);
    error = CHECK_LAST_ERROR(STUBJIT_COMPILE_ERROR, USES_COMPILE);
    if (error != NULL) {
      CHECK_STR(error->kernel, "broken");
      CHECK_CONTAINS(error->log, "broken.body:2");
      CHECK(error->source != NULL && error->source[0] != '\0');
      CHECK_CONTAINS(error->source, "y = t + ;");
    }
  }
  after = counters_of(runtime);
  CHECK_INT(after.compile_failures, before.compile_failures + 1);
  CHECK_INT(after.compiles, before.compiles);
  CHECK_NOTHING_RAN(runtime, y, 1);
  stubjit_kernel_destroy(kernel);
  kernel = NULL;

  /* DOMAIN_ERROR: a step of 0 in dimension 1. */
  {
    const stubjit_dim dims[2] = {{0, 3, 1}, {0, 4, 0}};
    const stubjit_dim negative[3] = {{0, 3, 1}, {0, 4, 1}, {0, -2, 1}};
    const stubjit_loop loops[2] = {{1, 3, 1}, {1, 4, 0}};
    CHECK_STATUS(stubjit_domain_create(2, dims, STUBJIT_ORDER_C, &bad_domain),
                 STUBJIT_DOMAIN_ERROR);
    error = CHECK_LAST_ERROR(STUBJIT_DOMAIN_ERROR, USES_DIMENSION);
    if (error != NULL) CHECK_INT(error->dimension, 1);
    CHECK_STATUS(stubjit_domain_create(3, negative, STUBJIT_ORDER_C, &bad_domain),
                 STUBJIT_DOMAIN_ERROR);
    error = CHECK_LAST_ERROR(STUBJIT_DOMAIN_ERROR, USES_DIMENSION);
    if (error != NULL) CHECK_INT(error->dimension, 2);
    /* Rank 0 and rank 9: the domain as a whole. */
    CHECK_STATUS(stubjit_domain_create(0, dims, STUBJIT_ORDER_C, &bad_domain),
                 STUBJIT_DOMAIN_ERROR);
    error = CHECK_LAST_ERROR(STUBJIT_DOMAIN_ERROR, USES_DIMENSION);
    if (error != NULL) CHECK_INT(error->dimension, -1);
    /* The second loop, the outer one as written, is dimension 0 in Fortran order. */
    CHECK_STATUS(stubjit_domain_from_loops(2, loops, STUBJIT_ORDER_FORTRAN, &bad_domain),
                 STUBJIT_DOMAIN_ERROR);
    error = CHECK_LAST_ERROR(STUBJIT_DOMAIN_ERROR, USES_DIMENSION);
    if (error != NULL) CHECK_INT(error->dimension, 0);
    CHECK_STATUS(stubjit_domain_from_loops(2, loops, STUBJIT_ORDER_C, &bad_domain),
                 STUBJIT_DOMAIN_ERROR);
    error = CHECK_LAST_ERROR(STUBJIT_DOMAIN_ERROR, USES_DIMENSION);
    if (error != NULL) CHECK_INT(error->dimension, 1);
  }

  /* FIELD_ERROR: a copy of 15 floats from a field of 16; the host buffer untouched. */
  for (k = 0; k < 16; ++k) sentinel[k] = -9.0f;
  CHECK_STATUS(stubjit_field_copy_to_host(y, sentinel, 15 * sizeof(float)), STUBJIT_FIELD_ERROR);
  CHECK_LAST_ERROR(STUBJIT_FIELD_ERROR, 0);
  for (k = 0; k < 16; ++k) CHECK_F64(sentinel[k], -9.0f);
  CHECK_STATUS(stubjit_field_copy_from_host(y, sentinel, 17 * sizeof(float)), STUBJIT_FIELD_ERROR);
  CHECK_LAST_ERROR(STUBJIT_FIELD_ERROR, 0);
  CHECK_STATUS(stubjit_field_section(y, 1, 0, 1, 1, &field), STUBJIT_FIELD_ERROR);
  CHECK_LAST_ERROR(STUBJIT_FIELD_ERROR, 0);
  CHECK_NOTHING_RAN(runtime, y, 1);

  /* BACKEND_ERROR: a backend no one registered (Runtime throws BackendError, "unknown
   * backend '...'"). */
  stubjit_runtime_options_init(&runtime_options);
  runtime_options.backend = "nonexistent";
  runtime_options.disk_cache = 0;
  CHECK_STATUS(stubjit_runtime_create(&runtime_options, &other), STUBJIT_BACKEND_ERROR);
  error = CHECK_LAST_ERROR(STUBJIT_BACKEND_ERROR, 0);
  if (error != NULL) {
    CHECK_CONTAINS(error->message, "unknown backend");
    CHECK_CONTAINS(error->message, "nonexistent");
  }

  /* INVALID_ARGUMENT: NULL out pointers, NULL handles, enum values out of range. */
  stubjit_runtime_options_init(&runtime_options);
  runtime_options.backend = "cpu";
  runtime_options.disk_cache = 0;
  CHECK_STATUS(stubjit_runtime_create(&runtime_options, NULL), STUBJIT_INVALID_ARGUMENT);
  CHECK_LAST_ERROR(STUBJIT_INVALID_ARGUMENT, 0);
  CHECK_STATUS(stubjit_field_allocate(NULL, STUBJIT_F32, 1, &n, STUBJIT_ROW_MAJOR, &field),
               STUBJIT_INVALID_ARGUMENT);
  CHECK_LAST_ERROR(STUBJIT_INVALID_ARGUMENT, 0);
  CHECK_STATUS(stubjit_field_allocate(runtime, STUBJIT_F32, 1, &n, STUBJIT_ROW_MAJOR, NULL),
               STUBJIT_INVALID_ARGUMENT);
  CHECK_LAST_ERROR(STUBJIT_INVALID_ARGUMENT, 0);
  CHECK_STATUS(stubjit_field_allocate(runtime, (stubjit_type)99, 1, &n, STUBJIT_ROW_MAJOR, &field),
               STUBJIT_INVALID_ARGUMENT);
  CHECK_LAST_ERROR(STUBJIT_INVALID_ARGUMENT, 0);
  CHECK_STATUS(stubjit_field_allocate(runtime, STUBJIT_F32, 1, &n, (stubjit_layout)7, &field),
               STUBJIT_INVALID_ARGUMENT);
  CHECK_LAST_ERROR(STUBJIT_INVALID_ARGUMENT, 0);
  {
    const stubjit_dim dims[1] = {{0, 4, 1}};
    CHECK_STATUS(stubjit_domain_create(1, dims, (stubjit_order)5, &bad_domain),
                 STUBJIT_INVALID_ARGUMENT);
    CHECK_LAST_ERROR(STUBJIT_INVALID_ARGUMENT, 0);
    CHECK_STATUS(stubjit_domain_create(1, dims, STUBJIT_ORDER_C, NULL), STUBJIT_INVALID_ARGUMENT);
    CHECK_LAST_ERROR(STUBJIT_INVALID_ARGUMENT, 0);
  }
  CHECK_STATUS(stubjit_runtime_counters(runtime, NULL), STUBJIT_INVALID_ARGUMENT);
  CHECK_LAST_ERROR(STUBJIT_INVALID_ARGUMENT, 0);
  CHECK_STATUS(stubjit_runtime_limits(NULL, NULL), STUBJIT_INVALID_ARGUMENT);
  CHECK_LAST_ERROR(STUBJIT_INVALID_ARGUMENT, 0);
  CHECK_STATUS(stubjit_field_copy_to_host(NULL, sentinel, sizeof sentinel),
               STUBJIT_INVALID_ARGUMENT);
  CHECK_LAST_ERROR(STUBJIT_INVALID_ARGUMENT, 0);
  CHECK_STATUS(stubjit_stream_create(NULL, NULL), STUBJIT_INVALID_ARGUMENT);
  CHECK_LAST_ERROR(STUBJIT_INVALID_ARGUMENT, 0);
  CHECK_STATUS(create_kernel(runtime, "k", NULL, 1, "", &kernel), STUBJIT_INVALID_ARGUMENT);
  CHECK_LAST_ERROR(STUBJIT_INVALID_ARGUMENT, 0);
  args[0] = stubjit_arg_f32(2.0f);
  args[1] = stubjit_arg_field(x);
  args[2] = stubjit_arg_field(y);
  CHECK_STATUS(stubjit_kernel_launch(NULL, NULL, domain, args, 3, NULL), STUBJIT_INVALID_ARGUMENT);
  CHECK_LAST_ERROR(STUBJIT_INVALID_ARGUMENT, 0);
  CHECK_STATUS(stubjit_kernel_launch(saxpy, NULL, NULL, args, 3, NULL), STUBJIT_INVALID_ARGUMENT);
  CHECK_LAST_ERROR(STUBJIT_INVALID_ARGUMENT, 0);
  CHECK_STATUS(stubjit_kernel_launch(saxpy, NULL, domain, NULL, 3, NULL), STUBJIT_INVALID_ARGUMENT);
  CHECK_LAST_ERROR(STUBJIT_INVALID_ARGUMENT, 0);
  stubjit_launch_options_init(&options);
  options.mode = (stubjit_mode)9;
  CHECK_STATUS(stubjit_kernel_launch(saxpy, &options, domain, args, 3, NULL),
               STUBJIT_INVALID_ARGUMENT);
  CHECK_LAST_ERROR(STUBJIT_INVALID_ARGUMENT, 0);
  args[0].type = (stubjit_type)99;
  CHECK_STATUS(stubjit_kernel_launch(saxpy, NULL, domain, args, 3, NULL), STUBJIT_INVALID_ARGUMENT);
  CHECK_LAST_ERROR(STUBJIT_INVALID_ARGUMENT, 0);
  args[0] = stubjit_arg_f32(2.0f);
  args[0].kind = (stubjit_arg_kind)7;
  CHECK_STATUS(stubjit_kernel_launch(saxpy, NULL, domain, args, 3, NULL), STUBJIT_INVALID_ARGUMENT);
  CHECK_LAST_ERROR(STUBJIT_INVALID_ARGUMENT, 0);
  params[0] = stubjit_param_inout("y", (stubjit_type)99, 0);
  CHECK_STATUS(create_kernel(runtime, "k", params, 1, "", &kernel), STUBJIT_INVALID_ARGUMENT);
  CHECK_LAST_ERROR(STUBJIT_INVALID_ARGUMENT, 0);
  CHECK_NOTHING_RAN(runtime, y, 1);

  /* A successful call leaves the last error; stubjit_clear_error forgets it. */
  CHECK_INT(stubjit_domain_rank(domain), 1);
  CHECK_OK(stubjit_runtime_synchronize(runtime));
  error = stubjit_last_error();
  CHECK(error != NULL && error->status == STUBJIT_INVALID_ARGUMENT);
  stubjit_clear_error();
  error = stubjit_last_error();
  CHECK(error != NULL);
  if (error != NULL) {
    CHECK_INT(error->status, STUBJIT_OK);
    CHECK_STR(error->message, "");
  }

  /* After all of it, the kernel still runs: y = 2 * 1 + 5. */
  args[0] = stubjit_arg_f32(2.0f);
  CHECK_OK(stubjit_kernel_launch(saxpy, NULL, domain, args, 3, NULL));
  CHECK_OK(stubjit_field_copy_to_host(y, sentinel, sizeof sentinel));
  for (k = 0; k < 16; ++k) CHECK_F64(sentinel[k], 2.0f * ones[k] + fives[k]);

  stubjit_domain_destroy(domain);
  stubjit_field_destroy(x);
  stubjit_field_destroy(y);
  stubjit_kernel_destroy(saxpy);
  stubjit_runtime_destroy(runtime);
}

/* --- lifetimes --------------------------------------------------------------------- */

static void test_lifetimes(void) {
  const int64_t n = 8;
  float values[8], got[8];
  stubjit_runtime runtime = new_cpu_runtime();
  stubjit_param param;
  stubjit_kernel kernel;
  stubjit_field field, view = NULL;
  stubjit_stream stream = NULL;
  stubjit_domain domain;
  stubjit_launch_options options;
  stubjit_arg arg;
  int i;

  /* NULL is ignored by every _destroy. */
  stubjit_runtime_destroy(NULL);
  stubjit_kernel_destroy(NULL);
  stubjit_field_destroy(NULL);
  stubjit_stream_destroy(NULL);
  stubjit_domain_destroy(NULL);

  if (runtime == NULL) return;
  param = stubjit_param_inout("v", STUBJIT_F32, 0);
  kernel = new_kernel(runtime, "increment", &param, 1, "v = v + 1.0f;");
  field = new_field(runtime, STUBJIT_F32, 1, &n, STUBJIT_ROW_MAJOR);
  CHECK_OK(stubjit_stream_create(runtime, &stream));
  CHECK_OK(stubjit_field_section(field, 0, 7, 0, -1, &view)); /* reversed */
  domain = new_box(1, &n, STUBJIT_ORDER_C);

  /* The runtime handle goes first: the field, view, kernel and stream keep it alive. */
  stubjit_runtime_destroy(runtime);
  runtime = NULL;

  for (i = 0; i < 8; ++i) values[i] = 3.0f * (float)i;
  CHECK_OK(stubjit_field_copy_from_host(field, values, sizeof values));
  stubjit_launch_options_init(&options);
  options.stream = stream;
  arg = stubjit_arg_field(field);
  CHECK_OK(stubjit_kernel_launch(kernel, &options, domain, &arg, 1, NULL));
  CHECK_OK(stubjit_stream_synchronize(stream));
  stubjit_field_destroy(field); /* the view still holds the memory */
  arg = stubjit_arg_field(view);
  CHECK_OK(stubjit_kernel_launch(kernel, NULL, domain, &arg, 1, NULL));
  stubjit_kernel_destroy(kernel);
  stubjit_stream_destroy(stream);
  memset(got, 0, sizeof got);
  /* A reversed section is not dense: read the memory through a section that reverses it
   * back (dense, the original order). */
  {
    stubjit_field forward = NULL;
    CHECK_OK(stubjit_field_section(view, 0, 7, 0, -1, &forward));
    CHECK_OK(stubjit_field_copy_to_host(forward, got, sizeof got));
    stubjit_field_destroy(forward);
  }
  for (i = 0; i < 8; ++i) CHECK_F64(got[i], 3.0f * (float)i + 2.0f);
  stubjit_field_destroy(view);
  stubjit_domain_destroy(domain);
}

/* Kernel::reduce to a host value, Kernel::repeat with a double buffer, Kernel::binary,
 * asynchronous copies, and planning with limits of the caller's. */
static void test_host_reduce_repeat_binary(stubjit_runtime runtime) {
  /* reduce: the sum of x * x over a 9 x 4 domain, returned to the host. */
  {
    const int64_t extents[2] = {9, 4};
    double x[36], want = 0, got = -1;
    int i;
    stubjit_param params[2];
    stubjit_kernel sum;
    stubjit_field fx = NULL;
    stubjit_domain domain = new_box(2, extents, STUBJIT_ORDER_C);
    stubjit_arg arg;
    stubjit_launch_summary summary = empty_summary();
    for (i = 0; i < 36; ++i) {
      x[i] = (double)(i % 7) - 2.5;
      want += x[i] * x[i];
    }
    params[0] = stubjit_param_in("x", STUBJIT_F64, 0);
    params[1] = stubjit_param_result("s", STUBJIT_F64, STUBJIT_COMBINE_SUM, 0);
    sum = new_kernel(runtime, "square_sum", params, 2, "s = x * x;");
    CHECK_OK(
        stubjit_field_wrap(runtime, x, STUBJIT_F64, 2, extents, NULL, STUBJIT_ROW_MAJOR, 0, &fx));
    arg = stubjit_arg_field(fx);
    CHECK_OK(stubjit_kernel_reduce(sum, NULL, domain, &arg, 1, STUBJIT_F64, &got, &summary));
    CHECK_F64(got, want);
    CHECK(summary.reduce_parts >= 1);
    /* The result's element type is double: asking for a float is an argument error,
     * and the value is left as it was. */
    {
      float wrong_type = 7.0f;
      CHECK_STATUS(
          stubjit_kernel_reduce(sum, NULL, domain, &arg, 1, STUBJIT_F32, &wrong_type, NULL),
          STUBJIT_ARGUMENT_ERROR);
      CHECK(wrong_type == 7.0f);
    }
    CHECK_STATUS(stubjit_kernel_reduce(sum, NULL, domain, &arg, 1, STUBJIT_F64, NULL, NULL),
                 STUBJIT_INVALID_ARGUMENT);
    stubjit_field_destroy(fx);
    stubjit_domain_destroy(domain);
    stubjit_kernel_destroy(sum);
  }
  /* repeat: halve every element of a (through b, a double buffer) until all are below 1;
   * the flag says whether any index still changed something. */
  {
    const int64_t n = 5;
    double a[5] = {1.0, 3.0, 17.0, 0.5, 40.0}, b[5] = {0, 0, 0, 0, 0};
    int64_t want_iterations = 0;
    int i;
    stubjit_param params[3];
    stubjit_kernel halve;
    stubjit_field fa = NULL, fb = NULL;
    stubjit_domain domain = new_box(1, &n, STUBJIT_ORDER_C);
    stubjit_arg args[2];
    stubjit_field_pair swap;
    stubjit_repeat_options options;
    stubjit_repeat_summary summary;
    double reference[5];
    memcpy(reference, a, sizeof a);
    /* The same loop in C: iterate until an iteration changes nothing. */
    for (;;) {
      int changed = 0;
      ++want_iterations;
      for (i = 0; i < 5; ++i) {
        if (reference[i] >= 1.0) {
          reference[i] *= 0.5;
          changed = 1;
        }
      }
      if (!changed) break;
    }
    params[0] = stubjit_param_in("from", STUBJIT_F64, 0);
    params[1] = stubjit_param_inout("to", STUBJIT_F64, 0);
    params[2] = stubjit_param_result("changed", STUBJIT_BOOL, STUBJIT_COMBINE_ANY, 0);
    halve = new_kernel(runtime, "halve", params, 3,
                       "to = from >= 1.0 ? from * 0.5 : from; changed = from >= 1.0;");
    CHECK_OK(stubjit_field_wrap(runtime, a, STUBJIT_F64, 1, &n, NULL, STUBJIT_ROW_MAJOR, 1, &fa));
    CHECK_OK(stubjit_field_wrap(runtime, b, STUBJIT_F64, 1, &n, NULL, STUBJIT_ROW_MAJOR, 1, &fb));
    args[0] = stubjit_arg_field(fa);
    args[1] = stubjit_arg_field(fb);
    swap.first = fa;
    swap.second = fb;
    stubjit_repeat_options_init(&options);
    options.swaps = &swap;
    options.swap_count = 1;
    memset(&summary, 0, sizeof summary);
    summary.struct_size = sizeof summary;
    CHECK_OK(stubjit_kernel_repeat(halve, &options, domain, args, 2, &summary));
    CHECK_INT(summary.iterations, want_iterations);
    CHECK_INT(summary.converged, 1);
    /* The last iteration wrote into b when it ran untraded, into a when traded. */
    for (i = 0; i < 5; ++i) CHECK_F64(summary.swapped ? a[i] : b[i], reference[i]);
    /* max_iterations 1 from the first values again: one launch, not converged. */
    a[0] = 1.0;
    a[1] = 3.0;
    a[2] = 17.0;
    a[3] = 0.5;
    a[4] = 40.0;
    options.max_iterations = 1;
    CHECK_OK(stubjit_kernel_repeat(halve, &options, domain, args, 2, &summary));
    CHECK_INT(summary.iterations, 1);
    CHECK_INT(summary.converged, 0);
    stubjit_field_destroy(fa);
    stubjit_field_destroy(fb);
    stubjit_domain_destroy(domain);
    stubjit_kernel_destroy(halve);
  }
  /* binary: the compiled stub of saxpy over 8 points, an ELF shared object on the CPU. */
  {
    const int64_t n = 8;
    stubjit_kernel saxpy = new_saxpy(runtime);
    stubjit_field fx = new_field(runtime, STUBJIT_F32, 1, &n, STUBJIT_ROW_MAJOR);
    stubjit_field fy = new_field(runtime, STUBJIT_F32, 1, &n, STUBJIT_ROW_MAJOR);
    stubjit_domain domain = new_box(1, &n, STUBJIT_ORDER_C);
    stubjit_arg args[3];
    stubjit_binary binary = NULL;
    size_t size = 0;
    const unsigned char* bytes;
    args[0] = stubjit_arg_f32(1.0f);
    args[1] = stubjit_arg_field(fx);
    args[2] = stubjit_arg_field(fy);
    CHECK_OK(stubjit_kernel_binary(saxpy, NULL, domain, args, 3, &binary));
    bytes = (const unsigned char*)stubjit_binary_bytes(binary, &size);
    CHECK(size > 4);
    CHECK(bytes != NULL && bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' &&
          bytes[3] == 'F');
    CHECK_STR(stubjit_binary_format(binary), "elf-shared-object");
    CHECK_CONTAINS(stubjit_binary_entry(binary), "saxpy");
    CHECK_INT((long long)strlen(stubjit_binary_cache_name(binary)), 32);
    CHECK(strlen(stubjit_binary_target(binary)) > 0);
    stubjit_binary_destroy(binary);
    stubjit_binary_destroy(NULL);
    CHECK(stubjit_binary_bytes(NULL, &size) == NULL && size == 0);
    /* Asynchronous copies on a stream: in, then out, then synchronize. */
    {
      float in[8], out[8];
      int i;
      stubjit_stream stream = NULL;
      for (i = 0; i < 8; ++i) {
        in[i] = (float)(3 * i + 1);
        out[i] = -1.0f;
      }
      CHECK_OK(stubjit_stream_create(runtime, &stream));
      CHECK_OK(stubjit_field_copy_from_host_async(fx, in, sizeof in, stream));
      CHECK_OK(stubjit_field_copy_to_host_async(fx, out, sizeof out, stream));
      CHECK_OK(stubjit_stream_synchronize(stream));
      for (i = 0; i < 8; ++i) CHECK(out[i] == in[i]);
      CHECK_STATUS(stubjit_field_copy_to_host_async(fx, out, sizeof out - 4, stream),
                   STUBJIT_FIELD_ERROR);
      CHECK_STATUS(stubjit_field_copy_to_host_async(fx, out, sizeof out, NULL),
                   STUBJIT_INVALID_ARGUMENT);
      stubjit_stream_destroy(stream);
    }
    stubjit_field_destroy(fx);
    stubjit_field_destroy(fy);
    stubjit_domain_destroy(domain);
    stubjit_kernel_destroy(saxpy);
  }
}

/* Limits of the caller's: a grid of at most 4 groups along x with groups of 256 threads
 * cannot take a forced direct launch over 2048 points, and the plan error names the
 * limit; the planner's own choice covers it in several dispatches. */
static void test_caller_limits(void) {
  stubjit_runtime_options options;
  stubjit_device_limits limits;
  stubjit_runtime runtime = NULL;
  stubjit_kernel saxpy;
  stubjit_domain domain;
  stubjit_plan_summary plan;
  const int64_t n = 2048;
  stubjit_runtime_options_init(&options);
  options.backend = "cpu";
  options.disk_cache = 0;
  runtime = new_cpu_runtime();
  CHECK_OK(stubjit_runtime_limits(runtime, &limits));
  stubjit_runtime_destroy(runtime);
  runtime = NULL;
  limits.max_grid[0] = 4;
  options.limits = &limits;
  CHECK_OK(stubjit_runtime_create(&options, &runtime));
  if (runtime == NULL) return;
  saxpy = new_saxpy(runtime);
  domain = new_box(1, &n, STUBJIT_ORDER_C);
  memset(&plan, 0, sizeof plan);
  plan.struct_size = sizeof plan;
  CHECK_STATUS(stubjit_kernel_plan(saxpy, domain, STUBJIT_MODE_DIRECT, &plan), STUBJIT_PLAN_ERROR);
  CHECK_CONTAINS(stubjit_last_error()->limit, "max_grid");
  CHECK_INT((long long)stubjit_last_error()->limit_value, 4);
  CHECK_OK(stubjit_kernel_plan(saxpy, domain, STUBJIT_MODE_AUTO, &plan));
  CHECK(plan.dispatches >= 1);
  stubjit_domain_destroy(domain);
  stubjit_kernel_destroy(saxpy);
  stubjit_runtime_destroy(runtime);
}

/* STUBJIT_LAUNCH_ERROR: the fake CUDA driver (device memory is host memory, a launch
 * only counts) fails the second dispatch of a multi-dispatch launch; the error says one
 * of the plan's dispatches was issued. Skipped where the build has no fake driver or
 * the machine no NVRTC. */
static void test_launch_error_on_the_fake_cuda_driver(void) {
  const char* driver = getenv("STUBJIT_TEST_FAKE_CUDA_DRIVER");
  stubjit_runtime_options options;
  stubjit_runtime runtime = NULL;
  stubjit_param param;
  stubjit_kernel count;
  stubjit_field visits;
  stubjit_domain domain;
  stubjit_launch_options launch;
  stubjit_plan_summary plan;
  stubjit_arg arg;
  const int64_t extents[1] = {2048};
  stubjit_device_limits limits;
  char fail_at[32];
  if (driver == NULL || driver[0] == '\0') {
    printf("note: no fake CUDA driver in this build; STUBJIT_LAUNCH_ERROR not checked\n");
    return;
  }
  setenv("STUBJIT_CUDA_DRIVER_PATH", driver, 1);
  stubjit_runtime_options_init(&options);
  options.backend = "cuda";
  options.disk_cache = 0;
  options.fuse_dimensions = 0;
  /* A grid of at most 4 groups a dimension: 2048 points take two dispatches. */
  memset(&limits, 0, sizeof limits);
  limits.max_grid[0] = limits.max_grid[1] = limits.max_grid[2] = 4;
  limits.max_block[0] = limits.max_block[1] = 1024;
  limits.max_block[2] = 64;
  limits.max_threads_per_block = 1024;
  limits.warp_size = 32;
  limits.max_shared_bytes = 48 * 1024;
  options.limits = &limits;
  if (stubjit_runtime_create(&options, &runtime) != STUBJIT_OK) {
    printf("note: no CUDA runtime over the fake driver (%s); STUBJIT_LAUNCH_ERROR not checked\n",
           stubjit_last_error()->message);
    return;
  }
  param = stubjit_param_inout("visits", STUBJIT_I32, 0);
  count = new_kernel(runtime, "count", &param, 1, "visits += 1;");
  visits = new_field(runtime, STUBJIT_I32, 1, extents, STUBJIT_ROW_MAJOR);
  domain = new_box(1, extents, STUBJIT_ORDER_C);
  memset(&plan, 0, sizeof plan);
  plan.struct_size = sizeof plan;
  CHECK_OK(stubjit_kernel_plan(count, domain, STUBJIT_MODE_MULTI, &plan));
  CHECK(plan.dispatches >= 2);
  stubjit_launch_options_init(&launch);
  launch.mode = STUBJIT_MODE_MULTI;
  arg = stubjit_arg_field(visits);
  CHECK_OK(stubjit_kernel_launch(count, &launch, domain, &arg, 1, NULL)); /* compiles */
  /* The fake driver counts this process's cuLaunchKernel calls (the first launch's were
   * all of them): fail the second of the next launch. */
  snprintf(fail_at, sizeof fail_at, "%d", (int)plan.dispatches + 2);
  setenv("STUBJIT_FAKE_CUDA_FAIL_LAUNCH", fail_at, 1);
  CHECK_STATUS(stubjit_kernel_launch(count, &launch, domain, &arg, 1, NULL), STUBJIT_LAUNCH_ERROR);
  CHECK_INT((long long)stubjit_last_error()->dispatches_issued, 1);
  CHECK_INT((long long)stubjit_last_error()->dispatches_total, (long long)plan.dispatches);
  CHECK_CONTAINS(stubjit_last_error()->message, "CUDA_ERROR_LAUNCH_FAILED");
  unsetenv("STUBJIT_FAKE_CUDA_FAIL_LAUNCH");
  stubjit_domain_destroy(domain);
  stubjit_field_destroy(visits);
  stubjit_kernel_destroy(count);
  stubjit_runtime_destroy(runtime);
}

/* --- the structs of an older header: never written past their end ----------------- */

/* Every byte of buffer[from, to) is still `fill`. */
static int untouched(const unsigned char* buffer, size_t from, size_t to, unsigned char fill) {
  size_t i;
  for (i = from; i < to; ++i)
    if (buffer[i] != fill) return 0;
  return 1;
}

/* A program built with an older header has shorter structs: its _init (inline, with its
 * own sizeof) and the library's counters write no byte past them, and what the library
 * reads of them is what they hold. Shorter structs stand in here as a prefix of a
 * buffer whose bytes after it must keep their fill. */
static void test_older_struct_sizes(void) {
  enum { FILL = 0x5a };
  /* A union: aligned for each struct, and its bytes may be read as unsigned char. */
  static union {
    stubjit_runtime_options options;
    stubjit_kernel_source source;
    stubjit_launch_options launch;
    stubjit_repeat_options repeat;
    stubjit_cache_counters counters;
    unsigned char bytes[1024];
  } shorter;
  unsigned char* const buffer = shorter.bytes;
  stubjit_runtime_options* options = &shorter.options;
  stubjit_kernel_source* source = &shorter.source;
  stubjit_launch_options* launch = &shorter.launch;
  stubjit_repeat_options* repeat = &shorter.repeat;
  stubjit_cache_counters* counters = &shorter.counters;
  const size_t old_options = offsetof(stubjit_runtime_options, cache_layers);
  const size_t old_source = offsetof(stubjit_kernel_source, specialize);
  const size_t old_launch = offsetof(stubjit_launch_options, reduce_dimension);
  const size_t old_repeat = offsetof(stubjit_repeat_options, swaps);
  const size_t old_counters = offsetof(stubjit_cache_counters, layer_hits);
  stubjit_runtime runtime = NULL;

  memset(buffer, FILL, sizeof shorter.bytes);
  stubjit_runtime_options_init_sized(options, old_options);
  CHECK_INT(options->struct_size, old_options);
  CHECK_INT(options->disk_cache, 1);
  CHECK_INT(options->compile_timeout_ms, -1);
  CHECK(options->limits == NULL);
  CHECK(untouched(buffer, old_options, sizeof shorter.bytes, FILL));
  /* What the library reads of it: the members it holds, the defaults for the others
   * (the fill bytes where cache_layers would be are never read). */
  options->backend = "cpu";
  options->disk_cache = 0;
  CHECK_OK(stubjit_runtime_create(options, &runtime));
  CHECK(runtime != NULL);
  if (runtime != NULL) {
    CHECK_STR(stubjit_runtime_cache_dir(runtime), "");
    memset(buffer, FILL, sizeof shorter.bytes);
    counters->struct_size = old_counters;
    CHECK_OK(stubjit_runtime_counters(runtime, counters));
    CHECK_INT(counters->struct_size, old_counters);
    CHECK_INT(counters->compiles, 0);
    CHECK_INT(counters->disk_rejected, 0);
    CHECK(untouched(buffer, old_counters, sizeof shorter.bytes, FILL));
    memset(buffer, 0, sizeof shorter.bytes);
    CHECK_STATUS(stubjit_runtime_counters(runtime, counters), STUBJIT_INVALID_ARGUMENT);
    CHECK_CONTAINS(stubjit_last_error()->message, "struct_size");
    CHECK(untouched(buffer, 0, sizeof shorter.bytes, 0));
    stubjit_runtime_destroy(runtime);
  }

  memset(buffer, FILL, sizeof shorter.bytes);
  stubjit_kernel_source_init_sized(source, old_source, 40);
  CHECK_INT(source->struct_size, old_source);
  CHECK_INT(source->param_size, 40); /* the caller's stubjit_param, not the library's */
  CHECK_INT(source->param_count, 0);
  CHECK(untouched(buffer, old_source, sizeof shorter.bytes, FILL));

  memset(buffer, FILL, sizeof shorter.bytes);
  stubjit_launch_options_init_sized(launch, old_launch);
  CHECK_INT(launch->struct_size, old_launch);
  CHECK_INT(launch->mode, STUBJIT_MODE_AUTO);
  CHECK(untouched(buffer, old_launch, sizeof shorter.bytes, FILL));

  memset(buffer, FILL, sizeof shorter.bytes);
  stubjit_repeat_options_init_sized(repeat, old_repeat);
  CHECK_INT(repeat->struct_size, old_repeat);
  CHECK_INT(repeat->max_iterations, 1 << 20);
  CHECK(untouched(buffer, old_repeat, sizeof shorter.bytes, FILL));

  /* A size too small for struct_size, or no struct: nothing written. */
  memset(buffer, FILL, sizeof shorter.bytes);
  stubjit_runtime_options_init_sized(options, sizeof(size_t) - 1);
  stubjit_launch_options_init_sized(NULL, sizeof *launch);
  CHECK(untouched(buffer, 0, sizeof shorter.bytes, FILL));
  /* A larger size than the library's struct: the library's struct only. */
  stubjit_launch_options_init_sized(launch, sizeof shorter.bytes);
  CHECK_INT(launch->struct_size, sizeof *launch);
  CHECK(untouched(buffer, sizeof *launch, sizeof shorter.bytes, FILL));
}

/* --- cache layers -------------------------------------------------------------------- */

/* A new folder under $TMPDIR (else /tmp); its path in `path`. 0 when none was made. */
static int make_temp_dir(char* path, size_t size, const char* stem) {
  const char* base = getenv("TMPDIR");
  if (base == NULL || base[0] == '\0') base = "/tmp";
  if (snprintf(path, size, "%s/stubjit-capi-%s-XXXXXX", base, stem) >= (int)size) return 0;
  return mkdtemp(path) != NULL;
}

static void remove_tree(const char* path) {
  char command[1100];
  if (strchr(path, '\'') != NULL) return; /* never quoted wrongly: left behind */
  snprintf(command, sizeof command, "rm -rf '%s'", path);
  CHECK_INT(system(command), 0);
}

/* A runtime with its disk cache in `cache_dir` and `layer` (NULL: none) as its layer. */
static stubjit_runtime new_disk_runtime(const char* cache_dir, const char* layer) {
  stubjit_runtime_options options;
  stubjit_runtime runtime = NULL;
  const char* layers[1];
  layers[0] = layer;
  stubjit_runtime_options_init(&options);
  options.backend = "cpu";
  options.cache_dir = cache_dir;
  options.cache_layers = layers;
  options.cache_layer_count = layer != NULL ? 1 : 0;
  CHECK_OK(stubjit_runtime_create(&options, &runtime));
  return runtime;
}

/* saxpy once over 8 elements: y = 2x + y, checked. */
static void launch_saxpy_once(stubjit_runtime runtime) {
  float x[8], y[8];
  saxpy_launch saxpy;
  int i;
  for (i = 0; i < 8; ++i) {
    x[i] = (float)i;
    y[i] = 1.0f;
  }
  saxpy = saxpy_setup(runtime, 8, 2.0f, x, y);
  CHECK_OK(stubjit_kernel_launch(saxpy.kernel, NULL, saxpy.domain, saxpy.args, 3, NULL));
  CHECK_OK(stubjit_field_copy_to_host(saxpy.y, y, sizeof y));
  for (i = 0; i < 8; ++i) CHECK_F64(y[i], 2.0 * i + 1.0);
  saxpy_release(&saxpy);
}

/* RuntimeOptions::cache_layers through the C struct: a cache filled by one runtime is
 * another's read-only layer, whose stub it loads (layer_hits) instead of compiling. */
static void test_cache_layers(void) {
  char layer[1024], root[1024], other[1024];
  stubjit_runtime runtime;
  stubjit_cache_counters counters;
  char* cache_env = getenv("STUBJIT_CACHE");
  char saved[64] = "";
  if (cache_env != NULL) snprintf(saved, sizeof saved, "%s", cache_env);
  if (!make_temp_dir(layer, sizeof layer, "layer") || !make_temp_dir(root, sizeof root, "root") ||
      !make_temp_dir(other, sizeof other, "other")) {
    CHECK(!"make_temp_dir");
    return;
  }
  unsetenv("STUBJIT_CACHE"); /* ctest turns the disk cache off */
  unsetenv("STUBJIT_CACHE_LAYERS");

  runtime = new_disk_runtime(layer, NULL); /* fills the future layer */
  if (runtime != NULL) {
    launch_saxpy_once(runtime);
    counters = counters_of(runtime);
    CHECK_INT(counters.compiles, 1);
    CHECK_INT(counters.disk_writes, 1);
    CHECK_INT(counters.layer_hits, 0);
    stubjit_runtime_destroy(runtime);
  }
  runtime = new_disk_runtime(root, layer);
  if (runtime != NULL) {
    launch_saxpy_once(runtime);
    counters = counters_of(runtime);
    CHECK_INT(counters.compiles, 0);
    CHECK_INT(counters.disk_hits, 1);
    CHECK_INT(counters.layer_hits, 1);
    CHECK_INT(counters.disk_rejected, 0);
    stubjit_runtime_destroy(runtime);
  }
  runtime = new_disk_runtime(other, NULL); /* no layer: compiled */
  if (runtime != NULL) {
    launch_saxpy_once(runtime);
    counters = counters_of(runtime);
    CHECK_INT(counters.compiles, 1);
    CHECK_INT(counters.layer_hits, 0);
    stubjit_runtime_destroy(runtime);
  }
  if (cache_env != NULL) setenv("STUBJIT_CACHE", saved, 1);
  remove_tree(root);
  remove_tree(other);
  remove_tree(layer);
}

int main(void) {
  stubjit_runtime runtime;

  test_basics();
  test_runtime_and_saxpy();
  runtime = new_cpu_runtime();
  if (runtime != NULL) {
    test_wrapped_memory(runtime);
    test_fortran_loops(runtime);
    test_rank5_view(runtime);
    test_reduce(runtime);
    test_streams(runtime);
    test_host_reduce_repeat_binary(runtime);
    stubjit_runtime_destroy(runtime);
  }
  test_errors();
  test_caller_limits();
  test_lifetimes();
  test_launch_error_on_the_fake_cuda_driver();
  test_older_struct_sizes();
  test_cache_layers();

  printf("%s: %d checks, %d failed\n", failures ? "FAILED" : "PASSED", checks, failures);
  return failures ? 1 : 0;
}
