! tests/fortran: the Fortran interface and C calls on one registry: an array allocated in C is
! copied and freed from Fortran, one allocated in Fortran is read and freed from C; the counts
! agree on both sides. Prints 'mixed: ok'.
program test_fortran_mixed
  use, intrinsic :: iso_c_binding
  use symheap_dev
  implicit none
  interface
    type(c_ptr) function mixed_c_alloc(n, value) bind(C)
      import
      integer(c_int), value :: n
      real(c_double), value :: value
    end function
    integer(c_int) function mixed_c_check_and_free(p, n) bind(C)
      import
      type(c_ptr), value :: p
      integer(c_int), value :: n
    end function
  end interface
  real(R8P), pointer :: c_arr(:) => null(), f_arr(:) => null()
  real(R8P) :: h(6)
  integer(I4P) :: ierr, allocs, i

  call c_f_pointer(mixed_c_alloc(6_c_int, 4._c_double), c_arr, [6])
  call dev_get_alloc_stats(allocs=allocs)
  if (allocs /= 1) error stop 'the C allocation is not counted'
  call dev_memcpy_from_device(h, c_arr(1:6), ierr)
  if (ierr /= 0 .or. any(h /= 4._R8P)) error stop 'copy of the C allocation'
  call dev_memcpy_from_device(h(1:2), c_arr(5:6), ierr)
  if (ierr /= 0) error stop 'section of the C allocation'
  call dev_free(c_arr, ierr=ierr)
  if (ierr /= 0 .or. associated(c_arr)) error stop 'Fortran frees the C allocation'
  call dev_alloc(f_arr, [6], ierr, label='from Fortran')
  call dev_memcpy_to_device(f_arr, [(real(i, R8P), i = 1, 6)])
  if (mixed_c_check_and_free(c_loc(f_arr), 6_c_int) /= 0) error stop 'C reads and frees'
  call dev_get_alloc_stats(allocs=allocs)
  if (allocs /= 0) error stop 'allocations left'
  call dev_free(f_arr, ierr=ierr) ! freed by C already: the registry knows
  if (ierr /= FUNDAL_ERR_NOT_REGISTERED) error stop 'double free not detected'
  print '(A)', 'mixed: ok'
end program
