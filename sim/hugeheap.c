/*
 * hugeheap.c - malloc's heap grown in huge pages (see hugeheap.h).
 *
 * glibc's malloc grows its heap with brk by what a request lacks plus
 * M_TOP_PAD, and gives memory back at the top only past M_TRIM_THRESHOLD.
 * With the pad raised, the next growth takes all the room at once; a few
 * requests from the heap (below the mmap threshold) make it happen, and
 * the room is then marked for huge pages. brk memory is only reserved
 * until it is touched, so the room costs no memory until malloc uses it.
 */
#define _DEFAULT_SOURCE /* sbrk, madvise */
#include "sim/hugeheap.h"

#include <stdint.h>
#include <stdlib.h>

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#if defined(MADV_HUGEPAGE) && __GLIBC_PREREQ(2, 33)
#define KS_HUGEHEAP 1
#endif
#endif

#define HUGE_PAGE ((size_t)2 << 20)
/* Requests that come from the heap (below the 128 KiB mmap threshold),
 * and how many at most before giving up on the heap growing. */
#define PROBE_BYTES ((size_t)60 << 10)
#define PROBES 64
/* The most room asked for at once (mallopt takes an int). */
#define ROOM_MAX ((size_t)1 << 30)

size_t ks_hugeheap_in_use(void)
{
#ifdef KS_HUGEHEAP
    struct mallinfo2 mi = mallinfo2();
    return mi.arena + mi.hblkhd;
#else
    return 0;
#endif
}

#ifdef KS_HUGEHEAP
/* Grows the heap by its top pad: requests until the break moves, freed
 * again. False when it did not move; else the break before and after. */
static bool grow_heap(char **before, char **after)
{
    void *held[PROBES];
    int n = 0;
    *before = sbrk(0);
    while (n < PROBES && (char *)sbrk(0) == *before && (held[n] = malloc(PROBE_BYTES)) != NULL)
        n++;
    *after = sbrk(0);
    while (n > 0)
        free(held[--n]);
    return *before != (char *)-1 && *after != (char *)-1 && *after > *before;
}
#endif

bool ks_hugeheap_grow(size_t bytes)
{
#ifdef KS_HUGEHEAP
    static bool done; /* the process's heap, not a run's state */
    if (done || bytes == 0 || bytes > ROOM_MAX)
        return false;
    done = true;
    bytes = (bytes + HUGE_PAGE - 1u) & ~(HUGE_PAGE - 1u);
    char *before, *after;
    if (!mallopt(M_TRIM_THRESHOLD, (int)(2u * bytes)) || !mallopt(M_TOP_PAD, (int)bytes) ||
        !grow_heap(&before, &after))
        return false;
    uintptr_t lo = ((uintptr_t)before + HUGE_PAGE - 1u) & ~(uintptr_t)(HUGE_PAGE - 1u);
    uintptr_t hi = (uintptr_t)after & ~(uintptr_t)(HUGE_PAGE - 1u);
    return hi > lo && madvise((void *)lo, hi - lo, MADV_HUGEPAGE) == 0;
#else
    (void)bytes;
    return false;
#endif
}
