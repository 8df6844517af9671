! symheap_dev: the Fortran interface to symheap's device allocator (docs/fortran.md), the
! structured-memory API as the reference gives it, over the C engine (include/symheap/device.h)
! and its one allocation registry. The specific procedures of every kind and rank are generated
! at configure time (cmake/SymhFortranGen.cmake) from fort_procs.inc.in and fort_procs_t.inc.in;
! this file holds the kinds, the error values, the C interfaces and the helpers they share.
module symheap_dev
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int8, int16, int32, int64, real32, real64, error_unit, &
                                           output_unit
  implicit none
  private

  integer, parameter, public :: R8P = real64, R4P = real32
  integer, parameter, public :: I8P = int64, I4P = int32, I2P = int16, I1P = int8

  ! The error values of the reference (ierr).
  integer(I4P), parameter, public :: FUNDAL_ERR_FPTR_DEV_NOT_ALLOCATED = 101
  integer(I4P), parameter, public :: FUNDAL_ERR_NOT_REGISTERED = 103
  integer(I4P), parameter, public :: FUNDAL_ERR_DEV_ID_MISMATCH = 104
  integer(I4P), parameter, public :: FUNDAL_ERR_NOT_CONTIGUOUS = 105
  integer(I4P), parameter, public :: FUNDAL_ERR_MEMCPY_FAILED = 106

  ! The registry policies (SYMH_REGISTRY=off|warn|error; dev_registry_set_policy).
  integer(I4P), parameter, public :: FUNDAL_REGISTRY_OFF = 0
  integer(I4P), parameter, public :: FUNDAL_REGISTRY_WARN = 1
  integer(I4P), parameter, public :: FUNDAL_REGISTRY_ERROR = 2

  public :: dev_alloc, dev_alloc_replace, dev_free
  public :: dev_memcpy_to_device, dev_memcpy_from_device
  public :: dev_assign_to_device, dev_assign_from_device
  public :: dev_alloc_report, dev_get_alloc_stats
  public :: dev_registry_set_policy, dev_registry_get_policy

  ! symheap's status codes the helpers tell apart (include/symheap/status.h).
  integer(c_int), parameter :: SYMH_OK = 0, SYMH_ERR_NOT_REGISTERED = -4
  integer(c_int), parameter :: SYMH_DEVICE_CURRENT = -1, SYMH_DEVICE_ANY = -2

  type, bind(C) :: symh_dev_alloc_opts_t
    integer(c_int) :: device
    type(c_ptr) :: init_value
    integer(c_size_t) :: init_size
    type(c_ptr) :: label
  end type

  type, bind(C) :: symh_dev_alloc_info_t
    type(c_ptr) :: base
    integer(c_size_t) :: nbytes
    integer(c_int) :: device
    character(kind=c_char) :: label(33)
  end type

  type(c_ptr), bind(C, name='stdout') :: c_stdout

  interface
    integer(c_int) function c_dev_alloc(ptr, nbytes, opts) bind(C, name='symh_dev_alloc')
      import
      type(c_ptr), intent(inout) :: ptr
      integer(c_size_t), value :: nbytes
      type(symh_dev_alloc_opts_t), intent(in) :: opts
    end function
    integer(c_int) function c_dev_alloc_replace(ptr, nbytes, opts) &
        bind(C, name='symh_dev_alloc_replace')
      import
      type(c_ptr), intent(inout) :: ptr
      integer(c_size_t), value :: nbytes
      type(symh_dev_alloc_opts_t), intent(in) :: opts
    end function
    integer(c_int) function c_dev_free(ptr, device) bind(C, name='symh_dev_free')
      import
      type(c_ptr), intent(inout) :: ptr
      integer(c_int), value :: device
    end function
    integer(c_int) function h_memcpy_to(dst, src, nbytes) bind(C, name='symh_dev_memcpy_to_device')
      import
      type(c_ptr), value :: dst, src
      integer(c_size_t), value :: nbytes
    end function
    integer(c_int) function h_memcpy_from(dst, src, nbytes) &
        bind(C, name='symh_dev_memcpy_from_device')
      import
      type(c_ptr), value :: dst, src
      integer(c_size_t), value :: nbytes
    end function
    integer(c_int) function c_dev_memcpy_transposed(to_device, rank, elem_size, lbounds, ubounds, &
        ij, dst, src, host_buf) bind(C, name='symh_dev_memcpy_transposed')
      import
      integer(c_int), value :: to_device, rank
      integer(c_size_t), value :: elem_size
      integer(c_long), intent(in) :: lbounds(*), ubounds(*)
      integer(c_int), intent(in) :: ij(2)
      type(c_ptr), value :: dst, src, host_buf
    end function
    integer(c_int) function c_dev_alloc_query(ptr, nbytes, info) bind(C, name='symh_dev_alloc_query')
      import
      type(c_ptr), value :: ptr
      integer(c_size_t), value :: nbytes
      type(symh_dev_alloc_info_t), intent(out) :: info
    end function
    integer(c_int) function c_dev_get_alloc_stats(device, allocs, bytes) &
        bind(C, name='symh_dev_get_alloc_stats')
      import
      integer(c_int), value :: device
      integer(c_size_t), intent(out) :: allocs, bytes
    end function
    integer(c_int) function c_dev_alloc_report(out) bind(C, name='symh_dev_alloc_report')
      import
      type(c_ptr), value :: out
    end function
    integer(c_int) function c_registry_set_policy(policy) bind(C, name='symh_registry_set_policy')
      import
      integer(c_int), value :: policy
    end function
    integer(c_int) function c_registry_get_policy() bind(C, name='symh_registry_get_policy')
      import
    end function
    integer(c_int) function c_fflush(f) bind(C, name='fflush')
      import
      type(c_ptr), value :: f
    end function
    type(c_ptr) function c_fopen(path, mode) bind(C, name='fopen')
      import
      character(kind=c_char), intent(in) :: path(*), mode(*)
    end function
    integer(c_int) function c_fclose(f) bind(C, name='fclose')
      import
      type(c_ptr), value :: f
    end function
  end interface

