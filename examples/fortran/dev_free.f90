! examples/fortran: "dev_free" of the structured-memory reference: freeing through one pointer
! nullifies it but not its alias; freeing the alias is detected and nothing is freed.
program dev_free_example
  use symheap_dev
  implicit none
  real(R8P), pointer :: a_dev(:) => null(), alias(:) => null()
  integer(I4P) :: ierr

  call dev_alloc(fptr_dev=a_dev, ubounds=[100], ierr=ierr)
  if (ierr /= 0) error stop 'device allocation failed'
  alias => a_dev
  call dev_free(a_dev, ierr=ierr)  ! frees the buffer and nullifies a_dev, but not alias
  print '(A,I0)', 'first dev_free: ', ierr
  call dev_free(alias, ierr=ierr)  ! the same buffer again: detected, nothing is freed
  print '(A,I0,A,L1)', 'second dev_free: ', ierr, ', FUNDAL_ERR_NOT_REGISTERED: ', ierr == FUNDAL_ERR_NOT_REGISTERED
end program
