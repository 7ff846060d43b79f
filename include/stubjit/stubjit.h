/* stubjit's C API (C99): the C++ runtime behind opaque handles, for C programs and for
 * the Fortran and Python bindings. docs/c-api.md describes it and its ABI rules.
 *
 * Every function that can fail returns a stubjit_status; STUBJIT_OK is 0. A failure
 * records, for the calling thread, the status, the message and the typed details of
 * the C++ error (stubjit_last_error). No C++ exception crosses this boundary.
 *
 * Handles (runtime, kernel, field, stream, domain) are pointers to opaque structs;
 * each is released with its own _destroy function (NULL is ignored). A field, stream or
 * kernel keeps its runtime's backend alive, so they may be destroyed in any order. */
#ifndef STUBJIT_STUBJIT_H
#define STUBJIT_STUBJIT_H

#include <stddef.h>
#include <stdint.h>

#if defined(STUBJIT_BUILDING_LIBRARY)
#define STUBJIT_C_API __attribute__((visibility("default")))
#else
#define STUBJIT_C_API
#endif

/* The enums take any int a C caller passes: in C++ their underlying type is int, so that
 * a value outside the listed ones (which the library refuses with
 * STUBJIT_INVALID_ARGUMENT) is still a valid value of the type. The same size and
 * passing as C's enums. */
#ifdef __cplusplus
#define STUBJIT_INT_ENUM : int
#else
#define STUBJIT_INT_ENUM
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The C API's version: the library's (stubjit_version() says which one is loaded). */
#define STUBJIT_VERSION_MAJOR 0
#define STUBJIT_VERSION_MINOR 11

/* --- status and errors ------------------------------------------------------------ */

typedef enum stubjit_status STUBJIT_INT_ENUM {
  STUBJIT_OK = 0,
  STUBJIT_ERROR = 1,             /* a stubjit::Error of no more specific kind */
  STUBJIT_DOMAIN_ERROR = 2,      /* a domain's rank, count, step or size */
  STUBJIT_SIGNATURE_ERROR = 3,   /* a kernel's name, parameters or pattern */
  STUBJIT_ARGUMENT_ERROR = 4,    /* an argument that does not match its parameter */
  STUBJIT_ALIAS_ERROR = 5,       /* a writable field bound to two parameters */
  STUBJIT_PLAN_ERROR = 6,        /* a domain the device's limits cannot cover */
  STUBJIT_COMPILE_ERROR = 7,     /* the run-time compiler refused the stub */
  STUBJIT_BACKEND_ERROR = 8,     /* a backend not available, or its device or driver failing */
  STUBJIT_LAUNCH_ERROR = 9,      /* a dispatch failed after earlier ones were issued */
  STUBJIT_FIELD_ERROR = 10,      /* a copy of the wrong size, a view out of bounds */
  STUBJIT_INVALID_ARGUMENT = 11, /* this API misused: a NULL handle, an unknown enum value */
  STUBJIT_OUT_OF_MEMORY = 12,    /* host memory exhausted */
  STUBJIT_INTERNAL_ERROR = 13    /* anything else the C++ side threw */
} stubjit_status;

/* What the last failing call on this thread reported. The strings are the library's,
 * valid until the next call on this thread fails; fields that do not apply to the
 * error's kind are "" (strings), -1 (dimension) or 0. */
typedef struct stubjit_error {
  stubjit_status status;
  const char* message;
  /* STUBJIT_ARGUMENT_ERROR, STUBJIT_ALIAS_ERROR: the parameter ("" for a wrong count);
   * an alias error's other parameter. */
  const char* parameter;
  const char* other_parameter;
  /* STUBJIT_PLAN_ERROR: the limit exceeded ("max_grid[y]") and its value. */
  const char* limit;
  uint64_t limit_value;
  /* STUBJIT_COMPILE_ERROR: the kernel, the compiler's log (lines of the body as
   * "<kernel>.body:<line>:<col>") and the whole generated source. */
  const char* kernel;
  const char* log;
  const char* source;
  /* STUBJIT_DOMAIN_ERROR: the dimension at fault, -1 for the domain as a whole. */
  int dimension;
  /* STUBJIT_LAUNCH_ERROR: dispatches issued before the one that failed, of all. */
  size_t dispatches_issued;
  size_t dispatches_total;
} stubjit_error;

