! Program using `use mpi_f08`: TYPE(MPI_Comm), TYPE(MPI_Status), TYPE(MPI_Request) ... with
! ierror left out and given, large-count overloads; point-to-point (status components, MPI_ANY_SOURCE, get_count,
! waitall, MPI_STATUSES_IGNORE), collectives (MPI_IN_PLACE, gatherv, scatterv, alltoallv,
! MPI_MAXLOC on MPI_2DOUBLE_PRECISION, MPI_LAND on MPI_LOGICAL), communicators and handle
! comparison, derived datatypes, names, errors, MPI_Wtime, attributes, a Cartesian topology.
! Prints "No Errors" only when every check passed, else names the failed checks and stops 1.
module checks08
  use mpi_f08
  implicit none
  integer :: errs = 0
  integer :: grequest_frees = 0
contains
  ! Generalized request callbacks.
  subroutine query_fn(extra_state, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    type(MPI_Status) :: status
    integer :: ierror
    status%MPI_SOURCE = int(extra_state)
    status%MPI_TAG = 77
    ierror = MPI_SUCCESS
  end subroutine
  subroutine free_fn(extra_state, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    grequest_frees = grequest_frees + int(extra_state) + 1
    ierror = MPI_SUCCESS
  end subroutine
  subroutine cancel_fn(extra_state, complete, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    logical :: complete
    integer :: ierror
    ierror = MPI_SUCCESS
    if (complete .and. extra_state < 0) ierror = MPI_ERR_OTHER
  end subroutine

  subroutine chk(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      errs = errs + 1
      print *, 'check failed: ', what
    end if
  end subroutine
end module checks08

program f08usempi
  use mpi_f08
  use checks08
  implicit none
  integer :: rank, nproc, ierr
  call MPI_Init(ierr)
  call chk(ierr == MPI_SUCCESS, 'init')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  call test_p2p()
  call test_coll()
  call test_comm()
  call test_types()
  call test_misc()
  call test_grequest()
  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) then
    if (errs == 0) then
      print '(A)', ' No Errors'
    else
      print *, 'Found', errs, 'errors'
    end if
  end if
  call MPI_Finalize()
  if (errs /= 0) stop 1

contains

  subroutine test_p2p()
    type(MPI_Status) :: status, stats(2)
    type(MPI_Request) :: reqs(2)
    integer :: i, next, prev, cnt, ibuf(8), rbuf(8)
    double precision :: ds(3), dr(3)
    next = mod(rank + 1, nproc)
    prev = mod(rank + nproc - 1, nproc)
    ibuf = [(rank * 10 + i, i = 1, 8)]
    rbuf = 0
    if (mod(rank, 2) == 0) then
      call MPI_Send(ibuf, 8, MPI_INTEGER, next, 4, MPI_COMM_WORLD)
      call MPI_Recv(rbuf, 8, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status)
    else
      call MPI_Recv(rbuf, 8, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status)
      call MPI_Send(ibuf, 8, MPI_INTEGER, next, 4, MPI_COMM_WORLD)
    end if
    call chk(status%MPI_SOURCE == prev, 'status%MPI_SOURCE')
    call chk(status%MPI_TAG == 4, 'status%MPI_TAG')
    call MPI_Get_count(status, MPI_INTEGER, cnt)
    call chk(cnt == 8, 'get_count')
    call chk(all(rbuf == [(prev * 10 + i, i = 1, 8)]), 'ring data')
    ds = [rank * 1.0d0, 2.0d0, 3.0d0]
    call MPI_Irecv(dr, 3, MPI_DOUBLE_PRECISION, prev, 2, MPI_COMM_WORLD, reqs(1))
    call MPI_Isend(ds, 3, MPI_DOUBLE_PRECISION, next, 2, MPI_COMM_WORLD, reqs(2))
    call MPI_Waitall(2, reqs, stats)
    call chk(stats(1)%MPI_SOURCE == prev .and. stats(1)%MPI_TAG == 2, 'waitall statuses')
    call chk(reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL, 'requests freed')
    call chk(all(dr == [prev * 1.0d0, 2.0d0, 3.0d0]), 'isend data')
    call MPI_Irecv(dr, 3, MPI_DOUBLE_PRECISION, prev, 3, MPI_COMM_WORLD, reqs(1))
    call MPI_Isend(ds, 3, MPI_DOUBLE_PRECISION, next, 3, MPI_COMM_WORLD, reqs(2))
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
    call MPI_Sendrecv(rank, 1, MPI_INTEGER, next, 1, i, 1, MPI_INTEGER, prev, 1, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call chk(i == prev, 'sendrecv')
    ! The large-count form (MPI_Sendrecv_c) through the same generic name, and a specific name.
    i = -1
    call MPI_Sendrecv(rank, 1_MPI_COUNT_KIND, MPI_INTEGER, next, 6, i, 1_MPI_COUNT_KIND, &
                      MPI_INTEGER, prev, 6, MPI_COMM_WORLD, status)
    call chk(i == prev .and. status%MPI_SOURCE == prev, 'large-count sendrecv')
    call MPI_Barrier_f08(MPI_COMM_WORLD)
  end subroutine

  subroutine test_coll()
    integer :: i, j, v(4), g(64), cnts(16), displs(16), rcnts(16), rdispls(16)
    double precision :: pair(2), res(2), d(2)
    logical :: l
    v = 0
    if (rank == 0) v = [4, 3, 2, 1]
    call MPI_Bcast(v, 4, MPI_INTEGER, 0, MPI_COMM_WORLD)
    call chk(all(v == [4, 3, 2, 1]), 'bcast')
    d = [dble(rank), 1.0d0]
    call MPI_Allreduce(MPI_IN_PLACE, d, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
    call chk(d(1) == dble(nproc * (nproc - 1) / 2) .and. d(2) == dble(nproc), 'allreduce')
    call MPI_Reduce(rank + 1, i, 1, MPI_INTEGER, MPI_PROD, 0, MPI_COMM_WORLD)
    if (rank == 0) call chk(i == product([(j, j = 1, nproc)]), 'reduce prod')
    pair = [dble(mod(rank + 1, nproc)), dble(rank)]
    call MPI_Allreduce(pair, res, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD)
    call chk(res(1) == dble(nproc - 1) .and. nint(res(2)) == nproc - 2 + merge(nproc, 0, &
             nproc == 1), 'maxloc')
    call MPI_Allreduce(rank < nproc, l, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD)
    call chk(l, 'land')
    do i = 1, nproc
      cnts(i) = i
      displs(i) = (i - 1) * i / 2
    end do
    v = rank
    call MPI_Gatherv(v, rank + 1, MPI_INTEGER, g, cnts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD)
    if (rank == 0) then
      do i = 1, nproc
        call chk(all(g(displs(i) + 1:displs(i) + i) == i - 1), 'gatherv')
      end do
    end if
    g = [(i, i = 1, 64)]
    call MPI_Scatterv(g, cnts, displs, MPI_INTEGER, v, rank + 1, MPI_INTEGER, 0, &
                      MPI_COMM_WORLD)
    call chk(all(v(1:rank + 1) == [(displs(rank + 1) + i, i = 1, rank + 1)]), 'scatterv')
    call MPI_Allgather(rank, 1, MPI_INTEGER, g, 1, MPI_INTEGER, MPI_COMM_WORLD)
    call chk(all(g(1:nproc) == [(i, i = 0, nproc - 1)]), 'allgather')
    call MPI_Gather(rank * 2, 1, MPI_INTEGER, g, 1, MPI_INTEGER, nproc - 1, MPI_COMM_WORLD)
    if (rank == nproc - 1) call chk(all(g(1:nproc) == [(2 * i, i = 0, nproc - 1)]), 'gather')
    call MPI_Scatter([(i * 5, i = 1, nproc)], 1, MPI_INTEGER, j, 1, MPI_INTEGER, 0, &
                     MPI_COMM_WORLD)
    call chk(j == (rank + 1) * 5, 'scatter')
    g(1:nproc) = [(rank * 100 + i, i = 0, nproc - 1)]
    call MPI_Alltoall(g, 1, MPI_INTEGER, v, 1, MPI_INTEGER, MPI_COMM_WORLD)
    ! v has only 4 elements: check against at most 4 ranks
    call chk(all(v(1:min(nproc, 4)) == [(i * 100 + rank, i = 0, min(nproc, 4) - 1)]), 'alltoall')
    ! alltoallv: rank r sends i copies of r to rank i-1.
    g = rank
    do i = 1, nproc
      rcnts(i) = rank + 1
      rdispls(i) = (i - 1) * (rank + 1)
    end do
    call MPI_Alltoallv(g, cnts, displs, MPI_INTEGER, g(33), rcnts, rdispls, MPI_INTEGER, &
                       MPI_COMM_WORLD)
    do i = 1, nproc
      call chk(all(g(32 + rdispls(i) + 1:32 + rdispls(i) + rank + 1) == i - 1), 'alltoallv')
    end do
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call chk(ierr == MPI_SUCCESS, 'barrier')
  end subroutine

  subroutine test_comm()
    type(MPI_Comm) :: sub, dup, cart
    type(MPI_Group) :: grp
    integer :: res, srank, ssize, rlen, dims(2), coords(2), lo, hi, key
    integer(kind=MPI_ADDRESS_KIND) :: val
    logical :: flag, periods(2)
    character(len=MPI_MAX_OBJECT_NAME) :: name
    call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub)
    call MPI_Comm_size(sub, ssize)
    call MPI_Comm_rank(sub, srank)
    call chk(ssize == (nproc + 1 - mod(rank, 2)) / 2 .and. srank == rank / 2, 'split')
    call MPI_Comm_dup(sub, dup)
    call MPI_Comm_compare(sub, dup, res)
    call chk(res == MPI_CONGRUENT, 'compare dup')
    call chk(dup /= MPI_COMM_NULL .and. .not. (dup == sub), 'handle comparison')
    call MPI_Comm_set_name(dup, 'f08 dup')
    call MPI_Comm_get_name(dup, name, rlen)
    call chk(rlen == 7 .and. name == 'f08 dup', 'comm name')
    call MPI_Comm_group(dup, grp)
    call MPI_Group_size(grp, res)
    call chk(res == ssize, 'group size')
    call MPI_Group_free(grp)
    call chk(grp == MPI_GROUP_NULL, 'group_free')
    call MPI_Comm_free(dup)
    call MPI_Comm_free(sub)
    call chk(sub == MPI_COMM_NULL, 'comm_free')
    call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, key, 0_MPI_ADDRESS_KIND)
    call MPI_Comm_set_attr(MPI_COMM_WORLD, key, 1234_MPI_ADDRESS_KIND)
    call MPI_Comm_dup(MPI_COMM_WORLD, dup)
    call MPI_Comm_get_attr(dup, key, val, flag)
    call chk(flag .and. val == 1234, 'MPI_COMM_DUP_FN copies the attribute')
    call MPI_Comm_free(dup)
    call MPI_Comm_free_keyval(key)
    dims = 0
    call MPI_Dims_create(nproc, 2, dims)
    periods = [.false., .true.]
    call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart)
    call MPI_Cart_coords(cart, rank, 2, coords)
    call chk(coords(1) == rank / dims(2) .and. coords(2) == mod(rank, dims(2)), 'cart_coords')
    call MPI_Cart_shift(cart, 1, 1, lo, hi)
    call chk(hi == coords(1) * dims(2) + mod(coords(2) + 1, dims(2)), 'cart_shift')
    call MPI_Cart_get(cart, 2, dims, periods, coords)
    call chk(.not. periods(1) .and. periods(2), 'cart_get periods')
    call MPI_Comm_free(cart)
  end subroutine

  subroutine test_types()
    type(MPI_Datatype) :: vec, con
    integer :: i, sz, src(10), dst(5), next, prev
    integer(kind=MPI_ADDRESS_KIND) :: lb, extent
    next = mod(rank + 1, nproc)
    prev = mod(rank + nproc - 1, nproc)
    call MPI_Type_vector(5, 1, 2, MPI_INTEGER, vec)
    call MPI_Type_commit(vec)
    call MPI_Type_size(vec, sz)
    call MPI_Type_get_extent(vec, lb, extent)
    call chk(sz == 20 .and. lb == 0 .and. extent == 36, 'vector size/extent')
    src = [(rank * 100 + i, i = 1, 10)]
    call MPI_Sendrecv(src, 1, vec, next, 0, dst, 5, MPI_INTEGER, prev, 0, MPI_COMM_WORLD, &
                      MPI_STATUS_IGNORE)
    call chk(all(dst == [(prev * 100 + 2 * i - 1, i = 1, 5)]), 'vector data')
    call MPI_Type_free(vec)
    call chk(vec == MPI_DATATYPE_NULL, 'type_free')
    call MPI_Type_contiguous(2, MPI_INTEGER, con)
    call MPI_Type_commit(con)
    dst = 0
    call MPI_Sendrecv(src, 2, con, next, 0, dst, 5, MPI_INTEGER, prev, 0, MPI_COMM_WORLD, &
                      MPI_STATUS_IGNORE, ierr)
    call chk(ierr == MPI_SUCCESS, 'contiguous ierror')
    call chk(all(dst == [(prev * 100 + i, i = 1, 4), 0]), 'contiguous data')
    call MPI_Type_free(con)
  end subroutine

  subroutine test_grequest()
    type(MPI_Request) :: req
    type(MPI_Status) :: status
    integer(kind=MPI_ADDRESS_KIND) :: extra
    extra = rank
    call MPI_Grequest_start(query_fn, free_fn, cancel_fn, extra, req)
    call MPI_Grequest_complete(req)
    call MPI_Wait(req, status)
    call chk(status%MPI_SOURCE == rank .and. status%MPI_TAG == 77, 'grequest query_fn')
    call chk(grequest_frees == rank + 1, 'grequest free_fn')
    call chk(req == MPI_REQUEST_NULL, 'grequest freed')
  end subroutine

  subroutine test_misc()
    character(len=MPI_MAX_PROCESSOR_NAME) :: host
    character(len=MPI_MAX_ERROR_STRING) :: msg
    integer :: rlen, cls, e
    double precision :: t0
    type(MPI_Info) :: info
    character(len=16) :: value
    logical :: flag
    call MPI_Get_processor_name(host, rlen)
    call chk(rlen > 0 .and. len_trim(host) == rlen, 'processor name')
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
    call MPI_Recv(rlen, 1, MPI_INTEGER, nproc, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, e)
    call chk(e /= MPI_SUCCESS, 'bad source fails')
    call MPI_Error_class(e, cls)
    call chk(cls == MPI_ERR_RANK, 'error class')
    call MPI_Error_string(e, msg, rlen)
    call chk(rlen > 0 .and. len_trim(msg) == rlen, 'error string')
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)
    t0 = MPI_Wtime()
    call chk(MPI_Wtime() >= t0 .and. MPI_Wtick() > 0, 'wtime')
    call MPI_Info_create(info)
    call MPI_Info_set(info, 'answer', '42')
    call MPI_Info_get(info, 'answer', 16, value, flag)
    call chk(flag .and. value == '42', 'info_get')
    call MPI_Info_free(info)
    call chk(info == MPI_INFO_NULL, 'info_free')
  end subroutine

end program
