! examples/fortran: "dev_alloc" of the structured-memory reference, as the reference writes it
! (only the use line names symheap): a rank-3 device array with bounds -1:1, 0:2, 1:3, set to -1
! on the device, labelled 'q'. No symh_init: the device allocator needs none.
program dev_alloc_example
  use symheap_dev
  implicit none
  real(R8P), pointer :: q_dev(:,:,:) => null()
  real(R8P) :: q(3,3,3)
  integer(I4P) :: ierr

  call dev_alloc(fptr_dev=q_dev, lbounds=[-1,0,1], ubounds=[1,2,3], ierr=ierr, init_value=-1._R8P, label='q')
  if (ierr /= 0) error stop 'device allocation failed'
  call dev_memcpy_from_device(dst=q, src=q_dev)
  print '(A,3(I0,A,I0,1X))', 'bounds: ', lbound(q_dev, 1), ':', ubound(q_dev, 1), lbound(q_dev, 2), ':', &
                             ubound(q_dev, 2), lbound(q_dev, 3), ':', ubound(q_dev, 3)
  print '(A,L1)', 'every element set on the device to -1: ', all(q == -1._R8P)
  call dev_free(q_dev)
end program