#include "symh_fort_generic.inc"

contains

  ! The registry policy in force.
  integer(I4P) function dev_registry_get_policy()
    dev_registry_get_policy = int(c_registry_get_policy(), I4P)
  end function

  subroutine dev_registry_set_policy(policy, ierr)
    integer(I4P), intent(in) :: policy
    integer(I4P), intent(out), optional :: ierr
    integer(c_int) :: st
    st = c_registry_set_policy(int(policy, c_int))
    if (present(ierr)) ierr = merge(0_I4P, int(-st, I4P), st == SYMH_OK)
  end subroutine

  ! Live device allocations and their bytes on dev_id (default: every device).
  subroutine dev_get_alloc_stats(allocs, bytes, dev_id, ierr)
    integer(I4P), intent(out), optional :: allocs
    integer(I8P), intent(out), optional :: bytes
    integer(I4P), intent(in), optional :: dev_id
    integer(I4P), intent(out), optional :: ierr
    integer(c_size_t) :: a, b
    integer(c_int) :: dev, st
    dev = SYMH_DEVICE_ANY
    if (present(dev_id)) dev = int(dev_id, c_int)
    a = 0
    b = 0
    st = c_dev_get_alloc_stats(dev, a, b)
    if (present(allocs)) allocs = int(a, I4P)
    if (present(bytes)) bytes = int(b, I8P)
    if (present(ierr)) ierr = merge(0_I4P, int(-st, I4P), st == SYMH_OK)
  end subroutine

  ! One line per live device allocation, then the total (the format of symh_dev_alloc_report), on
  ! the standard output or appended to the file `file`.
  subroutine dev_alloc_report(ierr, file)
    integer(I4P), intent(out), optional :: ierr
    character(*), intent(in), optional :: file
    type(c_ptr) :: f
    integer(c_int) :: st
    st = -1
    if (present(file)) then
      f = c_fopen(trim(file) // c_null_char, 'a' // c_null_char)
      if (c_associated(f)) then
        st = c_dev_alloc_report(f)
        if (c_fclose(f) /= 0) st = -1
      end if
    else
      flush(output_unit)
      st = c_dev_alloc_report(c_stdout)
      if (c_fflush(c_stdout) /= 0) st = -1
    end if
    if (present(ierr)) ierr = merge(0_I4P, int(abs(st), I4P), st == SYMH_OK)
  end subroutine

  ! A misuse the caller did not take a status for: error stop under policy error, a warning under
  ! warn, nothing under off (docs/fortran.md, the reference's table).
  subroutine h_misuse(routine, code, what, quiet)
    character(*), intent(in) :: routine, what
    integer(I4P), intent(in) :: code
    logical, intent(in) :: quiet
    integer(I4P) :: policy
    if (quiet) return
    policy = dev_registry_get_policy()
    if (policy == FUNDAL_REGISTRY_ERROR) then
      write(error_unit, '(A,I0,A)') 'symheap_dev: ' // routine // ': ' // what // ' (error ', code, &
        ', registry policy error: stopping)'
      flush(error_unit)
      error stop 1
    end if
    if (policy == FUNDAL_REGISTRY_WARN) then
      write(error_unit, '(A,I0,A)') 'symheap_dev: warning: ' // routine // ': ' // what // ' (error ', &
        code, ')'
      flush(error_unit)
    end if
  end subroutine

  ! The FUNDAL value of a status of the engine's copies.
  integer(I4P) function h_check(st)
    integer(c_int), intent(in) :: st
    if (st == SYMH_OK) then
      h_check = 0
    else if (st == SYMH_ERR_NOT_REGISTERED) then
      h_check = FUNDAL_ERR_NOT_REGISTERED
    else
      h_check = FUNDAL_ERR_MEMCPY_FAILED
    end if
  end function

  ! ierr if present, else error stop on an error.
  subroutine h_status(routine, st, ierr)
    character(*), intent(in) :: routine
    integer(I4P), intent(in) :: st
    integer(I4P), intent(out), optional :: ierr
    if (present(ierr)) then
      ierr = st
    else if (st /= 0) then
      write(error_unit, '(A,I0)') 'symheap_dev: ' // routine // ' failed: error ', st
      flush(error_unit)
      error stop 1
    end if
  end subroutine

  ! Allocates (replace: frees what p holds first) nelem elements of eb bytes, bounds lb:ub.
  subroutine h_alloc(routine, p, lb, ub, eb, ierr, replace, dev_id, ip, label)
    character(*), intent(in) :: routine
    type(c_ptr), intent(inout) :: p
    integer(I4P), intent(in) :: lb(:), ub(:)
    integer, intent(in) :: eb
    integer(I4P), intent(out) :: ierr
    logical, intent(in) :: replace
    integer(I4P), intent(in), optional :: dev_id
    type(c_ptr), intent(in) :: ip
    character(*), intent(in), optional :: label
    type(symh_dev_alloc_opts_t) :: opts
    type(symh_dev_alloc_info_t) :: info
    character(kind=c_char, len=:), allocatable, target :: name
    integer(c_size_t) :: nbytes
    integer(c_int) :: st
    ierr = 0
    nbytes = max(product(int(max(ub - lb + 1, 0), c_size_t)), 1_c_size_t) * int(eb, c_size_t)
    opts%device = SYMH_DEVICE_CURRENT
    if (present(dev_id)) opts%device = int(dev_id, c_int)
    opts%init_value = ip
    opts%init_size = 0
    if (c_associated(ip)) opts%init_size = int(eb, c_size_t)
    opts%label = c_null_ptr
    if (present(label)) then
      name = label // c_null_char
      opts%label = c_loc(name)
    end if
    if (replace .and. c_associated(p) .and. dev_registry_get_policy() /= FUNDAL_REGISTRY_OFF) then
      st = c_dev_alloc_query(p, 0_c_size_t, info)
      if (st /= SYMH_OK .or. .not. c_associated(info%base, p)) then
        if (dev_registry_get_policy() == FUNDAL_REGISTRY_ERROR) then
          write(error_unit, '(A)') 'symheap_dev: ' // routine // ': the pointer is not a live device ' // &
            'allocation; nothing freed, nothing allocated'
          ierr = FUNDAL_ERR_NOT_REGISTERED
          return
        end if
        call h_misuse(routine, FUNDAL_ERR_NOT_REGISTERED, 'the pointer is not a live device ' // &
          'allocation; not freed (the host backend cannot free it safely), a new buffer allocated', &
          .false.)
        p = c_null_ptr
      end if
    end if
    if (replace) then
      st = c_dev_alloc_replace(p, nbytes, opts)
    else
      st = c_dev_alloc(p, nbytes, opts)
    end if
    if (st /= SYMH_OK) then
      p = c_null_ptr
      ierr = FUNDAL_ERR_FPTR_DEV_NOT_ALLOCATED
    end if
  end subroutine

  ! Frees p (not null) under the policy; .true. when the pointer is to be nullified.
  logical function h_free(p, dev_id, ierr)
    type(c_ptr), intent(inout) :: p
    integer(I4P), intent(in), optional :: dev_id
    integer(I4P), intent(out), optional :: ierr
    type(symh_dev_alloc_info_t) :: info
    integer(c_int) :: st, dev
    h_free = .false.
    if (present(ierr)) ierr = 0
    dev = SYMH_DEVICE_ANY
    if (present(dev_id)) dev = int(dev_id, c_int)
    if (dev_registry_get_policy() == FUNDAL_REGISTRY_OFF) then
      h_free = c_dev_free(p, dev) == SYMH_OK
      return
    end if
    st = c_dev_alloc_query(p, 0_c_size_t, info)
    if (st /= SYMH_OK .or. .not. c_associated(info%base, p)) then
      if (present(ierr)) then
        ierr = FUNDAL_ERR_NOT_REGISTERED
        return
      end if
      call h_misuse('dev_free', FUNDAL_ERR_NOT_REGISTERED, 'the pointer is not a live device ' // &
        'allocation (double free, alias, section or foreign pointer); nullified, not freed', .false.)
      h_free = .true.
      return
    end if
    if (present(dev_id)) then
      if (dev_id /= info%device) then
        if (present(ierr)) then
          ierr = FUNDAL_ERR_DEV_ID_MISMATCH
          return
        end if
        call h_misuse('dev_free', FUNDAL_ERR_DEV_ID_MISMATCH, 'dev_id differs from the device the ' // &
          'registry recorded; freed on the recorded device', .false.)
      end if
    end if
    st = c_dev_free(p, SYMH_DEVICE_ANY)
    if (st /= SYMH_OK .and. present(ierr)) ierr = FUNDAL_ERR_NOT_REGISTERED
    h_free = st == SYMH_OK
  end function

  ! Checks a copy's device range [dp, +nbytes) (dp null: not contiguous) under the policy, then
  ! copies; .true. when the caller is to copy by assignment instead (as before the registry).
  logical function h_copy(routine, to_device, dp, hp, nbytes, ierr, dst_bytes)
    character(*), intent(in) :: routine
    integer, intent(in) :: to_device
    type(c_ptr), intent(in) :: dp, hp
    integer(c_size_t), intent(in) :: nbytes
    integer(I4P), intent(out), optional :: ierr
    ! The destination's size where the caller knows it: a copy into a smaller array would write
    ! past it (memory safety, whatever the registry policy): FUNDAL_ERR_MEMCPY_FAILED.
    integer(c_size_t), intent(in), optional :: dst_bytes
    integer(I4P) :: code
    h_copy = .false.
    if (present(ierr)) ierr = 0
    if (present(dst_bytes)) then
      if (dst_bytes /= nbytes) then
        if (.not. present(ierr)) then
          write(error_unit, '(A,I0,A,I0,A)') 'symheap_dev: ' // routine // ': dst has ', dst_bytes, &
              ' bytes but src ', nbytes, ' (the arrays differ in size)'
          error stop 1
        end if
        ierr = FUNDAL_ERR_MEMCPY_FAILED
        return
      end if
    end if
    if (nbytes == 0) return
    code = h_range(routine, dp, nbytes, present(ierr), h_copy)
    if (code == 0 .and. .not. h_copy) then
      if (to_device == 1) then
        code = h_check(h_memcpy_to(dp, hp, nbytes))
      else
        code = h_check(h_memcpy_from(hp, dp, nbytes))
      end if
      if (code /= 0 .and. dev_registry_get_policy() == FUNDAL_REGISTRY_OFF) code = 0
      if (code /= 0 .and. .not. present(ierr)) then
        write(error_unit, '(A,I0,A)') 'symheap_dev: ' // routine // ': the copy failed (error ', code, ')'
        error stop 1
      end if
    end if
    if (present(ierr)) ierr = code
  end function

  ! The registry check of a device range under the policy: 0 (fallback .true.: copy by
  ! assignment) or the error; without a status taken (quiet false) a misuse warns or stops.
  integer(I4P) function h_range(routine, dp, nbytes, quiet, fallback)
    character(*), intent(in) :: routine
    type(c_ptr), intent(in) :: dp
    integer(c_size_t), intent(in) :: nbytes
    logical, intent(in) :: quiet
    logical, intent(out) :: fallback
    type(symh_dev_alloc_info_t) :: info
    integer(c_int) :: st
    integer(I4P) :: policy
    h_range = 0
    fallback = .false.
    policy = dev_registry_get_policy()
    if (.not. c_associated(dp)) then
      if (policy == FUNDAL_REGISTRY_OFF) then
        fallback = .true.
        return
      end if
      call h_misuse(routine, FUNDAL_ERR_NOT_CONTIGUOUS, 'the device array is not contiguous; ' // &
        'copied element by element', quiet)
      if (quiet) then
        h_range = FUNDAL_ERR_NOT_CONTIGUOUS
      else
        fallback = .true.
      end if
      return
    end if
    if (policy == FUNDAL_REGISTRY_OFF) return
    st = c_dev_alloc_query(dp, nbytes, info)
    if (st == SYMH_OK) return
    if (c_associated(info%base)) then
      h_range = FUNDAL_ERR_NOT_REGISTERED
      call h_misuse(routine, h_range, 'the device range ends past its allocation; nothing copied', quiet)
    else if (policy == FUNDAL_REGISTRY_ERROR) then
      h_range = FUNDAL_ERR_NOT_REGISTERED
      call h_misuse(routine, h_range, 'the device range is in no device allocation the registry ' // &
        'knows; nothing copied', quiet)
    end if
  end function

  ! The transposed copies: the registry check of the device side, then the engine's copy.
  logical function h_transposed(routine, to_device, rank, eb, bb, ij, dp, hp, bp, nbytes, ierr)
    character(*), intent(in) :: routine
    integer, intent(in) :: to_device, rank, eb
    integer(I4P), intent(in) :: bb(:,:), ij(2)
    type(c_ptr), intent(in) :: dp, hp, bp
    integer(c_size_t), intent(in) :: nbytes
    integer(I4P), intent(out), optional :: ierr
    integer(I4P) :: code
    h_transposed = .false.
    if (present(ierr)) ierr = 0
    if (nbytes == 0) return
    code = h_range(routine, dp, nbytes, present(ierr), h_transposed)
    if (code == 0 .and. .not. h_transposed) then
      if (to_device == 1) then
        code = h_check(h_transposed_c(1, rank, eb, bb, ij, dp, hp, bp))
      else
        code = h_check(h_transposed_c(0, rank, eb, bb, ij, hp, dp, bp))
      end if
      if (code /= 0 .and. dev_registry_get_policy() == FUNDAL_REGISTRY_OFF) code = 0
    end if
    if (present(ierr)) ierr = code
  end function

  integer(c_int) function h_transposed_c(to_device, rank, eb, bb, ij, dst, src, buf)
    integer, intent(in) :: to_device, rank, eb
    integer(I4P), intent(in) :: bb(:,:), ij(2)
    type(c_ptr), intent(in) :: dst, src, buf
    integer(c_long) :: lb(7), ub(7)
    integer(c_int) :: cij(2)
    lb(1:rank) = int(bb(1,1:rank), c_long)
    ub(1:rank) = int(bb(2,1:rank), c_long)
    cij = int(ij, c_int)
    h_transposed_c = c_dev_memcpy_transposed(int(to_device, c_int), int(rank, c_int), &
      int(eb, c_size_t), lb, ub, cij, dst, src, buf)
  end function

  ! The shape s with the dimensions ij swapped (rank 2: always the two).
  function h_swapped(s, ij) result(t)
    integer(I4P), intent(in) :: s(:), ij(2)
    integer(I4P) :: t(size(s))
    integer(I4P) :: k(2)
    k = ij
    if (size(s) == 2) k = [1, 2]
    t = s
    t(k(1)) = s(k(2))
    t(k(2)) = s(k(1))
  end function

  ! The order argument of reshape that transposes dimensions ij of a rank-n array.
  function h_order(n, ij) result(o)
    integer, intent(in) :: n
    integer(I4P), intent(in) :: ij(2)
    integer(I4P) :: o(n)
    integer :: d
    o = [(int(d, I4P), d = 1, n)]
    o = h_swapped(o, ij)
  end function

#include "symh_fort_procs.inc"

end module symheap_dev
