#include "AllocationCounter.h"

#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);

static __thread int counting __attribute__((tls_model("initial-exec")));
static __thread int64_t allocations __attribute__((tls_model("initial-exec")));

void *malloc(size_t size) {
    if (counting) allocations++;
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    if (counting) allocations++;
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    if (counting) allocations++;
    return __libc_realloc(pointer, size);
}


void allocation_counter_start(void) {
    allocations = 0;
    counting = 1;
}

int64_t allocation_counter_stop(void) {
    counting = 0;
    return allocations;
}
