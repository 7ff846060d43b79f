/* A C program against an installed stubjit: saxpy over caller-owned arrays, checked
 * against the same loop in C, and one error read back through stubjit_last_error. */
#include <stdio.h>
#include <string.h>

#include "stubjit/stubjit.h"

#define N 1000

static int fail(const char* what) {
  const stubjit_error* error = stubjit_last_error();
  printf("FAILED: %s: %s: %s\n", what, stubjit_status_name(error->status), error->message);
  return 1;
}

int main(void) {
  static float x[N], y[N], want[N];
  int i;
  for (i = 0; i < N; ++i) {
    x[i] = (float)i;
    y[i] = (float)(N - i);
    want[i] = 2.0f * x[i] + y[i];
  }
  stubjit_runtime_options options;
  stubjit_runtime_options_init(&options);
  options.backend = "cpu";
  options.disk_cache = 0;
  stubjit_runtime runtime;
  if (stubjit_runtime_create(&options, &runtime) != STUBJIT_OK) return fail("runtime");

  stubjit_param params[3];
  params[0] = stubjit_param_scalar("a", STUBJIT_F32);
  params[1] = stubjit_param_in("x", STUBJIT_F32, 0);
  params[2] = stubjit_param_inout("y", STUBJIT_F32, 0);
  stubjit_kernel_source source;
  stubjit_kernel_source_init(&source);
  source.name = "saxpy";
  source.params = params;
  source.param_count = 3;
  source.body = "y = a * x + y;";
  stubjit_kernel saxpy;
  if (stubjit_kernel_create(runtime, &source, &saxpy) != STUBJIT_OK) return fail("kernel");

  const int64_t extent = N;
  stubjit_field fx, fy;
  if (stubjit_field_wrap(runtime, x, STUBJIT_F32, 1, &extent, NULL, STUBJIT_ROW_MAJOR, 0, &fx) ||
      stubjit_field_wrap(runtime, y, STUBJIT_F32, 1, &extent, NULL, STUBJIT_ROW_MAJOR, 1, &fy))
    return fail("wrap");
  const stubjit_dim dim = {0, N, 1};
  stubjit_domain domain;
  if (stubjit_domain_create(1, &dim, STUBJIT_ORDER_C, &domain)) return fail("domain");
  stubjit_arg args[3];
  args[0] = stubjit_arg_f32(2.0f);
  args[1] = stubjit_arg_field(fx);
  args[2] = stubjit_arg_field(fy);
  if (stubjit_kernel_launch(saxpy, NULL, domain, args, 3, NULL)) return fail("launch");
  for (i = 0; i < N; ++i) {
    if (y[i] != want[i]) {
      printf("FAILED: y[%d] is %g, not %g\n", i, (double)y[i], (double)want[i]);
      return 1;
    }
  }
  /* A wrong argument: refused before anything runs, the parameter named. */
  args[0] = stubjit_arg_i32(2);
  if (stubjit_kernel_launch(saxpy, NULL, domain, args, 3, NULL) != STUBJIT_ARGUMENT_ERROR ||
      strcmp(stubjit_last_error()->parameter, "a") != 0) {
    printf("FAILED: an int32 for a float parameter was not an argument error naming a\n");
    return 1;
  }
  for (i = 0; i < N; ++i) {
    if (y[i] != want[i]) {
      printf("FAILED: the refused launch changed y[%d]\n", i);
      return 1;
    }
  }
  stubjit_domain_destroy(domain);
  stubjit_field_destroy(fx);
  stubjit_field_destroy(fy);
  stubjit_kernel_destroy(saxpy);
  stubjit_runtime_destroy(runtime);
  printf("stubjit %s from C: saxpy of %d floats correct\n", stubjit_version(), N);
  return 0;
}
