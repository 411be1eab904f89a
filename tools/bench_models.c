/*
 * bench_models.c - how fast the Kafka models run: the rr-vs-sticky
 * scenarios scaled to many records, tracing off, one process per run so
 * each reports its own peak memory.
 *
 * usage: bench_models [RECORDS] [SCENARIO...]
 *   RECORDS    records per run (default 10000000)
 *   SCENARIO   scenario files (default the three rr-vs-sticky files,
 *              looked up under KSIM_SOURCE_DIR or the current directory)
 *
 * Environment: KSIM_BENCH_SET="path=value ..." adds --set overrides to
 * every run (e.g. "topics.clicks.partitions=12000" to scale a topology);
 * KSIM_BENCH_PRODUCERS=N replaces the first producer by N copies of it
 * (ids p1..pN), each with 1/N of its records and of its rate, so the load
 * stays the same and only the number of producers grows;
 * KSIM_BENCH_SHARE=M (with KSIM_BENCH_PRODUCERS) divides each copy's rate
 * by M instead: KSIM_BENCH_PRODUCERS=1 KSIM_BENCH_SHARE=1000 runs one
 * producer with the load each of 1000 carries, so its batches and its mix
 * of events are theirs, and only the state the run holds differs.
 *
 * Prints, per run: simulated records per wall-clock second, engine events
 * per second and nanoseconds per event, the time to build the world and
 * to write its summary, virtual time covered, and peak resident memory.
 * Figures are measured, never asserted.
 */
#define _POSIX_C_SOURCE 200809L

#include "models/world.h"
#include "models/scenario.h"

#include <jansson.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define MAX_SETS 16

/* Splits KSIM_BENCH_SET into overrides after o[0]; returns their count. */
static size_t bench_sets(ks_override *o, char *buf, size_t cap)
{
    const char *env = getenv("KSIM_BENCH_SET");
    size_t n = 1;
    if (!env || strlen(env) >= cap)
        return n;
    strcpy(buf, env);
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t && n < MAX_SETS;
         t = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(t, '=');
        if (!eq)
            continue;
        *eq = '\0';
        o[n].path = t;
        o[n].value = eq + 1;
        n++;
    }
    return n;
}

/* The scenario's text with producers[0] cloned n times, each at 1/share
 * of its rate (see above); NULL on error. The caller frees it. */
static char *clone_producers(const char *file, unsigned n, unsigned share,
                             unsigned long long records)
{
    json_error_t err;
    json_t *root = json_load_file(file, 0, &err);
    json_t *ps = root ? json_object_get(root, "producers") : NULL;
    json_t *p0 = ps ? json_array_get(ps, 0) : NULL;
    json_t *wl = p0 ? json_object_get(p0, "workload") : NULL;
    if (!wl || n == 0) {
        fprintf(stderr, "bench_models: %s: no producers[0].workload to clone\n", file);
        json_decref(root);
        return NULL;
    }
    double rate = json_number_value(json_object_get(wl, "rate.per.sec"));
    json_t *copies = json_array();
    for (unsigned i = 0; i < n; i++) {
        json_t *c = json_deep_copy(p0);
        char id[32];
        snprintf(id, sizeof id, "p%u", i + 1);
        json_object_set_new(c, "id", json_string(id));
        json_t *cw = json_object_get(c, "workload");
        json_object_set_new(cw, "records", json_integer((json_int_t)(records / n)));
        if (rate > 0)
            json_object_set_new(cw, "rate.per.sec", json_real(rate / share));
        json_array_append_new(copies, c);
    }
    json_object_set_new(root, "producers", copies);
    json_object_del(root, "expect");
    char *text = json_dumps(root, 0);
    json_decref(root);
    return text;
}

static int run_one(const char *file, const char *records)
{
    ks_override o[MAX_SETS] = {{"producers.p1.workload.records", records}};
    char buf[4096];
    size_t no = bench_sets(o, buf, sizeof buf);
    ks_diag *d = malloc(sizeof *d);
    ks_diag_init(d);
    double tb = now_s();
    const char *np = getenv("KSIM_BENCH_PRODUCERS");
    ks_scenario *sc;
    if (np && atoi(np) > 0) {
        const char *sh = getenv("KSIM_BENCH_SHARE");
        unsigned n = (unsigned)atoi(np), share = sh && atoi(sh) > 0 ? (unsigned)atoi(sh) : n;
        char *text = clone_producers(file, n, share, strtoull(records, NULL, 10));
        if (!text)
            return 2;
        sc = ks_scenario_parse(file, text, o + 1, no - 1, false, 0, d);
        free(text);
    } else {
        sc = ks_scenario_load(file, o, no, false, 0, d);
    }
    if (!sc) {
        ks_diag_print(d, stderr);
        fflush(stderr);
        return 2;
    }
    ks_world *w = ks_world_create(sc, NULL, d);
    if (!w) {
        ks_diag_print(d, stderr);
        fflush(stderr);
        return 2;
    }
    double t0 = now_s();
    ks_world_run(w);
    double dt = now_s() - t0;
    double ts = now_s();
    bool lean = false;
    json_t *summary = ks_world_summary_lean(w, &lean); /* as ksim run writes it */
    FILE *null = fopen("/dev/null", "w");
    if (summary && null)
        ks_summary_dumpf(summary, lean ? w : NULL, null, JSON_INDENT(2));
    double dsum = now_s() - ts;
    if (null)
        fclose(null);
    json_decref(summary);
    uint64_t recs = 0, batches = 0;
    for (uint32_t i = 0; i < w->producer_count; i++) {
        recs += w->producers[i].acked + w->producers[i].failed;
        batches += w->producers[i].batches;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double ev = (double)w->ctx.sim.dispatched;
    printf("%-28s %9.2f M records/s  %7.2f M events/s  %6.1f ns/event  %6.1f ns/batch  build %.3f s  "
           "summary %.3f s  %8.1f s virtual  %7.1f MiB peak RSS  (%s, %" PRIu64 " records, %" PRIu64
           " events, %.2f s)\n",
           sc->name, (double)recs / dt / 1e6, ev / dt / 1e6, ev > 0 ? dt * 1e9 / ev : 0.0,
           batches > 0 ? dt * 1e9 / (double)batches : 0.0,
           t0 - tb, dsum, (double)ks_sim_now(&w->ctx.sim) / 1e9, (double)ru.ru_maxrss / 1024.0,
           ks_sim_verdict_name(w->ctx.sim.verdict), recs, w->ctx.sim.dispatched, dt);
    fflush(stdout);
    ks_world_free(w);
    ks_scenario_free(sc);
    free(d);
    return 0;
}

int main(int argc, char **argv)
{
    const char *records = argc > 1 ? argv[1] : "10000000";
    const char *defaults[] = {"rr-vs-sticky", "rr-vs-sticky-sticky", "rr-vs-sticky-uniform"};
    const char *src = getenv("KSIM_SOURCE_DIR");
    int n = argc > 2 ? argc - 2 : 3;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char path[4096];
        if (argc > 2)
            snprintf(path, sizeof path, "%s", argv[i + 2]);
        else
            snprintf(path, sizeof path, "%s/scenarios/%s.json", src ? src : ".", defaults[i]);
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0)
            _exit(run_one(path, records));
        int status = 0;
        if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0)
            rc = 1;
    }
    return rc;
}
