// Counts heap allocations made by the calling thread, for tests that check a hot path allocates nothing.
//
// Linked into the test executable, this file's malloc, calloc and realloc take the place of the C library's
// for the whole process (an executable's definitions come first in symbol lookup) and forward at once to glibc's own
// (__libc_malloc and friends): the allocator stays glibc's. Counting is per thread and off until
// allocation_counter_start() on that thread, so tests running in parallel on other threads do not disturb it.
// aligned allocations (posix_memalign, aligned_alloc, memalign) are not counted; Swift uses them only for types
// aligned to more than 16 bytes.
#ifndef ALLOCATION_COUNTER_H
#define ALLOCATION_COUNTER_H

#include <stdint.h>

/// Starts counting this thread's allocations from zero.
void allocation_counter_start(void);

/// Stops counting on this thread and returns the number of malloc, calloc and realloc calls since the start.
int64_t allocation_counter_stop(void);

#endif