/* The last failure on this thread (status STUBJIT_OK and message "" if none yet). */
STUBJIT_C_API const stubjit_error* stubjit_last_error(void);
/* Forgets it: stubjit_last_error() then says STUBJIT_OK. Successful calls leave it. */
STUBJIT_C_API void stubjit_clear_error(void);
/* "STUBJIT_PLAN_ERROR", ...; "unknown status" for a value not listed. */
STUBJIT_C_API const char* stubjit_status_name(stubjit_status status);
/* "0.11.0": the loaded library's version. */
STUBJIT_C_API const char* stubjit_version(void);

/* --- types ------------------------------------------------------------------------ */

typedef enum stubjit_type STUBJIT_INT_ENUM {
  STUBJIT_F32 = 0,
  STUBJIT_F64 = 1,
  STUBJIT_I32 = 2,
  STUBJIT_I64 = 3,
  STUBJIT_U32 = 4,
  STUBJIT_I8 = 5,
  STUBJIT_U8 = 6,
  STUBJIT_I16 = 7,
  STUBJIT_U16 = 8,
  STUBJIT_U64 = 9,
  STUBJIT_BOOL = 10,        /* one byte, 0 or 1 */
  STUBJIT_FLOAT16 = 11,     /* IEEE binary16 bits in a uint16_t */
  STUBJIT_BFLOAT16 = 12,    /* bfloat16 bits in a uint16_t */
  STUBJIT_COMPLEX_F32 = 13, /* two floats: real, imaginary */
  STUBJIT_COMPLEX_F64 = 14  /* two doubles */
} stubjit_type;

/* Bytes of one element; 0 for a value not listed. */
STUBJIT_C_API size_t stubjit_type_size(stubjit_type type);

typedef enum stubjit_layout STUBJIT_INT_ENUM {
  STUBJIT_ROW_MAJOR = 0,
  STUBJIT_COLUMN_MAJOR = 1
} stubjit_layout;

/* A domain's order: which dimension is fastest (the last in C order, the first in
 * Fortran order). */
typedef enum stubjit_order STUBJIT_INT_ENUM {
  STUBJIT_ORDER_C = 0,
  STUBJIT_ORDER_FORTRAN = 1
} stubjit_order;

typedef enum stubjit_mode STUBJIT_INT_ENUM {
  STUBJIT_MODE_AUTO = -1, /* the planner chooses (launch options only) */
  STUBJIT_MODE_DIRECT = 0,
  STUBJIT_MODE_SPREAD = 1,
  STUBJIT_MODE_MULTI = 2
} stubjit_mode;

/* --- runtime ---------------------------------------------------------------------- */

typedef struct stubjit_runtime_s* stubjit_runtime;
typedef struct stubjit_kernel_s* stubjit_kernel;
typedef struct stubjit_field_s* stubjit_field;
typedef struct stubjit_stream_s* stubjit_stream;
typedef struct stubjit_domain_s* stubjit_domain;

/* RuntimeOptions (include/stubjit/runtime.hpp says what each does). Fill it with
 * stubjit_runtime_options_init, then change what you need: struct_size tells the
 * library which members your build of this header has. Strings may be NULL or "".
 *
 * Each struct the caller fills has an _init function, inline in this header, that
 * passes the library the caller's sizeof: the library writes the defaults of those
 * bytes only, so a program built with an older header, whose struct is shorter, is
 * never written past its end (bindings call the _init_sized function with their own
 * size). */
