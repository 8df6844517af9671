! examples/fortran: "Allocate and copy" of the structured-memory reference, the program whose run
! the reference shows as heat_2 (n = 8: t(0:n+1)).
program heat_2
  use symheap_dev
  implicit none
  integer(I4P), parameter :: n = 8
  real(R8P), pointer :: t_dev(:) => null()
  real(R8P), allocatable :: t(:), h(:)
  integer(I4P) :: ierr, allocs
  integer(I8P) :: bytes

  call dev_alloc(fptr_dev=t_dev, lbounds=[0], ubounds=[5], ierr=ierr, label='t')
  if (ierr /= 0) error stop 'device allocation failed'
  print '(A,I0,A,I0)', 'device array bounds: ', lbound(t_dev, 1), ':', ubound(t_dev, 1)
  call dev_alloc_replace(fptr_dev=t_dev, lbounds=[0], ubounds=[n+1], ierr=ierr, label='t')
  if (ierr /= 0) error stop 'device allocation failed'
  print '(A,I0,A,I0)', 'after the refinement: ', lbound(t_dev, 1), ':', ubound(t_dev, 1)
  call dev_get_alloc_stats(allocs=allocs, bytes=bytes)
  print '(A,I0,A,I0,A)', 'live device allocations: ', allocs, ' (', bytes, ' bytes)'

  allocate(t(0:n+1))
  t = 20._R8P ; t(0) = 0._R8P ; t(n+1) = 0._R8P   ! room temperature, cold boundaries
  call dev_assign_to_device(dst=t_dev, src=t, ierr=ierr)
  if (ierr /= 0) error stop 'device allocation failed'
  print '(A,I0,A,I0)', 'dev_assign_to_device(dst, src):          ', lbound(t_dev, 1), ':', ubound(t_dev, 1)
  call dev_assign_to_device(lbounds=lbound(t, 1), dst=t_dev, src=t, ierr=ierr)
  if (ierr /= 0) error stop 'device allocation failed'
  print '(A,I0,A,I0)', 'dev_assign_to_device(lbounds, dst, src): ', lbound(t_dev, 1), ':', ubound(t_dev, 1)

  call dev_assign_from_device(dst=h, src=t_dev)
  print '(A,I0,A,I0)', 'dev_assign_from_device(dst, src):          ', lbound(h, 1), ':', ubound(h, 1)
  call dev_assign_from_device(lbounds=lbound(t_dev, 1), dst=h, src=t_dev)
  print '(A,I0,A,I0)', 'dev_assign_from_device(lbounds, dst, src): ', lbound(h, 1), ':', ubound(h, 1)
  print '(A,*(F5.1))', 'temperature:', h
  call dev_free(t_dev)
  call dev_get_alloc_stats(allocs=allocs)
  print '(A,I0)', 'live device allocations: ', allocs
  deallocate(t, h) ! the main program's variables are never freed for us
end program
