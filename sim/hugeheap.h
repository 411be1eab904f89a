/*
 * hugeheap.h - lets the C library's heap grow in huge pages.
 *
 * A run with many producers or partitions touches its state all over
 * tens of megabytes, one producer's or partition's lines here and the
 * next one's there, and with 4 KiB pages most of those touches miss the
 * TLB as well as the cache (1000 producers: a fifth of the run's time,
 * tools/bench.sh). ks_hugeheap_grow has malloc reserve room at the top of
 * its heap and asks the kernel to back that room with transparent huge
 * pages (madvise MADV_HUGEPAGE, which THP's "madvise" setting, Debian's
 * default, waits for): what malloc hands out from there lies in 2 MiB
 * pages, as the arrays, batches and histograms a run grows do.
 *
 * Owns: nothing of a run's, only where malloc's memory lies, which no
 * model ever reads: a run computes the same with it or without. The
 * heap's top pad and trim threshold stay raised for the rest of the
 * process (memory a run frees stays in it for the next).
 *
 * Never: fails a run. Without glibc, Linux's madvise or THP, or when
 * malloc is not glibc's (valgrind, sanitizers), it does nothing.
 */
#ifndef KS_HUGEHEAP_H
#define KS_HUGEHEAP_H

#include <stdbool.h>
#include <stddef.h>

/* Bytes malloc holds now (its heap and its own mappings), 0 when it
 * cannot tell. */
size_t ks_hugeheap_in_use(void);
/* Grows malloc's heap by `bytes` (rounded to huge pages) of room marked
 * for huge pages, once per process; later calls do nothing. True when
 * the room was marked. */
bool ks_hugeheap_grow(size_t bytes);

#endif
