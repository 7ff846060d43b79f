! stubjit for Fortran: the C API (include/stubjit/stubjit.h) through iso_c_binding, with
! Fortran's own arrays, loop bounds and column-major order. docs/fortran.md shows it in use.
!
! Every procedure that can fail is a function returning a status (STUBJIT_OK = 0);
! stubjit_error_message() then says what went wrong, and stubjit_error_parameter() which
! parameter was at fault for an argument or alias error. Fortran arrays are wrapped
! where they lie (no copy), in column-major order; they must be contiguous and outlive
! the launches that use them. Positions are counted from each array's first element:
! loop bounds are subscripts of arrays declared from 1 (an array declared a(0:n+1) is
! wrapped as a(1:n+2); shift its bounds by one).
module stubjit
  use, intrinsic :: iso_c_binding
  implicit none
  private

  ! --- status codes (stubjit_status) ---
  integer(c_int), parameter, public :: STUBJIT_OK = 0, STUBJIT_ERROR = 1, &
    STUBJIT_DOMAIN_ERROR = 2, STUBJIT_SIGNATURE_ERROR = 3, STUBJIT_ARGUMENT_ERROR = 4, &
    STUBJIT_ALIAS_ERROR = 5, STUBJIT_PLAN_ERROR = 6, STUBJIT_COMPILE_ERROR = 7, &
    STUBJIT_BACKEND_ERROR = 8, STUBJIT_LAUNCH_ERROR = 9, STUBJIT_FIELD_ERROR = 10, &
    STUBJIT_INVALID_ARGUMENT = 11, STUBJIT_OUT_OF_MEMORY = 12, STUBJIT_INTERNAL_ERROR = 13
  ! --- element types (stubjit_type) ---
  integer(c_int), parameter, public :: STUBJIT_F32 = 0, STUBJIT_F64 = 1, STUBJIT_I32 = 2, &
    STUBJIT_I64 = 3
  ! --- parameter kinds and access ---
  integer(c_int), parameter :: PARAM_SCALAR = 0, PARAM_FIELD = 1, PARAM_INDEX = 2
  integer(c_int), parameter :: READ_ONLY = 0, READ_WRITE = 1
  integer(c_int), parameter :: ORDER_FORTRAN = 1, COLUMN_MAJOR = 1
  integer(c_int), parameter :: KIND_SCALAR_ARG = 0, KIND_FIELD_ARG = 1

  ! --- handles ---
  type, public :: stubjit_runtime
    type(c_ptr) :: ptr = c_null_ptr
  end type
  type, public :: stubjit_kernel
    type(c_ptr) :: ptr = c_null_ptr
  end type
  type, public :: stubjit_field
    type(c_ptr) :: ptr = c_null_ptr
  end type
  type, public :: stubjit_domain
    type(c_ptr) :: ptr = c_null_ptr
  end type

  ! A kernel parameter, made by stubjit_scalar, stubjit_in, stubjit_inout, stubjit_index.
  type, public :: stubjit_param
    character(len=:), allocatable :: name
    integer(c_int) :: kind = PARAM_SCALAR
    integer(c_int) :: type = STUBJIT_F32
    integer(c_int) :: rank = 0
    integer(c_int) :: access = READ_ONLY
  end type

  ! A launch argument, made by stubjit_arg from a scalar or a field.
  type, public, bind(c) :: stubjit_arg
    integer(c_int) :: kind = KIND_SCALAR_ARG
    integer(c_int) :: type = STUBJIT_F32
    integer(c_int8_t) :: value(16) = 0_c_int8_t  ! the C union's bytes, in memory order
    type(c_ptr) :: field = c_null_ptr
  end type

  ! The C structs this module fills or reads (their C layouts, member for member).
  type, bind(c) :: c_runtime_options
    integer(c_size_t) :: struct_size
    type(c_ptr) :: backend, target
    integer(c_int) :: device
    type(c_ptr) :: cache_dir
    integer(c_int) :: disk_cache
    integer(c_int64_t) :: cache_max_bytes, compile_timeout_ms, memory_cache_stubs
    integer(c_int) :: cpu_threads, fuse_dimensions, specialize_short_rows
    type(c_ptr) :: dump_dir, compiler_options
    integer(c_size_t) :: compiler_option_count
    type(c_ptr) :: include_directories
    integer(c_size_t) :: include_directory_count
    integer(c_int32_t) :: max_direct_pieces, max_dispatches
    type(c_ptr) :: limits
  end type
  type, bind(c) :: c_param
    integer(c_int) :: kind
    type(c_ptr) :: name
    integer(c_int) :: type, rank, access, specialized, mask
    type(c_ptr) :: extents
    integer(c_size_t) :: extent_count
    integer(c_int) :: combiner
    type(c_ptr) :: combine, identity
    integer(c_int) :: scan, sort
    type(c_ptr) :: less
    integer(c_int) :: payload
  end type
  type, bind(c) :: c_kernel_source
    integer(c_size_t) :: struct_size, param_size
    type(c_ptr) :: name, params
    integer(c_size_t) :: param_count
    type(c_ptr) :: body, helpers, filter
    integer(c_int32_t) :: max_threads, block_shape(3)
    integer(c_int) :: specialize
  end type
  type, bind(c) :: c_loop
    integer(c_int64_t) :: first, last, step
  end type
  type, bind(c) :: c_error
    integer(c_int) :: status
    type(c_ptr) :: message, parameter, other_parameter, limit
    integer(c_int64_t) :: limit_value
    type(c_ptr) :: kernel, log, source
    integer(c_int) :: dimension
    integer(c_size_t) :: dispatches_issued, dispatches_total
  end type

  interface
    ! The library writes no more of a struct than the size it is given: this module's
    ! copy of it, which may be shorter than the library's.
    subroutine c_runtime_options_init(options, size) &
        bind(c, name="stubjit_runtime_options_init_sized")
      import :: c_runtime_options, c_size_t
      type(c_runtime_options), intent(out) :: options
      integer(c_size_t), value :: size
    end subroutine
    integer(c_int) function c_runtime_create(options, out) bind(c, name="stubjit_runtime_create")
      import :: c_int, c_runtime_options, c_ptr
      type(c_runtime_options), intent(in) :: options
      type(c_ptr), intent(out) :: out
    end function
    subroutine c_runtime_destroy(runtime) bind(c, name="stubjit_runtime_destroy")
      import :: c_ptr
      type(c_ptr), value :: runtime
    end subroutine
    subroutine c_kernel_source_init(source, size, param_size) &
        bind(c, name="stubjit_kernel_source_init_sized")
      import :: c_kernel_source, c_size_t
      type(c_kernel_source), intent(out) :: source
      integer(c_size_t), value :: size, param_size
    end subroutine
    integer(c_int) function c_kernel_create(runtime, source, out) &
        bind(c, name="stubjit_kernel_create")
      import :: c_int, c_ptr, c_kernel_source
      type(c_ptr), value :: runtime
      type(c_kernel_source), intent(in) :: source
      type(c_ptr), intent(out) :: out
    end function
    subroutine c_kernel_destroy(kernel) bind(c, name="stubjit_kernel_destroy")
      import :: c_ptr
      type(c_ptr), value :: kernel
    end subroutine
    integer(c_int) function c_field_wrap(runtime, data, type, rank, extents, strides, layout, &
        writable, out) bind(c, name="stubjit_field_wrap")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: runtime, data
      integer(c_int), value :: type, rank
      integer(c_int64_t), intent(in) :: extents(*)
      type(c_ptr), value :: strides
      integer(c_int), value :: layout, writable
      type(c_ptr), intent(out) :: out
    end function
    subroutine c_field_destroy(field) bind(c, name="stubjit_field_destroy")
      import :: c_ptr
      type(c_ptr), value :: field
    end subroutine
    integer(c_int) function c_domain_from_loops(rank, loops, order, out) &
        bind(c, name="stubjit_domain_from_loops")
      import :: c_int, c_loop, c_ptr
      integer(c_int), value :: rank
      type(c_loop), intent(in) :: loops(*)
      integer(c_int), value :: order
      type(c_ptr), intent(out) :: out
    end function
    subroutine c_domain_destroy(domain) bind(c, name="stubjit_domain_destroy")
      import :: c_ptr
      type(c_ptr), value :: domain
    end subroutine
    integer(c_int) function c_kernel_launch(kernel, options, domain, args, count, summary) &
        bind(c, name="stubjit_kernel_launch")
      import :: c_int, c_ptr, c_size_t, stubjit_arg
      type(c_ptr), value :: kernel, options, domain
      type(stubjit_arg), intent(in) :: args(*)
      integer(c_size_t), value :: count
      type(c_ptr), value :: summary
    end function
    type(c_ptr) function c_last_error() bind(c, name="stubjit_last_error")
      import :: c_ptr
    end function
    integer(c_size_t) function c_strlen(s) bind(c, name="strlen")
      import :: c_size_t, c_ptr
      type(c_ptr), value :: s
    end function
  end interface

  ! Errors this module finds itself, before calling the library (a section with gaps, loop
  ! bounds of two lengths): reported by the error functions until the next call.
  logical :: module_error = .false.
  integer(c_int) :: module_status = STUBJIT_OK
  character(len=:), allocatable :: module_message

  interface stubjit_arg_of
    module procedure arg_f32, arg_f64, arg_i32, arg_i64, arg_field
  end interface
  interface stubjit_wrap
    module procedure wrap_f32, wrap_f64, wrap_i32, wrap_i64
  end interface
  interface stubjit_destroy
    module procedure destroy_runtime, destroy_kernel, destroy_field, destroy_domain
  end interface

  public :: stubjit_runtime_create, stubjit_kernel_create, stubjit_wrap, stubjit_domain_loops, &
    stubjit_launch, stubjit_destroy, stubjit_arg_of, stubjit_scalar, stubjit_in, stubjit_inout, &
    stubjit_index, stubjit_error_message, stubjit_error_parameter, stubjit_error_status

