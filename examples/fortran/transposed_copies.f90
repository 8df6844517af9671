! examples/fortran: "Transposed copies" of the structured-memory reference (the reference shows
! the interfaces only; the example is the port's own and prints what the C port prints).
program transposed_copies_example
  use symheap_dev
  implicit none
  real(R8P), pointer :: a_dev(:,:) => null(), q_dev(:,:,:) => null()
  real(R8P) :: t(3,2), t2(3,2), a(2,3), buf(2,3)
  real(R8P) :: h(1:4,0:2,-1:0), h2(1:4,0:2,-1:0), q(-1:0,0:2,1:4), buf3(-1:0,0:2,1:4)
  integer(I4P) :: ierr, i, j, k, bb2(2,2), tb2(2,2), bb3(2,3), tb3(2,3), ij(2)
  logical :: same

  ! rank 2: device a_dev(1:2,1:3), host t(1:3,1:2) with t(j,i) = 10 i + j
  bb2 = reshape([1, 2, 1, 3], [2, 2])
  tb2 = reshape([1, 3, 1, 2], [2, 2])
  call dev_alloc(fptr_dev=a_dev, ubounds=[2,3], ierr=ierr)
  if (ierr /= 0) error stop 'device allocation failed'
  do i = 1, 2
    do j = 1, 3
      t(j, i) = 10 * i + j
    end do
  end do
  call dev_memcpy_to_device(bb2, tb2, a_dev, t, buf)
  call dev_memcpy_from_device(dst=a, src=a_dev)
  print '(A,2(I0,A,I0,:,1X))', 'device array bounds: ', lbound(a_dev, 1), ':', ubound(a_dev, 1), &
                               lbound(a_dev, 2), ':', ubound(a_dev, 2)
  do i = 1, 2
    print '(A,I0,A,3(1X,I0))', 'a_dev(', i, ',:):', nint(a(i, :))
  end do
  call dev_memcpy_from_device(bb2, tb2, t2, a_dev, buf)
  print '(A,L1)', 'transposed back to the host: ', all(t2 == t)

  ! rank 3: device q_dev(-1:0,0:2,1:4), ij = [1,3]: host h(1:4,0:2,-1:0)
  ij = [1, 3]
  bb3 = reshape([-1, 0, 0, 2, 1, 4], [2, 3])
  tb3 = reshape([1, 4, 0, 2, -1, 0], [2, 3])
  call dev_alloc(fptr_dev=q_dev, lbounds=bb3(1,:), ubounds=bb3(2,:), ierr=ierr)
  if (ierr /= 0) error stop 'device allocation failed'
  do k = 1, 4
    do j = 0, 2
      do i = -1, 0
        h(k, j, i) = 100 * i + 10 * j + k
      end do
    end do
  end do
  call dev_memcpy_to_device(bb3, ij, tb3, q_dev, h, buf3)
  call dev_memcpy_from_device(dst=q, src=q_dev)
  call dev_memcpy_from_device(bb3, ij, tb3, h2, q_dev, buf3)
  print '(A,I0,A,I0,2(1X,I0,A,I0),A,I0,A,I0,A,I0,A,I0,2(1X,I0,A,I0))', 'device array bounds: ', &
    (lbound(q_dev, k), ':', ubound(q_dev, k), k = 1, 3), ', ij = [', ij(1), ',', ij(2), &
    '], host array bounds: ', (lbound(h, k), ':', ubound(h, k), k = 1, 3)
  same = .true.
  do i = -1, 0
    do j = 0, 2
      do k = 1, 4
        same = same .and. q(i, j, k) == h(k, j, i) .and. h2(k, j, i) == h(k, j, i)
      end do
    end do
  end do
  print '(A,L1)', 'q_dev(i,j,k) == h(k,j,i) everywhere, and back: ', same
  call dev_free(a_dev)
  call dev_free(q_dev)
end program
