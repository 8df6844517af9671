! examples/fortran: "Copies" of the structured-memory reference (n = 10, which the reference
! leaves open): a temperature field to the device, forgotten on the host, and back.
program copies_example
  use symheap_dev
  implicit none
  integer(I4P), parameter :: n = 10
  real(R8P), pointer :: t_dev(:) => null()
  real(R8P) :: t(n)
  integer(I4P) :: ierr

  call dev_alloc(fptr_dev=t_dev, ubounds=[n], ierr=ierr, label='t')
  if (ierr /= 0) error stop 'device allocation failed'
  t = 20._R8P                                   ! room temperature...
  t(n/2) = 100._R8P                             ! ...with a hot spot
  call dev_memcpy_to_device(dst=t_dev, src=t)   ! host -> device
  t = 0._R8P                                    ! forget the host copy
  call dev_memcpy_from_device(dst=t, src=t_dev) ! device -> host
  print '(A,*(F6.1))', 'temperature:', t
  call dev_free(t_dev)
end program
