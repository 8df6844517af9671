! A Fortran program outside the tree (tests/install): the installed module symheap_dev, built with
! symhfort and with pkg-config's symheap-fortran flags; no symh_init (a local facility).
program fort_consumer
  use symheap_dev
  implicit none
  real(R8P), pointer :: a(:, :) => null()
  real(R8P) :: h(3, 4), back(3, 4)
  integer(I4P) :: ierr

  h = 2.5_R8P
  call dev_alloc(a, [2, 4], ierr, lbounds=[0, 1]) ! a(0:2, 1:4), the shape of h
  if (ierr /= 0) error stop 'dev_alloc failed'
  call dev_memcpy_to_device(a, h)
  call dev_memcpy_from_device(back, a)
  if (any(back /= h) .or. lbound(a, 1) /= 0) error stop 'wrong copy or bounds'
  call dev_free(a)
  print '(A)', 'fortran consumer: ok'
end program
