/*
 * test_outfile.c - output files appear whole or not at all: single files,
 * a trace and its summary committed as one (never the newer of one beside
 * the older of the other, even with two processes committing at once),
 * the directories a failed open or commit created removed again, and
 * which two paths name one file.
 */
#define _DEFAULT_SOURCE /* flock, mkdtemp */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sim/outfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char base[256];

static int setup(void **state)
{
    (void)state;
    snprintf(base, sizeof base, "/tmp/ksim-test-outfile-XXXXXX");
    return mkdtemp(base) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    return system(cmd) == 0 ? 0 : -1;
}

static char *at(const char *rel)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", base, rel);
    return buf[k];
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *b = calloc(1, 4096);
    size_t n = fread(b, 1, 4095, f);
    b[n] = '\0';
    fclose(f);
    return b;
}

/* Entries in a directory other than . and .. */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static void put(const char *path, const char *text)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    mkdir(dir, 0777);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_single_commit_and_abort(void **state)
{
    (void)state;
    char err[512];
    ks_outfile o;
    assert_true(ks_outfile_open(&o, at("a/b/file.txt"), err, sizeof err));
    fputs("hello\n", o.f);
    assert_false(exists(at("a/b/file.txt"))); /* only the temporary so far */
    assert_true(ks_outfile_commit(&o, err, sizeof err));
    char *t = slurp(at("a/b/file.txt"));
    assert_string_equal(t, "hello\n");
    free(t);
    assert_int_equal(entries(at("a/b")), 1); /* one entry: no temporary left */

    /* an aborted open removes its temporary and the directories it made */
    assert_true(ks_outfile_open(&o, at("c/d/e/file.txt"), err, sizeof err));
    fputs("half", o.f);
    ks_outfile_abort(&o);
    assert_false(exists(at("c")));
    /* ... but never a directory that was there before */
    assert_true(ks_outfile_open(&o, at("a/b/other.txt"), err, sizeof err));
    ks_outfile_abort(&o);
    assert_true(exists(at("a/b/file.txt")));
    assert_false(exists(at("a/b/other.txt")));
}

static void test_open_errors_name_the_file(void **state)
{
    (void)state;
    char err[512];
    ks_outfile o;
    put(at("plain"), "x");
    assert_false(ks_outfile_open(&o, at("plain/sub/file"), err, sizeof err));
    assert_non_null(strstr(err, "cannot create directory"));
    assert_non_null(strstr(err, "Not a directory"));
    assert_false(ks_outfile_open(&o, base, err, sizeof err));
    assert_non_null(strstr(err, "is a directory"));
}

static void test_full_device_fails_on_commit(void **state)
{
    (void)state;
    char err[512];
    ks_outfile o;
    if (!exists("/dev/full"))
        skip();
    assert_true(ks_outfile_open(&o, "/dev/full", err, sizeof err));
    fputs("something\n", o.f);
    assert_false(ks_outfile_commit(&o, err, sizeof err));
    assert_non_null(strstr(err, "/dev/full: write failed: No space left on device"));
}

static void test_pair_commit(void **state)
{
    (void)state;
    char err[512];
    put(at("trace"), "old trace");
    put(at("summary"), "old summary");
    ks_outfile t, s;
    assert_true(ks_outfile_open(&t, at("trace"), err, sizeof err));
    assert_true(ks_outfile_open(&s, at("summary"), err, sizeof err));
    fputs("new trace", t.f);
    fputs("new summary", s.f);
    ks_outfile *both[2] = {&t, &s};
    assert_true(ks_outfile_commit_all(both, 2, err, sizeof err));
    char *a = slurp(at("trace")), *b = slurp(at("summary"));
    assert_string_equal(a, "new trace");
    assert_string_equal(b, "new summary");
    free(a);
    free(b);
}

/* The seal's old target cannot be replaced (it became a directory): the
 * commit fails before any rename, so the old trace stays as it was and no
 * temporary is left. */
