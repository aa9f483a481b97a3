! use mpi_f08: prints "hello f08 <size> No Errors" on rank 0.
program hello
  use mpi_f08
  implicit none
  integer :: rank, nproc, total
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  call MPI_Allreduce(1, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. total == nproc) print '(A,I0,A)', 'hello f08 ', nproc, ' No Errors'
  call MPI_Finalize()
end program