typedef struct stubjit_runtime_options {
  size_t struct_size;
  const char* backend; /* "cpu", "cuda", "hip"; NULL: $STUBJIT_BACKEND, else automatic */
  const char* target;  /* compile-only target ("sm_90", "gfx90a"); NULL: the device's */
  int device;
  const char* cache_dir;      /* NULL: $STUBJIT_CACHE_DIR, else the default */
  int disk_cache;             /* 0: memory-only */
  uint64_t cache_max_bytes;   /* 0: the default */
  int64_t compile_timeout_ms; /* -1: the default; 0: no limit, compiles in process */
  int64_t memory_cache_stubs; /* -1: the default */
  unsigned cpu_threads;       /* 0: one per core */
  int fuse_dimensions;        /* 1 (default) or 0 */
  int specialize_short_rows;  /* 1 (default) or 0 */
  const char* dump_dir;
  const char* const* compiler_options; /* compiler_option_count strings */
  size_t compiler_option_count;
  const char* const* include_directories;
  size_t include_directory_count;
  uint32_t max_direct_pieces; /* the plan policy; 0: the default */
  uint32_t max_dispatches;    /* 0: the default */
  /* Limits to plan with instead of the device's (RuntimeOptions::limits: tests, or a
   * smaller launch shape); NULL: the device's. Plans are still checked against the
   * device's own before anything runs. */
  const struct stubjit_device_limits* limits;
  /* Read-only cache layers (RuntimeOptions::cache_layers), searched in this order after
   * the writable cache, cache_layer_count directories; 0: $STUBJIT_CACHE_LAYERS. */
  const char* const* cache_layers;
  size_t cache_layer_count;
} stubjit_runtime_options;

/* The defaults, in the first `size` bytes of *options (at most the library's struct);
 * struct_size is set to that. Nothing is written for a NULL options or a size too small
 * to hold struct_size. */
STUBJIT_C_API void stubjit_runtime_options_init_sized(stubjit_runtime_options* options,
                                                      size_t size);
static inline void stubjit_runtime_options_init(stubjit_runtime_options* options) {
  stubjit_runtime_options_init_sized(options, sizeof *options);
}

/* options NULL: the defaults. */
STUBJIT_C_API stubjit_status stubjit_runtime_create(const stubjit_runtime_options* options,
                                                    stubjit_runtime* out);
STUBJIT_C_API void stubjit_runtime_destroy(stubjit_runtime runtime);
/* Strings owned by the runtime handle, valid while it lives; "" for a NULL runtime. */
STUBJIT_C_API const char* stubjit_runtime_backend(stubjit_runtime runtime);
STUBJIT_C_API const char* stubjit_runtime_target(stubjit_runtime runtime);
STUBJIT_C_API const char* stubjit_runtime_compiler(stubjit_runtime runtime);
/* The disk cache's root; "" when the runtime is memory-only. */
STUBJIT_C_API const char* stubjit_runtime_cache_dir(stubjit_runtime runtime);
/* Waits for all work of the runtime. */
STUBJIT_C_API stubjit_status stubjit_runtime_synchronize(stubjit_runtime runtime);

typedef struct stubjit_device_limits {
  uint64_t max_grid[3];
  uint32_t max_block[3];
  uint32_t max_threads_per_block;
  uint64_t max_threads_per_dim; /* 0: none beyond grid x block */
  uint32_t warp_size;
  uint32_t max_shared_bytes;
} stubjit_device_limits;

STUBJIT_C_API stubjit_status stubjit_runtime_limits(stubjit_runtime runtime,
                                                    stubjit_device_limits* out);

/* CacheCounters. The library writes the members up to struct_size, which the caller
 * sets (sizeof). */
typedef struct stubjit_cache_counters {
  size_t struct_size;
  uint64_t compiles;
  uint64_t compile_failures;
  uint64_t memory_hits;
  uint64_t launches;
  uint64_t disk_hits;
  uint64_t disk_writes;
  uint64_t disk_rejected;
  uint64_t layer_hits; /* those of disk_hits that came from a read-only layer */
} stubjit_cache_counters;

/* Waits for the pending disk-cache writes first, as Runtime::counters does. */
STUBJIT_C_API stubjit_status stubjit_runtime_counters(stubjit_runtime runtime,
                                                      stubjit_cache_counters* out);

/* Whether a backend ("cpu", "cuda", "hip") can be used here: *available 1 or 0, and
 * why not (or its device) in detail (NUL-terminated, cut to detail_size; NULL: none). */
STUBJIT_C_API stubjit_status stubjit_backend_status(const char* backend, int* available,
                                                    char* detail, size_t detail_size);

/* --- domains ---------------------------------------------------------------------- */

