! tests/fortran: every procedure of symheap_dev for every kind at ranks 1, 2, 3 and 7 (the body
! in kind_body.inc, included once per kind): bounds, init values, labels at and past 32
! characters, sections, transposed copies against a reference loop, replace without a leak.
! No symh_init: the allocator comes up locally. Exit code 0 when every check holds.
module kind_checks
  use symheap_dev
  implicit none
  integer :: failures = 0
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      failures = failures + 1
      write(*, '(A)') 'FAILED: ' // what
    end if
  end subroutine
#define TT real
#undef KNAME
#define KNAME check_R8P
#define TK R8P
#define ONE 1._R8P
#include "kind_body.inc"
#undef TK
#undef ONE
#undef KNAME
#define KNAME check_R4P
#define TK R4P
#define ONE 1._R4P
#include "kind_body.inc"
#undef TT
#undef TK
#undef ONE
#define TT integer
#undef KNAME
#define KNAME check_I8P
#define TK I8P
#define ONE 1_I8P
#include "kind_body.inc"
#undef TK
#undef ONE
#undef KNAME
#define KNAME check_I4P
#define TK I4P
#define ONE 1_I4P
#include "kind_body.inc"
#undef TK
#undef ONE
#undef KNAME
#define KNAME check_I2P
#define TK I2P
#define ONE 1_I2P
#include "kind_body.inc"
#undef TK
#undef ONE
#undef KNAME
#define KNAME check_I1P
#define TK I1P
#define ONE 1_I1P
#include "kind_body.inc"
end module

program test_fortran_kinds
  use kind_checks
  implicit none
  call check_R8P()
  call check_R4P()
  call check_I8P()
  call check_I4P()
  call check_I2P()
  call check_I1P()
  if (failures /= 0) then
    write(*, '(I0,A)') failures, ' check(s) failed'
    error stop 1
  end if
  write(*, '(A)') 'every check passed'
end program
