! use mpi: prints "hello mpi <sum of ranks>".
program hello
  use mpi
  implicit none
  integer :: ierr, rank, total
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(A,I0)', 'hello mpi ', total
  call MPI_Finalize(ierr)
end program
