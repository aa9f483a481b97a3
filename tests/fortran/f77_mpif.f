! Fixed-form Fortran 77 style program using include 'mpif.h': point-to-point,
! collectives, communicators, derived datatypes, CHARACTER and LOGICAL
! arguments, errors, MPI_WTIME and a Cartesian topology. Prints "No Errors"
! only when every check passed, else names the failed checks and stops 1.
      program f77mpif
      implicit none
      include 'mpif.h'
      integer ierr, rank, nproc, errs
      common /ferrs/ errs
      errs = 0
      call mpi_init(ierr)
      call chk(ierr .eq. MPI_SUCCESS, 'init')
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, nproc, ierr)
      call tp2p(rank, nproc)
      call tcoll(rank, nproc)
      call tcomm(rank, nproc)
      call ttypes(rank, nproc)
      call tmisc(rank, nproc)
      call mpi_allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) then
        if (errs .eq. 0) then
          print '(A)', ' No Errors'
        else
          print *, 'Found', errs, 'errors'
        end if
      end if
      call mpi_finalize(ierr)
      if (errs .ne. 0) stop 1
      end

      subroutine chk(ok, what)
      implicit none
      logical ok
      character*(*) what
      integer errs
      common /ferrs/ errs
      if (.not. ok) then
        errs = errs + 1
        print *, 'check failed: ', what
      end if
      end

! Point-to-point: a ring with MPI_ANY_SOURCE and status fields,
! nonblocking exchange with MPI_WAITALL, MPI_STATUS_IGNORE.
      subroutine tp2p(rank, nproc)
      implicit none
      include 'mpif.h'
      integer rank, nproc, ierr, i, next, prev, cnt
      integer ibuf(10), rbuf(10), status(MPI_STATUS_SIZE)
      integer reqs(2), stats(MPI_STATUS_SIZE, 2)
      double precision dsend(5), drecv(5)
      next = mod(rank + 1, nproc)
      prev = mod(rank + nproc - 1, nproc)
      do i = 1, 10
        ibuf(i) = rank * 100 + i
        rbuf(i) = -1
      end do
      if (mod(rank, 2) .eq. 0) then
        call mpi_send(ibuf, 10, MPI_INTEGER, next, 7, MPI_COMM_WORLD,
     &                ierr)
        call mpi_recv(rbuf, 10, MPI_INTEGER, MPI_ANY_SOURCE, 7,
     &                MPI_COMM_WORLD, status, ierr)
      else
        call mpi_recv(rbuf, 10, MPI_INTEGER, MPI_ANY_SOURCE, 7,
     &                MPI_COMM_WORLD, status, ierr)
        call mpi_send(ibuf, 10, MPI_INTEGER, next, 7, MPI_COMM_WORLD,
     &                ierr)
      end if
      call chk(ierr .eq. MPI_SUCCESS, 'send/recv ierr')
      call chk(status(MPI_SOURCE) .eq. prev, 'status MPI_SOURCE')
      call chk(status(MPI_TAG) .eq. 7, 'status MPI_TAG')
      call mpi_get_count(status, MPI_INTEGER, cnt, ierr)
      call chk(cnt .eq. 10, 'get_count')
      do i = 1, 10
        call chk(rbuf(i) .eq. prev * 100 + i, 'ring data')
      end do
      do i = 1, 5
        dsend(i) = rank + i * 0.5d0
        drecv(i) = 0
      end do
      call mpi_irecv(drecv, 5, MPI_DOUBLE_PRECISION, prev, 9,
     &               MPI_COMM_WORLD, reqs(1), ierr)
      call mpi_isend(dsend, 5, MPI_DOUBLE_PRECISION, next, 9,
     &               MPI_COMM_WORLD, reqs(2), ierr)
      call mpi_waitall(2, reqs, stats, ierr)
      call chk(ierr .eq. MPI_SUCCESS, 'waitall')
      call chk(reqs(1) .eq. MPI_REQUEST_NULL, 'request freed')
      call chk(stats(MPI_SOURCE, 1) .eq. prev, 'waitall source')
      call chk(stats(MPI_TAG, 1) .eq. 9, 'waitall tag')
      do i = 1, 5
        call chk(drecv(i) .eq. prev + i * 0.5d0, 'isend data')
      end do
