! tests/fortran: one case of the reference's policy x misuse table per run:
!   test_fortran_misuse <off|warn|error> <case>
! Checks what the case must do under the policy and prints 'case ok'; the cases that must end
! in error stop are run by misuse.sh, which checks the exit status and the message instead.
! Runs with SYMH_HOST_DEVICES=2 (the dev_id cases need a second device).
program test_fortran_misuse
  use symheap_dev
  implicit none
  character(len=32) :: policy_arg, name
  real(R8P), pointer :: a(:) => null(), alias(:) => null(), s(:) => null()
  real(R8P) :: h(8)
  integer(I4P) :: ierr, policy, allocs
  logical :: ok

  call get_command_argument(1, policy_arg)
  call get_command_argument(2, name)
  select case (policy_arg)
  case ('off')
    policy = FUNDAL_REGISTRY_OFF
  case ('warn')
    policy = FUNDAL_REGISTRY_WARN
  case default
    policy = FUNDAL_REGISTRY_ERROR
  end select
  call dev_registry_set_policy(policy)
  call check(dev_registry_get_policy() == policy, 'policy set')
  call dev_alloc(a, [8], ierr, dev_id=0, init_value=1._R8P)
  h = 2._R8P
  ok = .false.
  select case (name)
  case ('free_alias_ierr') ! pointer not recorded, with ierr
    alias => a
    call dev_free(a)
    call dev_free(alias, ierr=ierr)
    ok = ierr == FUNDAL_ERR_NOT_REGISTERED .and. associated(alias)
  case ('free_alias') ! without ierr: warn: warning, nullified; error: stop
    alias => a
    call dev_free(a)
    call dev_free(alias)
    ok = .not. associated(alias)
  case ('free_section_ierr') ! an interior pointer
    s => a(3:)
    call dev_free(s, ierr=ierr)
    ok = ierr == FUNDAL_ERR_NOT_REGISTERED .and. stats() == 1
    call dev_free(a)
  case ('free_devid_ierr')
    call dev_free(a, dev_id=1, ierr=ierr)
    if (policy == FUNDAL_REGISTRY_OFF) then
      ok = ierr == 0 .and. .not. associated(a) ! freed without checks
    else
      ok = ierr == FUNDAL_ERR_DEV_ID_MISMATCH .and. associated(a) .and. stats() == 1
      call dev_free(a)
    end if
  case ('free_devid') ! without ierr: warn: warning, freed on the recorded device
    call dev_free(a, dev_id=1)
    ok = .not. associated(a)
  case ('copy_strided_ierr')
    call dev_memcpy_to_device(a(1:8:2), h(1:4), ierr)
    if (policy == FUNDAL_REGISTRY_OFF) then
      ok = ierr == 0 .and. check_values([2, 1, 2, 1, 2, 1, 2, 1])
    else
      ok = ierr == FUNDAL_ERR_NOT_CONTIGUOUS .and. check_values([1, 1, 1, 1, 1, 1, 1, 1])
    end if
  case ('copy_strided') ! without ierr: the copy as before (warning under warn)
    call dev_memcpy_to_device(a(1:8:2), h(1:4))
    ok = check_values([2, 1, 2, 1, 2, 1, 2, 1])
  case ('copy_past_end_ierr')
    s(1:10) => a
    call dev_memcpy_from_device(h(1:8), s(3:10), ierr)
    ok = ierr == FUNDAL_ERR_NOT_REGISTERED .and. all(h == 2._R8P)
  case ('copy_past_end') ! without ierr: warn: warning, nothing copied
    s(1:10) => a
    call dev_memcpy_from_device(h(1:8), s(3:10))
    ok = all(h == 2._R8P)
  case ('copy_size_ierr') ! a smaller host array: refused whatever the policy, nothing written
    call dev_memcpy_from_device(h(1:4), a, ierr)
    ok = ierr == FUNDAL_ERR_MEMCPY_FAILED .and. all(h == 2._R8P)
  case ('copy_size') ! without ierr: one line and error stop, before anything is written
    call dev_memcpy_to_device(a, h(1:4))
    ok = .false.
  case ('replace_alias')
    alias => a
    call dev_free(a)
    call dev_alloc_replace(alias, [4], ierr)
    if (policy == FUNDAL_REGISTRY_ERROR) then
      ok = ierr == FUNDAL_ERR_NOT_REGISTERED .and. stats() == 0
    else
      ok = ierr == 0 .and. size(alias) == 4 .and. stats() == 1
      call dev_free(alias)
    end if
  case default
    write(*, '(A)') 'unknown case ' // trim(name)
    error stop 2
  end select
  call check(ok, trim(name) // ' under ' // trim(policy_arg))
  if (associated(a)) call dev_free(a)
  allocs = stats()
  call check(allocs == 0, 'nothing left allocated')
  write(*, '(A)') 'case ok'
contains
  integer(I4P) function stats()
    integer(I4P) :: n
    call dev_get_alloc_stats(allocs=n)
    stats = n
  end function
  logical function check_values(v)
    integer, intent(in) :: v(:)
    real(R8P) :: back(8)
    call dev_memcpy_from_device(back, a)
    check_values = all(back == real(v, R8P))
  end function
  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(*), intent(in) :: what
    if (.not. cond) then
      write(*, '(A)') 'FAILED: ' // what
      error stop 3
    end if
  end subroutine
end program