static void test_pair_commit_failure_leaves_no_mixed_pair(void **state)
{
    (void)state;
    char err[512];
    put(at("p/trace"), "old trace");
    ks_outfile t, s;
    assert_true(ks_outfile_open(&t, at("p/trace"), err, sizeof err));
    assert_true(ks_outfile_open(&s, at("p/summary"), err, sizeof err));
    fputs("new trace", t.f);
    fputs("new summary", s.f);
    assert_int_equal(mkdir(at("p/summary"), 0777), 0);
    put(at("p/summary/x"), "keeps the directory from being removed");
    ks_outfile *both[2] = {&t, &s};
    assert_false(ks_outfile_commit_all(both, 2, err, sizeof err));
    assert_non_null(strstr(err, "p/summary: cannot replace it"));
    char *a = slurp(at("p/trace"));
    assert_string_equal(a, "old trace");
    free(a);
    assert_int_equal(entries(at("p")), 2); /* trace and summary/: no temporaries */
}

/* A second process holding the directory's lock keeps the pair from being
 * renamed until it lets go. */
static void test_pair_commit_waits_for_the_lock(void **state)
{
    (void)state;
    char err[512];
    assert_int_equal(mkdir(at("l"), 0777), 0);
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        int fd = open(at("l"), O_RDONLY | O_DIRECTORY);
        flock(fd, LOCK_EX);
        if (write(pipefd[1], "L", 1) != 1)
            _exit(1);
        usleep(300 * 1000);
        /* while we hold the lock, nothing may have been renamed */
        int bad = exists(at("l/summary")) || exists(at("l/trace"));
        flock(fd, LOCK_UN);
        _exit(bad ? 3 : 0);
    }
    char c;
    assert_int_equal(read(pipefd[0], &c, 1), 1);
    ks_outfile t, s;
    assert_true(ks_outfile_open(&t, at("l/trace"), err, sizeof err));
    assert_true(ks_outfile_open(&s, at("l/summary"), err, sizeof err));
    ks_outfile *both[2] = {&t, &s};
    assert_true(ks_outfile_commit_all(both, 2, err, sizeof err));
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_true(exists(at("l/summary")));
}

static void test_outdir_removed_with_its_files(void **state)
{
    (void)state;
    char err[512];
    ks_outdir d = {0};
    assert_int_equal(mkdir(at("keep"), 0777), 0);
    assert_true(ks_outdir_make(&d, at("keep/r/s"), err, sizeof err));
    put(at("keep/r/s/index.html"), "x");
    assert_int_equal(mkdir(at("keep/r/s/data"), 0777), 0);
    put(at("keep/r/s/data/a.dat"), "x");
    ks_outdir_remove(&d);
    assert_false(exists(at("keep/r")));
    assert_true(exists(at("keep")));
    ks_outdir k = {0};
    assert_true(ks_outdir_make(&k, at("keep/t"), err, sizeof err));
    ks_outdir_keep(&k);
    assert_true(exists(at("keep/t")));
}

static void test_same_target(void **state)
{
    (void)state;
    assert_true(ks_outfile_same_target("-", "-"));
    assert_false(ks_outfile_same_target("-", "x"));
    assert_true(ks_outfile_same_target(at("n/x.json"), at("n/../n/./x.json")));
    assert_true(ks_outfile_same_target(at("n//x.json"), at("n/x.json")));
    assert_false(ks_outfile_same_target(at("n/x.json"), at("n/y.json")));
    put(at("f1"), "x");
    assert_int_equal(link(at("f1"), at("f2")), 0);
    assert_true(ks_outfile_same_target(at("f1"), at("f2")));
    assert_int_equal(symlink(base, at("sl")), 0);
    assert_true(ks_outfile_same_target(at("sl/new.json"), at("new.json")));
    char cwd[512];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(base), 0);
    assert_true(ks_outfile_same_target("rel.json", at("rel.json")));
    assert_int_equal(chdir(cwd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_single_commit_and_abort, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_errors_name_the_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_full_device_fails_on_commit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pair_commit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pair_commit_failure_leaves_no_mixed_pair, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_pair_commit_waits_for_the_lock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_outdir_removed_with_its_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_same_target, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
