! The Fortran module against plain Fortran: saxpy over a rank-3 array with a scalar of
! each kind, a loop nest with negative steps and an index token, and every error path:
! each checked for its status, its message, and that nothing ran.
program fortran_test
  use, intrinsic :: iso_c_binding
  use stubjit
  implicit none
  integer :: failures = 0
  type(stubjit_runtime) :: runtime
  type(stubjit_kernel) :: saxpy, nest, broken, bad
  type(stubjit_field) :: fx, fy, fz, fsection, fcount
  type(stubjit_domain) :: whole, reversed, empty
  real(c_float), target :: x(7, 5, 3), y(7, 5, 3), want(7, 5, 3), before(7, 5, 3)
  real(c_double), target :: z(6, 4)
  integer(c_int32_t), target :: visits(6, 4)
  integer(c_int64_t), target :: count64(3)
  integer :: i, j, k, expected_visits(6, 4)
  integer(c_int) :: status

  do k = 1, 3
    do j = 1, 5
      do i = 1, 7
        x(i, j, k) = real(i + 10 * j + 100 * k, c_float)
        y(i, j, k) = real(i - j, c_float)
      end do
    end do
  end do
  want = 2.0 * x + y

  call expect(stubjit_runtime_create(runtime, backend='cpu', disk_cache=.false.) == STUBJIT_OK, &
              'runtime')

  ! --- saxpy over the whole rank-3 array, elements projected in column-major order ---
  call expect(stubjit_kernel_create(runtime, saxpy, 'saxpy', &
    [stubjit_scalar('a', STUBJIT_F32), stubjit_in('x', STUBJIT_F32), &
     stubjit_inout('y', STUBJIT_F32)], 'y = a * x + y;') == STUBJIT_OK, 'saxpy kernel')
  call expect(stubjit_wrap(runtime, fx, x) == STUBJIT_OK, 'wrap x')
  call expect(stubjit_wrap(runtime, fy, y) == STUBJIT_OK, 'wrap y')
  call expect(stubjit_domain_loops(whole, [1, 1, 1], [3, 5, 7]) == STUBJIT_OK, 'whole domain')
  call expect(stubjit_launch(saxpy, whole, &
    [stubjit_arg_of(2.0_c_float), stubjit_arg_of(fx), stubjit_arg_of(fy)]) == STUBJIT_OK, &
    'saxpy launch')
  call expect(all(y == want), 'saxpy: y = 2 x + y in every element, in place')

  ! --- errors: each refused before anything ran ---
  before = y
  status = stubjit_launch(saxpy, whole, [stubjit_arg_of(fx), stubjit_arg_of(fy)])
  call expect(status == STUBJIT_ARGUMENT_ERROR, 'two arguments for three: argument error')
  call expect(stubjit_error_status() == STUBJIT_ARGUMENT_ERROR, 'the last error says so')
  call expect(len(stubjit_error_message()) > 0, 'with a message')
  status = stubjit_launch(saxpy, whole, &
    [stubjit_arg_of(2.0_c_double), stubjit_arg_of(fx), stubjit_arg_of(fy)])
  call expect(status == STUBJIT_ARGUMENT_ERROR, 'a double for a float: argument error')
  call expect(stubjit_error_parameter() == 'a', 'naming the parameter a')
  status = stubjit_launch(saxpy, whole, &
    [stubjit_arg_of(2.0_c_float), stubjit_arg_of(fy), stubjit_arg_of(fy)])
  call expect(status == STUBJIT_ALIAS_ERROR, 'y as x and y: alias error')
  call expect(all(y == before), 'the refused launches changed nothing')

  status = stubjit_kernel_create(runtime, bad, 'bad name', [stubjit_in('x', STUBJIT_F32)], &
                                 'x;')
  call expect(status == STUBJIT_SIGNATURE_ERROR, 'a kernel named "bad name": signature error')

  call expect(stubjit_kernel_create(runtime, broken, 'broken', &
    [stubjit_inout('y', STUBJIT_F32)], 'y = 1;' // new_line('a') // 'y = = 2;') == STUBJIT_OK, &
    'a kernel is made before it compiles')
  status = stubjit_launch(broken, whole, [stubjit_arg_of(fy)])
  call expect(status == STUBJIT_COMPILE_ERROR, 'a body that does not compile: compile error')
  call expect(index(stubjit_error_message(), 'broken') > 0, 'the message names the kernel')
  call expect(all(y == before), 'the kernel that did not compile changed nothing')

  status = stubjit_domain_loops(empty, [1, 1], [5, 5], [1, 0])
  call expect(status == STUBJIT_DOMAIN_ERROR, 'a loop of step 0: domain error')
  status = stubjit_domain_loops(empty, [1, 1], [5])
  call expect(status == STUBJIT_INVALID_ARGUMENT, 'bounds of two lengths: invalid argument')
  call expect(stubjit_error_status() == STUBJIT_INVALID_ARGUMENT, 'the error says so')
  call expect(index(stubjit_error_message(), 'different lengths') > 0, &
              'and why: ' // stubjit_error_message())

  ! A section with gaps is not wrapped (no copy is ever made).
  status = stubjit_wrap(runtime, fsection, x(1:7:2, :, :))
  call expect(status == STUBJIT_INVALID_ARGUMENT, 'a section with gaps: invalid argument')
  call expect(index(stubjit_error_message(), 'not contiguous') > 0, &
              'and why: ' // stubjit_error_message())
  ! The next call that reaches the library reports its own outcome again.
  status = stubjit_launch(saxpy, whole, [stubjit_arg_of(fx)])
  call expect(stubjit_error_status() == STUBJIT_ARGUMENT_ERROR, 'a later error replaces it')

  ! --- a nest with negative steps and the index token, against the same loops ---
  !   do j = 4, 1, -1; do i = 6, 1, -2: z(i, j) = 1000 j + i, visits(i, j) += 1
  z = -1
  visits = 0
  expected_visits = 0
  call expect(stubjit_kernel_create(runtime, nest, 'nest', &
    [stubjit_index('p'), stubjit_inout('z', STUBJIT_F64, 2), &
     stubjit_inout('visits', STUBJIT_I32)], &
    'z(p[0], p[1]) = 1000.0 * (p[1] + 1) + (p[0] + 1); visits += 1;') == STUBJIT_OK, &
    'nest kernel')
  call expect(stubjit_wrap(runtime, fz, z) == STUBJIT_OK, 'wrap z')
  call expect(stubjit_wrap(runtime, fcount, visits) == STUBJIT_OK, 'wrap visits')
  call expect(stubjit_domain_loops(reversed, [4, 6], [1, 1], [-1, -2]) == STUBJIT_OK, &
              'reversed domain')
  call expect(stubjit_launch(nest, reversed, [stubjit_arg_of(fz), stubjit_arg_of(fcount)]) == &
              STUBJIT_OK, 'nest launch')
  do j = 4, 1, -1
    do i = 6, 1, -2
      expected_visits(i, j) = expected_visits(i, j) + 1
    end do
  end do
  call expect(all(visits == expected_visits), 'each point of the nest ran once, no other')
  do j = 1, 4
    do i = 1, 6
      if (expected_visits(i, j) == 1) then
        call expect(z(i, j) == 1000.0d0 * j + i, 'z(i, j) = 1000 j + i where the nest ran')
      else
        call expect(z(i, j) == -1, 'z untouched where it did not')
      end if
    end do
  end do

  ! An int64 array of rank 1 wraps too.
  count64 = 0
  call stubjit_destroy(fcount)
  call expect(stubjit_wrap(runtime, fcount, count64) == STUBJIT_OK, 'wrap an int64 array')

  call stubjit_destroy(whole)
  call stubjit_destroy(reversed)
  call stubjit_destroy(fx)
  call stubjit_destroy(fy)
  call stubjit_destroy(fz)
  call stubjit_destroy(fcount)
  call stubjit_destroy(saxpy)
  call stubjit_destroy(nest)
  call stubjit_destroy(broken)
  call stubjit_destroy(runtime)

  if (failures /= 0) then
    print '(a, i0, a)', 'FAILED: ', failures, ' checks'
    error stop 1
  end if
  print '(a)', 'PASSED'

contains

  subroutine expect(condition, what)
    logical, intent(in) :: condition
    character(len=*), intent(in) :: what
    if (.not. condition) then
      failures = failures + 1
      print '(a, a, a, a)', 'CHECK FAILED: ', what, ' -- last error: ', stubjit_error_message()
    end if
  end subroutine

end program fortran_test
