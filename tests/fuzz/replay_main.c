/*
 * replay_main.c - the main() of a harness built without libFuzzer (gcc,
 * or clang without -DKSIM_FUZZ=ON): runs LLVMFuzzerTestOneInput once over
 * each file named on the command line, and over every file in each
 * directory named (in name order, not descending). ctest runs it over
 * tests/fuzz/regress/<harness>/, so every crash ever found stays a test
 * in every build.
 *
 * Prints one line per input to stderr with -v. Exit status: 0 when every
 * input ran (a crash aborts, under the sanitizers or an assert), 2 when
 * a file cannot be read or nothing was given.
 */
#define _POSIX_C_SOURCE 200809L /* opendir, stat */

#include "tests/fuzz/fuzz_target.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool verbose;
static unsigned ran;

/* Reads the whole file; NULL on error (message printed). */
static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return NULL;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        uint8_t *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    bool bad = ferror(f) != 0;
    fclose(f);
    if (!buf || bad) {
        fprintf(stderr, "%s: cannot read\n", path);
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

static int run_file(const char *path)
{
    size_t len = 0;
    uint8_t *data = read_all(path, &len);
    if (!data)
        return 1;
    if (verbose)
        fprintf(stderr, "replay %s (%zu bytes)\n", path, len);
    /* a copy of exactly len bytes, so ASan sees a read past the end */
    uint8_t *exact = malloc(len ? len : 1);
    if (exact && len)
        memcpy(exact, data, len);
    free(data);
    if (!exact)
        return 1;
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    ran++;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every regular file of a directory, in name order. */
static int run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        perror(dir);
        return 1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int bad = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn) {
                bad = 1;
                break;
            }
            names = nn;
        }
        size_t sz = strlen(dir) + strlen(e->d_name) + 2;
        names[n] = malloc(sz);
        if (!names[n]) {
            bad = 1;
            break;
        }
        snprintf(names[n++], sz, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
            bad |= run_file(names[i]);
        free(names[i]);
    }
    free(names);
    return bad;
}

int main(int argc, char **argv)
{
    int bad = 0, given = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-v") == 0) {
            verbose = true;
            continue;
        }
        given++;
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
            bad |= run_dir(argv[i]);
        else
            bad |= run_file(argv[i]);
    }
    if (given == 0) {
        fprintf(stderr, "usage: %s [-v] FILE|DIR...\n", argv[0]);
        return 2;
    }
    if (bad)
        return 2;
    fprintf(stderr, "%s: %u input(s) ran\n", argv[0], ran);
    return 0;
}