/* One dimension: the logical indices first + step * k, k < count. */
typedef struct stubjit_dim {
  int64_t first;
  int64_t count;
  int64_t step;
} stubjit_dim;

/* Fortran's do-loop bounds: first, last, step (step may be negative; last need not be
 * reached exactly). */
typedef struct stubjit_loop {
  int64_t first;
  int64_t last;
  int64_t step;
} stubjit_loop;

/* Dimension d of a domain binds dimension d of the fields it projects and is the index
 * token's i[d], whatever the order; the order says which dimension is fastest (the last
 * in C order, the first in Fortran order). stubjit_domain_from_loops takes a loop nest
 * as written, outermost loop first: in C order dimension d is the d-th loop, in Fortran
 * order the dimensions are the loops innermost first (Domain::loops). */
STUBJIT_C_API stubjit_status stubjit_domain_create(int rank, const stubjit_dim* dims,
                                                   stubjit_order order, stubjit_domain* out);
STUBJIT_C_API stubjit_status stubjit_domain_from_loops(int rank, const stubjit_loop* loops,
                                                       stubjit_order order, stubjit_domain* out);
STUBJIT_C_API void stubjit_domain_destroy(stubjit_domain domain);
STUBJIT_C_API int stubjit_domain_rank(stubjit_domain domain);
/* The number of indices (the product of the counts); 0 for a NULL domain. */
STUBJIT_C_API int64_t stubjit_domain_size(stubjit_domain domain);

/* --- fields ----------------------------------------------------------------------- */

STUBJIT_C_API stubjit_status stubjit_field_allocate(stubjit_runtime runtime, stubjit_type type,
                                                    int rank, const int64_t* extents,
                                                    stubjit_layout layout, stubjit_field* out);
/* Memory the caller owns, on the runtime's device (host memory on the CPU backend),
 * never freed by stubjit. strides (in elements, one per dimension) NULL: dense in
 * `layout`. writable 0: a read-only field. */
STUBJIT_C_API stubjit_status stubjit_field_wrap(stubjit_runtime runtime, void* data,
                                                stubjit_type type, int rank, const int64_t* extents,
                                                const int64_t* strides, stubjit_layout layout,
                                                int writable, stubjit_field* out);
STUBJIT_C_API void stubjit_field_destroy(stubjit_field field);

STUBJIT_C_API void* stubjit_field_data(stubjit_field field);
STUBJIT_C_API stubjit_type stubjit_field_type(stubjit_field field);
STUBJIT_C_API int stubjit_field_rank(stubjit_field field);
STUBJIT_C_API int64_t stubjit_field_size(stubjit_field field); /* elements */
/* Extent and stride (elements) of dimension d; -1 for a d out of range. */
STUBJIT_C_API int64_t stubjit_field_extent(stubjit_field field, int d);
STUBJIT_C_API int64_t stubjit_field_stride(stubjit_field field, int d);

/* Whole-field copies between host memory and a dense field; bytes must be the field's. */
STUBJIT_C_API stubjit_status stubjit_field_copy_from_host(stubjit_field field, const void* host,
                                                          size_t bytes);
STUBJIT_C_API stubjit_status stubjit_field_copy_to_host(stubjit_field field, void* host,
                                                        size_t bytes);
/* The same queued on a stream (the host memory must stay valid until the stream is
 * synchronized); declared after the streams below. */

/* Views: new fields over the same memory (Field::transpose, permute, section, slice,
 * spread). */
STUBJIT_C_API stubjit_status stubjit_field_transpose(stubjit_field field, int d1, int d2,
                                                     stubjit_field* out);
STUBJIT_C_API stubjit_status stubjit_field_permute(stubjit_field field, const int* order, int count,
                                                   stubjit_field* out);
STUBJIT_C_API stubjit_status stubjit_field_section(stubjit_field field, int dim, int64_t first,
                                                   int64_t last, int64_t step, stubjit_field* out);
STUBJIT_C_API stubjit_status stubjit_field_slice(stubjit_field field, int dim, int64_t index,
                                                 stubjit_field* out);
STUBJIT_C_API stubjit_status stubjit_field_spread(stubjit_field field, int dim, int64_t extent,
                                                  stubjit_field* out);

