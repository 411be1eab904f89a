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
 * Prints, per run: simulated records per wall-clock second, engine events
 * per second, virtual time covered, and peak resident memory. Figures are
 * measured, never asserted.
 */
#define _POSIX_C_SOURCE 200809L

#include "models/world.h"
#include "models/scenario.h"

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

static int run_one(const char *file, const char *records)
{
    ks_override o = {"producers.p1.workload.records", records};
    ks_diag *d = malloc(sizeof *d);
    ks_diag_init(d);
    ks_scenario *sc = ks_scenario_load(file, &o, 1, false, 0, d);
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
    uint64_t recs = 0;
    for (uint32_t i = 0; i < w->producer_count; i++)
        recs += w->producers[i].acked + w->producers[i].failed;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%-28s %9.2f M records/s  %7.2f M events/s  %8.1f s virtual  %7.1f MiB peak RSS  "
           "(%s, %" PRIu64 " records, %.2f s)\n",
           sc->name, (double)recs / dt / 1e6, (double)w->sim.dispatched / dt / 1e6,
           (double)ks_sim_now(&w->sim) / 1e9, (double)ru.ru_maxrss / 1024.0,
           ks_sim_verdict_name(w->sim.verdict), recs, dt);
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