! MPI_ERROR is not set by single-completion calls: it keeps its value.
      status(MPI_ERROR) = MPI_ERR_DIMS
      call mpi_sendrecv(rank, 1, MPI_INTEGER, next, 4, cnt, 1,
     &                  MPI_INTEGER, prev, 4, MPI_COMM_WORLD, status,
     &                  ierr)
      call chk(status(MPI_ERROR) .eq. MPI_ERR_DIMS, 'MPI_ERROR kept')
      call chk(status(MPI_SOURCE) .eq. prev .and. cnt .eq. prev,
     &         'sendrecv status')
      call mpi_sendrecv(rank, 1, MPI_INTEGER, next, 3, i, 1,
     &                  MPI_INTEGER, prev, 3, MPI_COMM_WORLD,
     &                  MPI_STATUS_IGNORE, ierr)
      call chk(i .eq. prev, 'sendrecv with MPI_STATUS_IGNORE')
      end

! Collectives.
      subroutine tcoll(rank, nproc)
      implicit none
      include 'mpif.h'
      integer rank, nproc, ierr, i, j, isum
      integer ib(4), ig(64), cnts(16), displs(16), sc(64), rc(64)
      double precision d(3), pair(2), res(2)
      logical lv, lr
      ib(1) = 0
      if (rank .eq. 0) then
        do i = 1, 4
          ib(i) = 40 + i
        end do
      end if
      call mpi_bcast(ib, 4, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
      do i = 1, 4
        call chk(ib(i) .eq. 40 + i, 'bcast')
      end do
      call mpi_reduce(rank, isum, 1, MPI_INTEGER, MPI_SUM, 0,
     &                MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) then
        call chk(isum .eq. nproc * (nproc - 1) / 2, 'reduce sum')
      end if
      do i = 1, 3
        d(i) = rank * i
      end do
      call mpi_allreduce(MPI_IN_PLACE, d, 3, MPI_DOUBLE_PRECISION,
     &                   MPI_SUM, MPI_COMM_WORLD, ierr)
      do i = 1, 3
        call chk(d(i) .eq. dble(i * nproc * (nproc - 1) / 2),
     &           'allreduce in place')
      end do
      pair(1) = mod(rank * 7, nproc) + 0.25d0
      pair(2) = rank
      call mpi_allreduce(pair, res, 1, MPI_2DOUBLE_PRECISION,
     &                   MPI_MAXLOC, MPI_COMM_WORLD, ierr)
      call chk(res(1) .eq. dble(nproc - 1) + 0.25d0, 'maxloc value')
      call chk(mod(nint(res(2)) * 7, nproc) .eq. nproc - 1,
     &         'maxloc index')
      lv = rank .ge. 0
      call mpi_allreduce(lv, lr, 1, MPI_LOGICAL, MPI_LAND,
     &                   MPI_COMM_WORLD, ierr)
      call chk(lr, 'land true')
      lv = rank .eq. 0
      call mpi_allreduce(lv, lr, 1, MPI_LOGICAL, MPI_LAND,
     &                   MPI_COMM_WORLD, ierr)
      call chk(lr .eqv. (nproc .eq. 1), 'land false')
      call mpi_allreduce(lv, lr, 1, MPI_LOGICAL, MPI_LOR,
     &                   MPI_COMM_WORLD, ierr)
      call chk(lr, 'lor')
      call mpi_gather(rank + 1, 1, MPI_INTEGER, ig, 1, MPI_INTEGER, 0,
     &                MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) then
        do i = 1, nproc
          call chk(ig(i) .eq. i, 'gather')
        end do
      end if
      do i = 1, nproc
        cnts(i) = i
        displs(i) = (i - 1) * i / 2
      end do
      do i = 1, rank + 1
        sc(i) = rank
      end do
      call mpi_gatherv(sc, rank + 1, MPI_INTEGER, ig, cnts, displs,
     &                 MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) then
        do i = 1, nproc
          do j = 1, i
            call chk(ig(displs(i) + j) .eq. i - 1, 'gatherv')
          end do
        end do
      end if
      do i = 1, nproc
        ig(i) = 10 * i
      end do
      call mpi_scatter(ig, 1, MPI_INTEGER, j, 1, MPI_INTEGER, 0,
     &                 MPI_COMM_WORLD, ierr)
      call chk(j .eq. 10 * (rank + 1), 'scatter')
      do i = 1, nproc * (nproc + 1) / 2
        ig(i) = i
      end do
      call mpi_scatterv(ig, cnts, displs, MPI_INTEGER, rc, rank + 1,
     &                  MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
      do i = 1, rank + 1
        call chk(rc(i) .eq. displs(rank + 1) + i, 'scatterv')
      end do
      call mpi_allgather(rank * 3, 1, MPI_INTEGER, ig, 1, MPI_INTEGER,
     &                   MPI_COMM_WORLD, ierr)
      do i = 1, nproc
        call chk(ig(i) .eq. (i - 1) * 3, 'allgather')
      end do
      do i = 1, nproc
        sc(i) = rank * 100 + i - 1
      end do
      call mpi_alltoall(sc, 1, MPI_INTEGER, rc, 1, MPI_INTEGER,
     &                  MPI_COMM_WORLD, ierr)
      do i = 1, nproc
        call chk(rc(i) .eq. (i - 1) * 100 + rank, 'alltoall')
      end do
! alltoallv: rank r sends i+1 copies of r to rank i
      do i = 1, nproc
        cnts(i) = i
        displs(i) = (i - 1) * i / 2
      end do
      do i = 1, nproc * (nproc + 1) / 2
        sc(i) = rank
      end do
      do i = 1, nproc
        ig(i) = rank + 1
        ig(16 + i) = (i - 1) * (rank + 1)
      end do
      call mpi_alltoallv(sc, cnts, displs, MPI_INTEGER, rc, ig,
     &                   ig(17), MPI_INTEGER, MPI_COMM_WORLD, ierr)
      call chk(ierr .eq. MPI_SUCCESS, 'alltoallv ierr')
      do i = 1, nproc
        do j = 1, rank + 1
          call chk(rc((i - 1) * (rank + 1) + j) .eq. i - 1, 'alltoallv')
        end do
      end do
      call mpi_barrier(MPI_COMM_WORLD, ierr)
      call chk(ierr .eq. MPI_SUCCESS, 'barrier')
      end

! Communicators: split, dup, compare, names; Cartesian topology.
      subroutine tcomm(rank, nproc)
      implicit none
      include 'mpif.h'
      integer rank, nproc, ierr, sub, dup, srank, ssize, res, rlen
      integer cart, dims(2), coords(2), src, dst, crank
      logical periods(2), pget(2)
      character*(MPI_MAX_OBJECT_NAME) name
      call mpi_comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, sub,
     &                    ierr)
      call mpi_comm_rank(sub, srank, ierr)
      call mpi_comm_size(sub, ssize, ierr)
      call chk(ssize .eq. (nproc + 1 - mod(rank, 2)) / 2, 'split size')
      call chk(srank .eq. ssize - 1 - rank / 2, 'split key order')
      call mpi_comm_dup(sub, dup, ierr)
      call mpi_comm_compare(sub, dup, res, ierr)
      call chk(res .eq. MPI_CONGRUENT, 'dup congruent')
      call mpi_comm_set_name(dup, 'fortran dup  ', ierr)
      name = 'garbage'
      call mpi_comm_get_name(dup, name, rlen, ierr)
      call chk(rlen .eq. 11, 'get_name length')
      call chk(name .eq. 'fortran dup', 'get_name value')
      call chk(name(12:) .eq. ' ', 'get_name blank padded')
      call mpi_comm_free(dup, ierr)
      call chk(dup .eq. MPI_COMM_NULL, 'free sets null')
      call mpi_comm_free(sub, ierr)
      dims(1) = 0
      dims(2) = 0
      call mpi_dims_create(nproc, 2, dims, ierr)
      call chk(dims(1) * dims(2) .eq. nproc, 'dims_create')
      periods(1) = .true.
      periods(2) = .false.
      call mpi_cart_create(MPI_COMM_WORLD, 2, dims, periods, .false.,
     &                     cart, ierr)
      call mpi_cart_coords(cart, rank, 2, coords, ierr)
      call chk(coords(1) .eq. rank / dims(2), 'cart_coords 1')
      call chk(coords(2) .eq. mod(rank, dims(2)), 'cart_coords 2')
      call mpi_cart_rank(cart, coords, crank, ierr)
      call chk(crank .eq. rank, 'cart_rank')
      call mpi_cart_shift(cart, 0, 1, src, dst, ierr)
      call chk(dst .eq. mod(rank + dims(2), nproc), 'cart_shift dest')
      call mpi_cart_get(cart, 2, dims, pget, coords, ierr)
      call chk(pget(1) .and. .not. pget(2), 'cart_get periods')
      call mpi_comm_free(cart, ierr)
      end

! Derived datatypes: vector and contiguous.
      subroutine ttypes(rank, nproc)
      implicit none
      include 'mpif.h'
      integer rank, nproc, ierr, vec, con, sz, i, next, prev
      integer src(6), dst(3)
      double precision d(8), e(8)
      next = mod(rank + 1, nproc)
      prev = mod(rank + nproc - 1, nproc)
      call mpi_type_vector(3, 1, 2, MPI_INTEGER, vec, ierr)
      call mpi_type_commit(vec, ierr)
      call mpi_type_size(vec, sz, ierr)
      call chk(sz .eq. 12, 'vector size')
      do i = 1, 6
        src(i) = rank * 10 + i
      end do
      call mpi_sendrecv(src, 1, vec, next, 1, dst, 3, MPI_INTEGER,
     &                  prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE,
     &                  ierr)
      do i = 1, 3
        call chk(dst(i) .eq. prev * 10 + 2 * i - 1, 'vector data')
      end do
      call mpi_type_free(vec, ierr)
      call chk(vec .eq. MPI_DATATYPE_NULL, 'type_free')
      call mpi_type_contiguous(4, MPI_DOUBLE_PRECISION, con, ierr)
      call mpi_type_commit(con, ierr)
      do i = 1, 8
        d(i) = rank + i / 4.0d0
      end do
      call mpi_sendrecv(d, 2, con, next, 2, e, 8,
     &                  MPI_DOUBLE_PRECISION, prev, 2, MPI_COMM_WORLD,
     &                  MPI_STATUS_IGNORE, ierr)
      do i = 1, 8
        call chk(e(i) .eq. prev + i / 4.0d0, 'contiguous data')
      end do
      call mpi_type_free(con, ierr)
      end

! Processor name, errors, MPI_WTIME, info, predefined attributes.
      subroutine tmisc(rank, nproc)
      implicit none
      include 'mpif.h'
      integer rank, nproc, ierr, rlen, cls, info, vlen
      integer(kind=MPI_ADDRESS_KIND) val
      logical flag
      character*(MPI_MAX_PROCESSOR_NAME) pname
      character*(MPI_MAX_ERROR_STRING) estr
      character*20 value
      double precision t0, t1
      pname = 'x'
      call mpi_get_processor_name(pname, rlen, ierr)
      call chk(rlen .gt. 0, 'processor name length')
      call chk(pname(rlen+1:) .eq. ' ', 'processor name padding')
      call chk(pname(rlen:rlen) .ne. ' ', 'processor name last char')
      call mpi_comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN,
     &                             ierr)
      call mpi_send(rank, 1, MPI_INTEGER, nproc + 5, 0,
     &              MPI_COMM_WORLD, ierr)
      call chk(ierr .ne. MPI_SUCCESS, 'bad rank fails')
      call mpi_error_class(ierr, cls, ierr)
      call chk(cls .eq. MPI_ERR_RANK, 'error class')
      call mpi_error_string(MPI_ERR_RANK, estr, rlen, ierr)
      call chk(rlen .gt. 0 .and. estr(1:rlen) .ne. ' ', 'error string')
      call chk(estr(rlen+1:) .eq. ' ', 'error string padding')
      call mpi_comm_set_errhandler(MPI_COMM_WORLD,
     &                             MPI_ERRORS_ARE_FATAL, ierr)
      t0 = mpi_wtime()
      t1 = mpi_wtime()
      call chk(t1 .ge. t0 .and. t0 .gt. 0, 'wtime')
      call chk(mpi_wtick() .gt. 0, 'wtick')
      call mpi_info_create(info, ierr)
      call mpi_info_set(info, 'color  ', 'blue ', ierr)
      call mpi_info_get(info, 'color', 20, value, flag, ierr)
      call chk(flag .and. value .eq. 'blue', 'info_get')
      call mpi_info_get_valuelen(info, 'color', vlen, flag, ierr)
      call chk(flag .and. vlen .eq. 4, 'info_get_valuelen')
      value = 'unchanged'
      call mpi_info_get(info, 'shape', 20, value, flag, ierr)
      call chk(.not. flag .and. value .eq. 'unchanged', 'info nokey')
      call mpi_info_free(info, ierr)
      call mpi_comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag,
     &                       ierr)
      call chk(flag .and. val .ge. 32767, 'MPI_TAG_UB attribute')
      end
