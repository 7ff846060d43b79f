! A Fortran loop nest run by stubjit: `do j` downwards with a step of -2 over `do i`, on
! Fortran's own arrays (wrapped where they lie, column-major), checked against the same
! loops in plain Fortran.
!
!   do j = m, 1, -2
!     do i = 2, n - 1
!       b(i, j) = 0.5d0 * (a(i - 1, j) + a(i + 1, j)) + j
program loops
  use, intrinsic :: iso_c_binding
  use stubjit
  implicit none
  integer, parameter :: n = 40, m = 9
  real(c_double), target :: a(n, m), b(n, m), want(n, m)
  type(stubjit_runtime) :: runtime
  type(stubjit_kernel) :: kernel
  type(stubjit_field) :: fa, fb
  type(stubjit_domain) :: domain
  integer :: i, j, wrong

  do j = 1, m
    do i = 1, n
      a(i, j) = sin(0.1d0 * i) + 0.01d0 * j
    end do
  end do
  b = 0
  want = 0
  do j = m, 1, -2
    do i = 2, n - 1
      want(i, j) = 0.5d0 * (a(i - 1, j) + a(i + 1, j)) + j
    end do
  end do

  call check(stubjit_runtime_create(runtime), 'runtime')
  ! The body is C++ over 0-based positions: p(0) is i - 1, p(1) is j - 1.
  call check(stubjit_kernel_create(runtime, kernel, 'smooth', &
    [stubjit_index('p'), stubjit_in('a', STUBJIT_F64, 2), stubjit_inout('b', STUBJIT_F64)], &
    'b = 0.5 * (a(p[0] - 1, p[1]) + a(p[0] + 1, p[1])) + double(p[1] + 1);'), 'kernel')
  call check(stubjit_wrap(runtime, fa, a), 'wrap a')
  call check(stubjit_wrap(runtime, fb, b), 'wrap b')
  ! The nest as written, outermost first: j = m, 1, -2, then i = 2, n - 1.
  call check(stubjit_domain_loops(domain, [m, 2], [1, n - 1], [-2, 1]), 'domain')
  call check(stubjit_launch(kernel, domain, [stubjit_arg_of(fa), stubjit_arg_of(fb)]), 'launch')

  ! A stub may fuse the multiply and the add: equal to within rounding.
  wrong = count(abs(b - want) > 1d-12 * max(1d0, abs(want)))
  print '(a, i0, a, i0, a)', 'stubjit from Fortran: ', n * m, ' elements, ', wrong, ' wrong'
  call stubjit_destroy(domain)
  call stubjit_destroy(fa)
  call stubjit_destroy(fb)
  call stubjit_destroy(kernel)
  call stubjit_destroy(runtime)
  if (wrong /= 0) error stop 1

contains

  subroutine check(status, what)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: what
    if (status /= STUBJIT_OK) then
      print '(a, a, a, i0, a, a)', 'stubjit: ', what, ' failed (status ', status, '): ', &
        stubjit_error_message()
      error stop 2
    end if
  end subroutine

end program loops