/* --- streams ---------------------------------------------------------------------- */

STUBJIT_C_API stubjit_status stubjit_stream_create(stubjit_runtime runtime, stubjit_stream* out);
STUBJIT_C_API void stubjit_stream_destroy(stubjit_stream stream);
STUBJIT_C_API stubjit_status stubjit_stream_synchronize(stubjit_stream stream);

STUBJIT_C_API stubjit_status stubjit_field_copy_from_host_async(stubjit_field field,
                                                                const void* host, size_t bytes,
                                                                stubjit_stream stream);
STUBJIT_C_API stubjit_status stubjit_field_copy_to_host_async(stubjit_field field, void* host,
                                                              size_t bytes, stubjit_stream stream);

/* --- kernels ---------------------------------------------------------------------- */

typedef enum stubjit_param_kind STUBJIT_INT_ENUM {
  STUBJIT_PARAM_SCALAR = 0,
  STUBJIT_PARAM_FIELD = 1,
  STUBJIT_PARAM_INDEX = 2,
  STUBJIT_PARAM_TILE_INDEX = 3,
  STUBJIT_PARAM_LOCAL_INDEX = 4,
  STUBJIT_PARAM_GROUP = 5,
  STUBJIT_PARAM_SHARED = 6
} stubjit_param_kind;

typedef enum stubjit_access STUBJIT_INT_ENUM {
  STUBJIT_READ_ONLY = 0,
  STUBJIT_READ_WRITE = 1
} stubjit_access;

typedef enum stubjit_combiner STUBJIT_INT_ENUM {
  STUBJIT_COMBINE_NONE = 0,
  STUBJIT_COMBINE_SUM = 1,
  STUBJIT_COMBINE_PRODUCT = 2,
  STUBJIT_COMBINE_MIN = 3,
  STUBJIT_COMBINE_MAX = 4,
  STUBJIT_COMBINE_BIT_AND = 5,
  STUBJIT_COMBINE_BIT_OR = 6,
  STUBJIT_COMBINE_BIT_XOR = 7,
  STUBJIT_COMBINE_ANY = 8,
  STUBJIT_COMBINE_ALL = 9,
  STUBJIT_COMBINE_CUSTOM = 10
} stubjit_combiner;

typedef enum stubjit_scan_kind STUBJIT_INT_ENUM {
  STUBJIT_SCAN_NONE = 0,
  STUBJIT_SCAN_INCLUSIVE = 1,
  STUBJIT_SCAN_EXCLUSIVE = 2
} stubjit_scan_kind;

typedef enum stubjit_sort_order STUBJIT_INT_ENUM {
  STUBJIT_SORT_NONE = 0,
  STUBJIT_SORT_ASCENDING = 1,
  STUBJIT_SORT_DESCENDING = 2,
  STUBJIT_SORT_CUSTOM = 3
} stubjit_sort_order;

/* One parameter: the members of stubjit::Param (include/stubjit/signature.hpp). Zero
 * is the default of every member; the stubjit_param_* functions below fill the common
 * kinds. */
typedef struct stubjit_param {
  stubjit_param_kind kind;
  const char* name;
  stubjit_type type;
  int rank;
  stubjit_access access;
  int specialized;            /* scalars: compiled in as a constant */
  int mask;                   /* read-only rank-0 fields: a mask */
  const char* const* extents; /* shared arrays: extent_count literals or scalar names */
  size_t extent_count;
  stubjit_combiner combiner; /* a reduction's result */
  const char* combine;       /* custom combiner: an expression over a and b */
  const char* identity;      /* custom combiner: the identity */
  stubjit_scan_kind scan;    /* a scan's output */
  stubjit_sort_order sort;   /* a sort's keys */
  const char* less;          /* custom order: an expression over a and b */
  int payload;               /* a sort's payload */
} stubjit_param;

typedef enum stubjit_specialize STUBJIT_INT_ENUM {
  STUBJIT_SPECIALIZE_AT_LAUNCH = 0,
  STUBJIT_SPECIALIZE_BACKGROUND = 1
} stubjit_specialize;

/* KernelSource. Fill with stubjit_kernel_source_init. param_size is sizeof(stubjit_param)
 * of the caller's build, so that the library walks `params` with the caller's stride. */
