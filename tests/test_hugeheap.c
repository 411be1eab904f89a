/*
 * test_hugeheap.c - tests sim/hugeheap.c: what malloc holds is counted;
 * the heap's room is marked for huge pages once per process, and the
 * kernel then says so of the heap's mapping; malloc goes on working over
 * the room. Under a malloc that is not glibc's (sanitizers, valgrind)
 * nothing is marked, and the test says so instead.
 */
#define _DEFAULT_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/hugeheap.h"

/* Is the heap mapping that holds `at` marked for huge pages ("hg" in its
 * VmFlags)? False when /proc says nothing of it. */
static bool marked_huge(const void *at)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return false;
    char line[512];
    bool inside = false, huge = false;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            inside = (uintptr_t)at >= lo && (uintptr_t)at < hi;
            continue;
        }
        if (inside && strncmp(line, "VmFlags:", 8) == 0 && strstr(line, " hg"))
            huge = true;
    }
    fclose(f);
    return huge;
}

static void test_in_use_counts_allocations(void **state)
{
    (void)state;
    size_t before = ks_hugeheap_in_use();
    char *big = malloc(4u << 20);
    assert_non_null(big);
    memset(big, 1, 4u << 20);
    size_t during = ks_hugeheap_in_use();
    if (during == before) {
        print_message("malloc's use cannot be told here (not glibc's malloc)\n");
    } else {
        assert_true(during >= before + (4u << 20));
    }
    free(big);
}

static void test_grow_once(void **state)
{
    (void)state;
    assert_false(ks_hugeheap_grow(0));
    assert_false(ks_hugeheap_grow((size_t)4 << 30)); /* more than it takes at once */
    bool grown = ks_hugeheap_grow((size_t)16 << 20);
    /* small blocks from the room: a block in its middle lies in a
     * mapping marked for huge pages, and every block is usable */
    enum { N = 2048 };
    char **blocks = calloc(N, sizeof *blocks);
    assert_non_null(blocks);
    for (int i = 0; i < N; i++) {
        blocks[i] = malloc(4000);
        assert_non_null(blocks[i]);
        memset(blocks[i], i & 0xff, 4000);
    }
    if (grown)
        assert_true(marked_huge(blocks[N / 2]));
    else
        print_message("no room marked for huge pages here (no glibc malloc, or no THP)\n");
    for (int i = 0; i < N; i++) {
        assert_int_equal((unsigned char)blocks[i][3999], i & 0xff);
        free(blocks[i]);
    }
    free(blocks);
    assert_false(ks_hugeheap_grow((size_t)16 << 20)); /* once per process */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_in_use_counts_allocations),
        cmocka_unit_test(test_grow_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
