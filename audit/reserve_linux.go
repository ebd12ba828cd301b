package audit

import "golang.org/x/sys/unix"

// reserveBytes is the room kept allocated past the end of the log for the
// records of the runs that have opened it: far more than one record (a
// command is cut at maxCommandBytes).
const reserveBytes = 512 << 10

// reserve allocates room past the end of the log without changing its
// size (FALLOC_FL_KEEP_SIZE), before the command runs: a command that fills
// the file system (a writable root may share it) cannot then keep the
// run's record from being written. File systems without fallocate get no
// reservation.
func reserve(fd int, size int64) {
	unix.Fallocate(fd, unix.FALLOC_FL_KEEP_SIZE, size, reserveBytes)
}
