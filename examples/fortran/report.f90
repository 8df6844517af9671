! examples/fortran: dev_alloc_report (the report the reference's labels are for): three labelled
! device allocations, one label longer than 32 characters (truncated), reported, then one freed
! and reported again. The report goes to a file; the program masks the addresses and prints the
! allocation lines sorted, so that the output can be compared exactly (as the C port does).
program report_example
  use symheap_dev
  implicit none
  real(R8P), pointer :: q_dev(:,:,:) => null(), u_dev(:) => null()
  real(R4P), pointer :: w_dev(:) => null()
  integer(I4P) :: ierr

  call dev_alloc(fptr_dev=q_dev, ubounds=[3,3,3], ierr=ierr, init_value=0._R8P, label='q')
  call dev_alloc(fptr_dev=u_dev, ubounds=[40], ierr=ierr, init_value=0._R8P, label='u')
  call dev_alloc(fptr_dev=w_dev, ubounds=[1000], ierr=ierr, init_value=0._R4P, &
                 label='wind velocity on the staggered grid, x')
  call print_report()
  call dev_free(u_dev)
  print '(A)', 'after dev_free(u_dev):'
  call print_report()
  call dev_free(q_dev)
  call dev_free(w_dev)
contains
  subroutine print_report()
    character(len=256) :: lines(16), total, tmp
    character(len=*), parameter :: file = 'report_example.txt'
    integer :: unit, n, k, m, at, ios
    open(newunit=unit, file=file, status='replace')
    close(unit)
    call dev_alloc_report(ierr, file=file)
    if (ierr /= 0) error stop 'report failed'
    open(newunit=unit, file=file, status='old')
    n = 0
    do
      read(unit, '(A)', iostat=ios) tmp
      if (ios /= 0) exit
      at = index(tmp, 'address=0x')
      if (at == 0) then
        total = tmp
        cycle
      end if
      tmp(at+10:at+25) = repeat('#', 16)
      n = n + 1
      lines(n) = tmp
    end do
    close(unit, status='delete')
    do k = 2, n ! insertion sort
      tmp = lines(k)
      m = k - 1
      do while (m >= 1)
        if (lines(m) <= tmp) exit
        lines(m+1) = lines(m)
        m = m - 1
      end do
      lines(m+1) = tmp
    end do
    do k = 1, n
      print '(A)', trim(lines(k))
    end do
    print '(A)', trim(total)
  end subroutine
end program
