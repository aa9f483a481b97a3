! Free-form program using `use mpi`: point-to-point (probe, waitany, persistent requests),
! collectives (MPI_IN_PLACE at the root, user-defined operation written in Fortran),
! communicators, datatypes, strings, errors (a Fortran error handler and MPI_ERRORS_RETURN),
! attribute caching with Fortran copy/delete callbacks, MPI_WTIME, a Cartesian topology.
! Prints "No Errors" only when every check passed, else names the failed checks and stops 1.
module checks
  implicit none
  integer :: errs = 0
  integer :: handler_calls = 0, handler_code = 0
  integer :: deletes = 0
contains
  subroutine chk(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      errs = errs + 1
      print *, 'check failed: ', what
    end if
  end subroutine
end module checks

! MPI_User_function: inoutvec(i) = invec(i) + inoutvec(i) + 1 on MPI_INTEGER (associative:
! n values reduce to their sum plus n - 1).
subroutine plus_one(invec, inoutvec, len, dtype)
  use mpi
  implicit none
  integer :: len, dtype
  integer :: invec(len), inoutvec(len)
  integer :: i
  if (dtype /= MPI_INTEGER) return
  do i = 1, len
    inoutvec(i) = invec(i) + inoutvec(i) + 1
  end do
end subroutine

subroutine my_handler(comm, code)
  use checks
  implicit none
  integer :: comm, code
  handler_calls = handler_calls + 1
  handler_code = code
  if (comm == 0) handler_calls = -1000
end subroutine

! Copy callback: the copied attribute is the old one plus 1000 plus extra_state.
subroutine my_copy(oldcomm, keyval, extra, valin, valout, flag, ierr)
  use mpi
  implicit none
  integer :: oldcomm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
  logical :: flag
  valout = valin + 1000 + extra
  flag = .true.
  ierr = MPI_SUCCESS
end subroutine

subroutine my_delete(comm, keyval, val, extra, ierr)
  use mpi
  use checks
  implicit none
  integer :: comm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: val, extra
  deletes = deletes + 1
  ierr = MPI_SUCCESS
end subroutine

program f90usempi
  use mpi
  use checks
  implicit none
  integer :: ierr, rank, nproc
  call MPI_Init(ierr)
  call chk(ierr == MPI_SUCCESS, 'init')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  call test_p2p(rank, nproc)
  call test_coll(rank, nproc)
  call test_comm(rank, nproc)
  call test_misc(rank, nproc)
  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (errs == 0) then
      print '(A)', ' No Errors'
    else
      print *, 'Found', errs, 'errors'
    end if
  end if
  call MPI_Finalize(ierr)
  if (errs /= 0) stop 1

contains

  subroutine test_p2p(rank, nproc)
    integer, intent(in) :: rank, nproc
    integer :: ierr, i, next, prev, idx, cnt
    integer :: status(MPI_STATUS_SIZE), reqs(2), preq
    integer :: sbuf(20), rbuf(20)
    logical :: flag
    real :: r(4), rr(4)
    next = mod(rank + 1, nproc)
    prev = mod(rank + nproc - 1, nproc)
    sbuf = [(rank * 1000 + i, i = 1, 20)]
    rbuf = -1
    call MPI_Isend(sbuf, 17, MPI_INTEGER, next, 11, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Probe(MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, status, ierr)
    call chk(status(MPI_SOURCE) == prev, 'probe source')
    call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
    call chk(cnt == 17, 'probe count')
    call MPI_Irecv(rbuf, 20, MPI_INTEGER, status(MPI_SOURCE), MPI_ANY_TAG, MPI_COMM_WORLD, &
                   reqs(2), ierr)
    call MPI_Waitany(2, reqs, idx, status, ierr)
    call chk(idx == 1 .or. idx == 2, 'waitany index')
    call MPI_Waitany(2, reqs, idx, status, ierr)
    call MPI_Waitany(2, reqs, idx, status, ierr)
    call chk(idx == MPI_UNDEFINED, 'waitany undefined')
    call chk(all(rbuf(1:17) == [(prev * 1000 + i, i = 1, 17)]), 'isend/irecv data')
    call chk(all(rbuf(18:20) == -1), 'irecv wrote past count')
    ! Persistent receive, started twice.
    call MPI_Recv_init(rr, 4, MPI_REAL, prev, 5, MPI_COMM_WORLD, preq, ierr)
    do i = 1, 2
      r = [(rank + i + 0.5 * idx, idx = 1, 4)]
      call MPI_Start(preq, ierr)
      call MPI_Send(r, 4, MPI_REAL, next, 5, MPI_COMM_WORLD, ierr)
      call MPI_Wait(preq, status, ierr)
      call chk(status(MPI_TAG) == 5, 'persistent tag')
      call chk(all(rr == [(prev + i + 0.5 * idx, idx = 1, 4)]), 'persistent data')
    end do
    call MPI_Request_free(preq, ierr)
    call MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, flag, status, ierr)
    call chk(.not. flag, 'iprobe finds nothing')
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end subroutine

  subroutine test_coll(rank, nproc)
    integer, intent(in) :: rank, nproc
    integer :: ierr, op, i, v(3), expect(3)
    double precision :: d(2)
    logical :: l(2), lr(2)
    external :: plus_one
    ! Root reduces in place.
    d = [dble(rank), 1.0d0]
    if (rank == 0) then
      call MPI_Reduce(MPI_IN_PLACE, d, 2, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
      call chk(d(1) == dble(nproc * (nproc - 1) / 2) .and. d(2) == nproc, 'reduce in place')
    else
      call MPI_Reduce(d, d, 2, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    end if
    ! A user operation written in Fortran (declared non-commutative).
    call MPI_Op_create(plus_one, .false., op, ierr)
    v = [rank + 1, 1, -rank]
    call MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
    expect = [nproc * (nproc + 1) / 2, nproc, -nproc * (nproc - 1) / 2] + (nproc - 1)
    i = 0
    call chk(all(v == expect), 'user op allreduce')
    call MPI_Op_free(op, ierr)
    call chk(op == MPI_OP_NULL, 'op_free')
    l = [.true., rank == nproc - 1]
    call MPI_Allreduce(l, lr, 2, MPI_LOGICAL, MPI_LXOR, MPI_COMM_WORLD, ierr)
    call chk(lr(1) .eqv. (mod(nproc, 2) == 1), 'lxor 1')
    call chk(lr(2), 'lxor 2')
    call MPI_Scan(rank, i, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call chk(i == rank * (rank + 1) / 2, 'scan')
  end subroutine

  subroutine test_comm(rank, nproc)
    integer, intent(in) :: rank, nproc
    integer :: ierr, keyval, dup, cart, dims(1), coords(1), lo, hi, nrank
    integer(kind=MPI_ADDRESS_KIND) :: val
    logical :: flag, periods(1)
    character(len=MPI_MAX_OBJECT_NAME) :: name
    integer :: rlen
    external :: my_copy, my_delete
    call MPI_Comm_create_keyval(my_copy, my_delete, keyval, 7_MPI_ADDRESS_KIND, ierr)
    call chk(ierr == MPI_SUCCESS, 'create_keyval')
    call MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, 42_MPI_ADDRESS_KIND, ierr)
    call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
    call MPI_Comm_get_attr(dup, keyval, val, flag, ierr)
    call chk(flag .and. val == 1049, 'copy callback value')
    call MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, val, flag, ierr)
    call chk(flag .and. val == 42, 'attribute value')
    call MPI_Comm_set_name(dup, 'dup of world', ierr)
    call MPI_Comm_get_name(dup, name, rlen, ierr)
    call chk(rlen == 12 .and. name == 'dup of world', 'comm name')
    call MPI_Comm_free(dup, ierr)
    call chk(deletes == 1, 'delete callback on free')
    call MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval, ierr)
    call chk(deletes == 2, 'delete callback on delete_attr')
    call MPI_Comm_free_keyval(keyval, ierr)
    call chk(keyval == MPI_KEYVAL_INVALID, 'free_keyval')
    ! A periodic ring.
    dims(1) = nproc
    periods(1) = .true.
    call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .true., cart, ierr)
    call MPI_Comm_rank(cart, nrank, ierr)
    call MPI_Cart_coords(cart, nrank, 1, coords, ierr)
    call chk(coords(1) == nrank, 'ring coords')
    call MPI_Cart_shift(cart, 0, 1, lo, hi, ierr)
    call chk(lo == mod(nrank + nproc - 1, nproc) .and. hi == mod(nrank + 1, nproc), 'ring shift')
    call MPI_Topo_test(cart, lo, ierr)
    call chk(lo == MPI_CART, 'topo_test')
    call MPI_Comm_free(cart, ierr)
    if (rank < 0) print *, rank
  end subroutine

  subroutine test_misc(rank, nproc)
    integer, intent(in) :: rank, nproc
    integer :: ierr, eh, cls, rlen, t
    character(len=MPI_MAX_ERROR_STRING) :: msg
    character(len=MPI_MAX_PROCESSOR_NAME) :: host
    double precision :: t0
    integer(kind=MPI_ADDRESS_KIND) :: a1, a2
    integer :: arr(10), info
    logical :: flag
    external :: my_handler
    call MPI_Comm_create_errhandler(my_handler, eh, ierr)
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh, ierr)
    call MPI_Send(arr, -1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, ierr)
    call chk(ierr /= MPI_SUCCESS, 'negative count fails')
    call chk(handler_calls == 1, 'fortran error handler called')
    call MPI_Error_class(handler_code, cls, ierr)
    call chk(cls == MPI_ERR_COUNT, 'handler got MPI_ERR_COUNT')
    call MPI_Errhandler_free(eh, ierr)
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
    call MPI_Type_size(MPI_DATATYPE_NULL, t, ierr)
    call chk(ierr /= MPI_SUCCESS, 'type_size of null fails')
    call MPI_Error_string(ierr, msg, rlen, ierr)
    call chk(rlen > 0 .and. len_trim(msg) == rlen, 'error string')
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)
    ! Info keys and values lose leading and trailing blanks; MPI_INFO_GET_STRING's buflen
    ! counts characters (no NUL).
    call MPI_Info_create(info, ierr)
    call MPI_Info_set(info, '  size ', ' large  ', ierr)
    call MPI_Info_get(info, 'size', 10, msg, flag, ierr)
    call chk(flag .and. msg == 'large', 'info value trimmed')
    rlen = 0
    call MPI_Info_get_string(info, 'size', rlen, msg, flag, ierr)
    call chk(flag .and. rlen == 5, 'info_get_string length')
    rlen = 3
    msg = 'xxxxxxxx'
    call MPI_Info_get_string(info, 'size', rlen, msg, flag, ierr)
    call chk(flag .and. rlen == 5 .and. msg == 'lar', 'info_get_string truncated')
    call MPI_Info_free(info, ierr)
    call MPI_Get_processor_name(host, rlen, ierr)
    call chk(rlen > 0 .and. len_trim(host) == rlen, 'processor name')
    t0 = MPI_Wtime()
    call chk(MPI_Wtime() - t0 >= 0 .and. MPI_Wtick() > 0, 'wtime')
    call MPI_Get_address(arr(1), a1, ierr)
    call MPI_Get_address(arr(10), a2, ierr)
    call chk(a2 - a1 == 36, 'get_address')
    call chk(MPI_Aint_diff(a2, a1) == 36, 'aint_diff')
    call MPI_Type_size(MPI_DOUBLE_COMPLEX, t, ierr)
    call chk(t == 16, 'double complex size')
    call MPI_Type_size(MPI_INTEGER8, t, ierr)
    call chk(t == 8, 'integer8 size')
    call MPI_Sizeof(t0, t, ierr)
    call chk(t == 8 .and. ierr == MPI_SUCCESS, 'sizeof double precision')
    call MPI_Sizeof(arr, t, ierr)
    call chk(t == 4, 'sizeof integer array')
    if (rank < 0 .or. nproc < 0) print *, rank
  end subroutine

end program
