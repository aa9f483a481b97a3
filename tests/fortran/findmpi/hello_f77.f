! include 'mpif.h': prints "hello f77 <rank> of <size>".
      program hello
      implicit none
      include 'mpif.h'
      integer ierr, rank, nproc
      call mpi_init(ierr)
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, nproc, ierr)
      print '(A,I0,A,I0)', 'hello f77 ', rank, ' of ', nproc
      call mpi_finalize(ierr)
      end