typedef struct stubjit_kernel_source {
  size_t struct_size;
  size_t param_size;
  const char* name;
  const stubjit_param* params;
  size_t param_count;
  const char* body;
  const char* helpers;     /* NULL: none */
  const char* filter;      /* NULL: every point */
  uint32_t max_threads;    /* BlockConstraints: 0, the device's limit */
  uint32_t block_shape[3]; /* all 0: chosen by the planner */
  stubjit_specialize specialize;
} stubjit_kernel_source;

/* As stubjit_runtime_options_init_sized; param_size is set to `param_size`. */
STUBJIT_C_API void stubjit_kernel_source_init_sized(stubjit_kernel_source* source, size_t size,
                                                    size_t param_size);
static inline void stubjit_kernel_source_init(stubjit_kernel_source* source) {
  stubjit_kernel_source_init_sized(source, sizeof *source, sizeof(stubjit_param));
}

/* Validates the description; nothing compiles until a launch or prepare needs a stub. */
STUBJIT_C_API stubjit_status stubjit_kernel_create(stubjit_runtime runtime,
                                                   const stubjit_kernel_source* source,
                                                   stubjit_kernel* out);
STUBJIT_C_API void stubjit_kernel_destroy(stubjit_kernel kernel);
STUBJIT_C_API const char* stubjit_kernel_name(stubjit_kernel kernel);

/* One launch argument: a scalar (its bytes in value) or a field. */
typedef enum stubjit_arg_kind STUBJIT_INT_ENUM {
  STUBJIT_ARG_SCALAR = 0,
  STUBJIT_ARG_FIELD = 1
} stubjit_arg_kind;

typedef struct stubjit_arg {
  stubjit_arg_kind kind;
  stubjit_type type; /* a scalar's; ignored for a field */
  union {
    float f32;
    double f64;
    int32_t i32;
    int64_t i64;
    uint32_t u32;
    uint64_t u64;
    int8_t i8;
    uint8_t u8;
    int16_t i16;
    uint16_t u16; /* also the bits of float16 and bfloat16 */
    unsigned char boolean;
    float complex_f32[2];
    double complex_f64[2];
  } value;
  stubjit_field field;
} stubjit_arg;

/* LaunchOptions. Fill with stubjit_launch_options_init. */
typedef struct stubjit_launch_options {
  size_t struct_size;
  stubjit_mode mode;     /* STUBJIT_MODE_AUTO: the planner's choice */
  stubjit_stream stream; /* NULL: the runtime's default stream */
  uint32_t group_size;   /* group kernels and tiled launches; 0: the default */
  int tile_rank;         /* 0: untiled */
  uint32_t tile_extents[8];
  int reduce_dimension; /* -1: the last */
  int reduce_assign;    /* 1: overwrite the result; 0: combine with it (default) */
} stubjit_launch_options;

STUBJIT_C_API void stubjit_launch_options_init_sized(stubjit_launch_options* options, size_t size);
static inline void stubjit_launch_options_init(stubjit_launch_options* options) {
  stubjit_launch_options_init_sized(options, sizeof *options);
}

/* LaunchSummary. The library writes the members up to struct_size, which the caller
 * sets (sizeof). */
typedef struct stubjit_launch_summary {
  size_t struct_size;
  stubjit_mode mode;
  int rank;
  size_t dispatches;
  int compiled;
  int generic;
  uint32_t group_size;
  uint32_t shared_bytes;
  uint32_t reduce_parts;
} stubjit_launch_summary;

/* Binds, plans, finds or compiles the stub, and launches; nothing runs when it fails
 * before issuing (every status but STUBJIT_LAUNCH_ERROR). options and summary may be
 * NULL. */
STUBJIT_C_API stubjit_status stubjit_kernel_launch(stubjit_kernel kernel,
                                                   const stubjit_launch_options* options,
                                                   stubjit_domain domain, const stubjit_arg* args,
                                                   size_t arg_count,
                                                   stubjit_launch_summary* summary);
