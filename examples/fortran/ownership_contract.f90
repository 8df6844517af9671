! examples/fortran: "Ownership contract" of the structured-memory reference (the reference gives
! the table only; the example is the port's own, printing what the C port prints): what each
! routine does with a pointer that already holds a buffer, shown by the live allocation count.
program ownership_contract_example
  use symheap_dev
  implicit none
  real(R8P), pointer :: p(:) => null(), leaked(:) => null()
  real(R8P) :: x(4) = [1, 2, 3, 4]
  integer(I4P) :: ierr

  call dev_alloc(fptr_dev=p, ubounds=[4], ierr=ierr)
  leaked => p
  call dev_alloc(fptr_dev=p, ubounds=[4], ierr=ierr) ! intent(out): the buffer p held leaks
  print '(A,I0,A)', 'dev_alloc on a pointer holding a buffer: live device allocations: ', live(), &
                    ' (one leaked)'
  call dev_free(leaked)
  call dev_alloc_replace(fptr_dev=p, ubounds=[8], ierr=ierr)
  print '(A,I0)', 'dev_alloc_replace: frees, then allocates: live device allocations: ', live()
  call dev_assign_to_device(dst=p, src=x, ierr=ierr)
  print '(A,I0)', 'dev_assign_to_device: frees, allocates, copies: live device allocations: ', live()
  call dev_free(p, ierr=ierr)
  print '(A,I0,A,L1,A,I0)', 'dev_free: status ', ierr, ', pointer null: ', .not. associated(p), &
                            ', live device allocations: ', live()
  call dev_free(p, ierr=ierr)
  print '(A,I0,A)', 'dev_free of a null pointer: status ', ierr, ' (nothing done)'
contains
  integer(I4P) function live()
    call dev_get_alloc_stats(allocs=live)
  end function
end program