contains

  ! --- strings ---

  ! s followed by a NUL, as characters C can point into.
  subroutine c_string(s, out)
    character(len=*), intent(in) :: s
    character(kind=c_char), allocatable, target, intent(out) :: out(:)
    integer :: k
    allocate (out(len(s) + 1))
    do k = 1, len(s)
      out(k) = s(k:k)
    end do
    out(len(s) + 1) = c_null_char
  end subroutine

  function f_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: k, n
    if (.not. c_associated(p)) then
      s = ''
      return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate (character(len=n) :: s)
    do k = 1, n
      s(k:k) = chars(k)
    end do
  end function

  ! --- errors ---

  ! The message of the last call that failed on this thread.
  function stubjit_error_message() result(message)
    character(len=:), allocatable :: message
    type(c_error), pointer :: error
    if (module_error) then
      message = module_message
      return
    end if
    call c_f_pointer(c_last_error(), error)
    message = f_string(error%message)
  end function

  ! The parameter an argument or alias error names ("" otherwise).
  function stubjit_error_parameter() result(name)
    character(len=:), allocatable :: name
    type(c_error), pointer :: error
    if (module_error) then
      name = ''
      return
    end if
    call c_f_pointer(c_last_error(), error)
    name = f_string(error%parameter)
  end function

  integer(c_int) function stubjit_error_status()
    type(c_error), pointer :: error
    if (module_error) then
      stubjit_error_status = module_status
      return
    end if
    call c_f_pointer(c_last_error(), error)
    stubjit_error_status = error%status
  end function

  ! A failure found here: what the error functions report until the next call.
  integer(c_int) function module_failure(message) result(status)
    character(len=*), intent(in) :: message
    module_error = .true.
    module_status = STUBJIT_INVALID_ARGUMENT
    module_message = message
    status = module_status
  end function

  ! --- runtime ---

  ! backend: "cpu", "cuda", "hip" (absent: $STUBJIT_BACKEND, else the first available);
  ! disk_cache: .false. for memory only.
  integer(c_int) function stubjit_runtime_create(runtime, backend, disk_cache) result(status)
    type(stubjit_runtime), intent(out) :: runtime
    character(len=*), intent(in), optional :: backend
    logical, intent(in), optional :: disk_cache
    type(c_runtime_options) :: options
    character(kind=c_char), allocatable, target :: backend_c(:)
    module_error = .false.
    ! The library writes and reads no more than this module's copy of the struct holds.
    call c_runtime_options_init(options, int(storage_size(options) / 8, c_size_t))
    if (present(backend)) then
      call c_string(backend, backend_c)
      options%backend = c_loc(backend_c)
    end if
    if (present(disk_cache)) then
      options%disk_cache = merge(1, 0, disk_cache)
    end if
    status = c_runtime_create(options, runtime%ptr)
  end function

  ! --- parameters ---

  function stubjit_scalar(name, type) result(p)
    character(len=*), intent(in) :: name
    integer(c_int), intent(in) :: type
    type(stubjit_param) :: p
    p%name = name
    p%type = type
  end function

  ! A read-only field parameter; rank 0 (absent): one element per index of the domain.
  function stubjit_in(name, type, rank) result(p)
    character(len=*), intent(in) :: name
    integer(c_int), intent(in) :: type
    integer, intent(in), optional :: rank
    type(stubjit_param) :: p
    p = stubjit_scalar(name, type)
    p%kind = PARAM_FIELD
    if (present(rank)) p%rank = rank
  end function

  function stubjit_inout(name, type, rank) result(p)
    character(len=*), intent(in) :: name
    integer(c_int), intent(in) :: type
    integer, intent(in), optional :: rank
    type(stubjit_param) :: p
    p = stubjit_in(name, type, rank)
    p%access = READ_WRITE
  end function

  ! The logical index of the point: i[0] is the first (fastest) loop's index.
  function stubjit_index(name) result(p)
    character(len=*), intent(in) :: name
    type(stubjit_param) :: p
    p = stubjit_scalar(name, STUBJIT_I64)
    p%kind = PARAM_INDEX
  end function

  ! --- kernels ---

  ! body: C++ statements over the parameters (docs/fortran.md).
  integer(c_int) function stubjit_kernel_create(runtime, kernel, name, params, body) &
      result(status)
    type(stubjit_runtime), intent(in) :: runtime
    type(stubjit_kernel), intent(out) :: kernel
    character(len=*), intent(in) :: name, body
    type(stubjit_param), intent(in) :: params(:)
    type(c_kernel_source) :: source
    type(c_param), allocatable, target :: c_params(:)
    character(kind=c_char), allocatable, target :: name_c(:), body_c(:), pool(:)
    integer :: k, at, total, n
    module_error = .false.
    call c_string(name, name_c)
    call c_string(body, body_c)
    ! The parameters' names, one pool of NUL-terminated strings.
    total = 0
    do k = 1, size(params)
      total = total + len(params(k)%name) + 1
    end do
    allocate (pool(max(total, 1)), c_params(max(size(params), 1)))
    at = 1
    do k = 1, size(params)
      n = len(params(k)%name)
      pool(at:at + n - 1) = transfer(params(k)%name, pool(1:n))
      pool(at + n) = c_null_char
      c_params(k) = c_param(kind=params(k)%kind, name=c_loc(pool(at)), type=params(k)%type, &
                            rank=params(k)%rank, access=params(k)%access, specialized=0, &
                            mask=0, extents=c_null_ptr, extent_count=0, combiner=0, &
                            combine=c_null_ptr, identity=c_null_ptr, scan=0, sort=0, &
                            less=c_null_ptr, payload=0)
      at = at + n + 1
    end do
    call c_kernel_source_init(source, int(storage_size(source) / 8, c_size_t), &
                              int(storage_size(c_params(1)) / 8, c_size_t))
    source%name = c_loc(name_c)
    source%params = c_loc(c_params)
    source%param_count = int(size(params), c_size_t)
    source%body = c_loc(body_c)
    status = c_kernel_create(runtime%ptr, source, kernel%ptr)
  end function

  ! --- fields: Fortran arrays where they lie ---

  integer(c_int) function wrap_any(runtime, field, data, type, extents, contiguous) &
      result(status)
    type(stubjit_runtime), intent(in) :: runtime
    type(stubjit_field), intent(out) :: field
    type(c_ptr), intent(in) :: data
    integer(c_int), intent(in) :: type
    integer(c_int64_t), intent(in) :: extents(:)
    logical, intent(in) :: contiguous
    integer(c_int64_t) :: dummy(1)
    module_error = .false.
    field%ptr = c_null_ptr
    if (.not. contiguous) then
      ! No copy is ever made: a section with gaps cannot be wrapped as one array.
      status = module_failure('stubjit_wrap: the array is not contiguous (a section with ' // &
                              'gaps); wrap the whole array, or copy the section first')
      return
    end if
    dummy = 0
    if (size(extents) == 0) then
      status = c_field_wrap(runtime%ptr, data, type, 0_c_int, dummy, c_null_ptr, &
                            COLUMN_MAJOR, 1_c_int, field%ptr)
    else
      status = c_field_wrap(runtime%ptr, data, type, int(size(extents), c_int), extents, &
                            c_null_ptr, COLUMN_MAJOR, 1_c_int, field%ptr)
    end if
  end function

  integer(c_int) function wrap_f32(runtime, field, array) result(status)
    type(stubjit_runtime), intent(in) :: runtime
    type(stubjit_field), intent(out) :: field
    real(c_float), dimension(..), target, intent(inout) :: array
    status = wrap_any(runtime, field, c_loc(array), STUBJIT_F32, shape(array, kind=c_int64_t), &
                      is_contiguous(array))
  end function
  integer(c_int) function wrap_f64(runtime, field, array) result(status)
    type(stubjit_runtime), intent(in) :: runtime
    type(stubjit_field), intent(out) :: field
    real(c_double), dimension(..), target, intent(inout) :: array
    status = wrap_any(runtime, field, c_loc(array), STUBJIT_F64, shape(array, kind=c_int64_t), &
                      is_contiguous(array))
  end function
  integer(c_int) function wrap_i32(runtime, field, array) result(status)
    type(stubjit_runtime), intent(in) :: runtime
    type(stubjit_field), intent(out) :: field
    integer(c_int32_t), dimension(..), target, intent(inout) :: array
    status = wrap_any(runtime, field, c_loc(array), STUBJIT_I32, shape(array, kind=c_int64_t), &
                      is_contiguous(array))
  end function
  integer(c_int) function wrap_i64(runtime, field, array) result(status)
    type(stubjit_runtime), intent(in) :: runtime
    type(stubjit_field), intent(out) :: field
    integer(c_int64_t), dimension(..), target, intent(inout) :: array
    status = wrap_any(runtime, field, c_loc(array), STUBJIT_I64, shape(array, kind=c_int64_t), &
                      is_contiguous(array))
  end function

  ! --- domains: Fortran loop bounds ---

  ! A loop nest as written, outermost loop first, in Fortran's own subscripts (from 1):
  ! `do j = j1, j2, js; do i = i1, i2, is` is stubjit_domain_loops(d, [j1, i1], [j2, i2],
  ! [js, is]) (step absent: 1). A negative step runs downwards, and last need not be
  ! reached exactly, as in a DO loop. The domain is in Fortran order: its first dimension
  ! is the innermost loop (i), the fastest, binding the first subscript of the arrays it
  ! projects. Kernels see 0-based positions, as C++ does: the index token's i[0] is i - 1
  ! and i[1] is j - 1, the subscripts a body's views take (a(i[0], i[1]) is a(i, j)).
  integer(c_int) function stubjit_domain_loops(domain, first, last, step) result(status)
    type(stubjit_domain), intent(out) :: domain
    integer, intent(in) :: first(:), last(:)
    integer, intent(in), optional :: step(:)
    type(c_loop) :: loops(size(first))
    integer :: d
    domain%ptr = c_null_ptr
    module_error = .false.
    if (size(last) /= size(first)) then
      status = module_failure('stubjit_domain_loops: first and last have different lengths')
      return
    end if
    if (present(step)) then
      if (size(step) /= size(first)) then
        status = module_failure('stubjit_domain_loops: step and first have different lengths')
        return
      end if
    end if
    do d = 1, size(first)
      loops(d)%first = first(d) - 1
      loops(d)%last = last(d) - 1
      loops(d)%step = 1
      if (present(step)) loops(d)%step = step(d)
    end do
    status = c_domain_from_loops(int(size(first), c_int), loops, ORDER_FORTRAN, domain%ptr)
  end function

  ! --- launch arguments ---

  ! A scalar's bytes at the start of the union, as C stores it (any byte order).
  type(stubjit_arg) function arg_f32(x) result(a)
    real(c_float), intent(in) :: x
    a%type = STUBJIT_F32
    a%value(1:4) = transfer(x, a%value(1:4))
  end function
  type(stubjit_arg) function arg_f64(x) result(a)
    real(c_double), intent(in) :: x
    a%type = STUBJIT_F64
    a%value(1:8) = transfer(x, a%value(1:8))
  end function
  type(stubjit_arg) function arg_i32(x) result(a)
    integer(c_int32_t), intent(in) :: x
    a%type = STUBJIT_I32
    a%value(1:4) = transfer(x, a%value(1:4))
  end function
  type(stubjit_arg) function arg_i64(x) result(a)
    integer(c_int64_t), intent(in) :: x
    a%type = STUBJIT_I64
    a%value(1:8) = transfer(x, a%value(1:8))
  end function
  type(stubjit_arg) function arg_field(f) result(a)
    type(stubjit_field), intent(in) :: f
    a%kind = KIND_FIELD_ARG
    a%field = f%ptr
  end function

  ! --- launching ---

  ! Nothing runs when it fails (the status says why).
  integer(c_int) function stubjit_launch(kernel, domain, args) result(status)
    type(stubjit_kernel), intent(in) :: kernel
    type(stubjit_domain), intent(in) :: domain
    type(stubjit_arg), intent(in) :: args(:)
    module_error = .false.
    status = c_kernel_launch(kernel%ptr, c_null_ptr, domain%ptr, args, &
                             int(size(args), c_size_t), c_null_ptr)
  end function

  ! --- releasing ---

  subroutine destroy_runtime(h)
    type(stubjit_runtime), intent(inout) :: h
    call c_runtime_destroy(h%ptr)
    h%ptr = c_null_ptr
  end subroutine
  subroutine destroy_kernel(h)
    type(stubjit_kernel), intent(inout) :: h
    call c_kernel_destroy(h%ptr)
    h%ptr = c_null_ptr
  end subroutine
  subroutine destroy_field(h)
    type(stubjit_field), intent(inout) :: h
    call c_field_destroy(h%ptr)
    h%ptr = c_null_ptr
  end subroutine
  subroutine destroy_domain(h)
    type(stubjit_domain), intent(inout) :: h
    call c_domain_destroy(h%ptr)
    h%ptr = c_null_ptr
  end subroutine

end module stubjit