/* Compiles (or finds) the stub a launch would run, without running it. */
STUBJIT_C_API stubjit_status stubjit_kernel_prepare(stubjit_kernel kernel,
                                                    const stubjit_launch_options* options,
                                                    stubjit_domain domain, const stubjit_arg* args,
                                                    size_t arg_count,
                                                    stubjit_launch_summary* summary);

/* The plan of a domain as given (Kernel::plan), without launching. */
typedef struct stubjit_plan_summary {
  size_t struct_size;
  stubjit_mode mode;
  int rank;
  uint32_t block[3];
  size_t dispatches;
} stubjit_plan_summary;

STUBJIT_C_API stubjit_status stubjit_kernel_plan(stubjit_kernel kernel, stubjit_domain domain,
                                                 stubjit_mode forced, stubjit_plan_summary* out);

/* The generated source a launch with these arguments would compile, copied into buffer
 * (NUL-terminated, cut to buffer_size) with *length its whole length; buffer may be
 * NULL to ask for the length. */
STUBJIT_C_API stubjit_status stubjit_kernel_stub_source(
    stubjit_kernel kernel, const stubjit_launch_options* options, stubjit_domain domain,
    const stubjit_arg* args, size_t arg_count, char* buffer, size_t buffer_size, size_t* length);

/* Kernel::reduce: a reduce kernel whose result has rank 0, over the whole domain; its
 * value (one element of `type`, the result's element type) is written to *value. args
 * are the launch's without the result. Waits for the launch. */
STUBJIT_C_API stubjit_status stubjit_kernel_reduce(stubjit_kernel kernel,
                                                   const stubjit_launch_options* options,
                                                   stubjit_domain domain, const stubjit_arg* args,
                                                   size_t arg_count, stubjit_type type, void* value,
                                                   stubjit_launch_summary* summary);

/* Kernel::repeat (IrGL's loop): a reduce kernel whose result is a rank-0 bool flag with
 * STUBJIT_COMBINE_ANY (stop when no index set it) or STUBJIT_COMBINE_ALL (stop when
 * every index did), launched until the flag says stop. args are without the flag. */
typedef struct stubjit_field_pair {
  stubjit_field first;
  stubjit_field second;
} stubjit_field_pair;

typedef struct stubjit_repeat_options {
  size_t struct_size;
  const stubjit_launch_options* launch; /* each iteration's; NULL: the defaults */
  int64_t max_iterations;               /* default 2^20 */
  const stubjit_field_pair* swaps;      /* double buffers traded after each iteration */
  size_t swap_count;
} stubjit_repeat_options;

STUBJIT_C_API void stubjit_repeat_options_init_sized(stubjit_repeat_options* options, size_t size);
static inline void stubjit_repeat_options_init(stubjit_repeat_options* options) {
  stubjit_repeat_options_init_sized(options, sizeof *options);
}

typedef struct stubjit_repeat_summary {
  size_t struct_size;
  int64_t iterations;
  int converged;
  int swapped;
  int compiled;
} stubjit_repeat_summary;

STUBJIT_C_API stubjit_status stubjit_kernel_repeat(stubjit_kernel kernel,
                                                   const stubjit_repeat_options* options,
                                                   stubjit_domain domain, const stubjit_arg* args,
                                                   size_t arg_count,
                                                   stubjit_repeat_summary* summary);

/* Kernel::binary: the compiled stub a launch with these arguments would run (compiled
 * if no store has it; works on compile-only runtimes). */
typedef struct stubjit_binary_s* stubjit_binary;

STUBJIT_C_API stubjit_status stubjit_kernel_binary(stubjit_kernel kernel,
                                                   const stubjit_launch_options* options,
                                                   stubjit_domain domain, const stubjit_arg* args,
                                                   size_t arg_count, stubjit_binary* out);
STUBJIT_C_API void stubjit_binary_destroy(stubjit_binary binary);
/* The bytes (valid while the handle lives) and their count in *size. */
STUBJIT_C_API const void* stubjit_binary_bytes(stubjit_binary binary, size_t* size);
/* "cubin", "ptx", "amdgpu-code-object" or "elf-shared-object". */
STUBJIT_C_API const char* stubjit_binary_format(stubjit_binary binary);
STUBJIT_C_API const char* stubjit_binary_target(stubjit_binary binary);
STUBJIT_C_API const char* stubjit_binary_entry(stubjit_binary binary);
STUBJIT_C_API const char* stubjit_binary_cache_name(stubjit_binary binary);

/* --- building parameters and arguments ------------------------------------------- */

static inline stubjit_param stubjit_param_scalar(const char* name, stubjit_type type) {
  stubjit_param p = {STUBJIT_PARAM_SCALAR,
                     name,
                     type,
                     0,
                     STUBJIT_READ_ONLY,
                     0,
                     0,
                     NULL,
                     0,
                     STUBJIT_COMBINE_NONE,
                     NULL,
                     NULL,
                     STUBJIT_SCAN_NONE,
                     STUBJIT_SORT_NONE,
                     NULL,
                     0};
  return p;
}
static inline stubjit_param stubjit_param_specialized(const char* name, stubjit_type type) {
  stubjit_param p = stubjit_param_scalar(name, type);
  p.specialized = 1;
  return p;
}
/* A field parameter of rank `rank` (0: one element per index). */
static inline stubjit_param stubjit_param_in(const char* name, stubjit_type type, int rank) {
  stubjit_param p = stubjit_param_scalar(name, type);
  p.kind = STUBJIT_PARAM_FIELD;
  p.rank = rank;
  return p;
}
static inline stubjit_param stubjit_param_inout(const char* name, stubjit_type type, int rank) {
  stubjit_param p = stubjit_param_in(name, type, rank);
  p.access = STUBJIT_READ_WRITE;
  return p;
}
static inline stubjit_param stubjit_param_index(const char* name) {
  stubjit_param p = stubjit_param_scalar(name, STUBJIT_I64);
  p.kind = STUBJIT_PARAM_INDEX;
  return p;
}
/* A reduction's result: rank 0 (the whole domain) or the domain's rank - 1. */
static inline stubjit_param stubjit_param_result(const char* name, stubjit_type type,
                                                 stubjit_combiner combiner, int rank) {
  stubjit_param p = stubjit_param_inout(name, type, rank);
  p.combiner = combiner;
  return p;
}

static inline stubjit_arg stubjit_arg_field(stubjit_field field) {
  stubjit_arg a;
  a.kind = STUBJIT_ARG_FIELD;
  a.type = STUBJIT_F32;
  a.value.complex_f64[0] = 0;
  a.value.complex_f64[1] = 0;
  a.field = field;
  return a;
}
static inline stubjit_arg stubjit_arg_scalar_of(stubjit_type type) {
  stubjit_arg a = stubjit_arg_field(NULL);
  a.kind = STUBJIT_ARG_SCALAR;
  a.type = type;
  return a;
}
static inline stubjit_arg stubjit_arg_f32(float v) {
  stubjit_arg a = stubjit_arg_scalar_of(STUBJIT_F32);
  a.value.f32 = v;
  return a;
}
static inline stubjit_arg stubjit_arg_f64(double v) {
  stubjit_arg a = stubjit_arg_scalar_of(STUBJIT_F64);
  a.value.f64 = v;
  return a;
}
static inline stubjit_arg stubjit_arg_i32(int32_t v) {
  stubjit_arg a = stubjit_arg_scalar_of(STUBJIT_I32);
  a.value.i32 = v;
  return a;
}
static inline stubjit_arg stubjit_arg_i64(int64_t v) {
  stubjit_arg a = stubjit_arg_scalar_of(STUBJIT_I64);
  a.value.i64 = v;
  return a;
}
static inline stubjit_arg stubjit_arg_u32(uint32_t v) {
  stubjit_arg a = stubjit_arg_scalar_of(STUBJIT_U32);
  a.value.u32 = v;
  return a;
}
static inline stubjit_arg stubjit_arg_u64(uint64_t v) {
  stubjit_arg a = stubjit_arg_scalar_of(STUBJIT_U64);
  a.value.u64 = v;
  return a;
}
static inline stubjit_arg stubjit_arg_bool(int v) {
  stubjit_arg a = stubjit_arg_scalar_of(STUBJIT_BOOL);
  a.value.boolean = (unsigned char)(v != 0);
  return a;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* STUBJIT_STUBJIT_H */
