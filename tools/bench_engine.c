/*
 * bench_engine.c - engine microbenchmark: an M/M/1 queue on the ksim
 * engine next to the same queue on a bare binary-heap event loop, in one
 * binary and one run, so the ratio compares like with like.
 *
 * Both loops simulate the same customers (arrival rate 0.9, service rate
 * 1, means in ns: 1111 and 1000) with the same PCG32 draws, and must agree
 * on the total waiting time; a mismatch means one loop is wrong and the
 * benchmark exits 1. Figures are wall-clock and printed, never asserted.
 *
 * It then schedules PENDING events (default 10^7) at random times and
 * prints the resident memory they take, per pending event.
 *
 * usage: bench_engine [CUSTOMERS] [REPEATS] [PENDING]   (defaults 1000000, 5, 10000000)
 */
#define _POSIX_C_SOURCE 200809L

#include "sim/rng.h"
#include "sim/sim.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MEAN_ARRIVAL_NS 1111.0
#define MEAN_SERVICE_NS 1000.0
enum { ARRIVAL = 0, DEPARTURE = 1 };

typedef struct result {
    uint64_t events;
    uint64_t customers;
    int64_t wait_sum_ns;
    double seconds;
} result;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int64_t draw(ks_rng *r, double mean)
{
    return (int64_t)ks_rng_exponential(r, mean) + 1;
}

/* The queue's state, common to both loops: arrival times of waiting
 * customers in a ring. */
typedef struct mm1 {
    int64_t *ring;
    size_t cap, head, len;
    bool busy;
    int64_t wait_sum;
    uint64_t served;
} mm1;

static void mm1_push(mm1 *q, int64_t t)
{
    if (q->len == q->cap) {
        size_t nc = q->cap * 2;
        int64_t *r = malloc(nc * sizeof *r);
        for (size_t i = 0; i < q->len; i++)
            r[i] = q->ring[(q->head + i) % q->cap];
        free(q->ring);
        q->ring = r;
        q->cap = nc;
        q->head = 0;
    }
    q->ring[(q->head + q->len++) % q->cap] = t;
}

static int64_t mm1_pop(mm1 *q)
{
    int64_t t = q->ring[q->head];
    q->head = (q->head + 1) % q->cap;
    q->len--;
    return t;
}

/* ---- on the ksim engine ---- */
static result run_ksim(uint64_t customers, uint64_t seed)
{
    ks_rng arr, svc;
    ks_rng_stream(&arr, seed, "bench.arrival");
    ks_rng_stream(&svc, seed, "bench.service");
    ks_sim s;
    ks_sim_init(&s, NULL);
    mm1 q = {malloc(1024 * sizeof(int64_t)), 1024, 0, 0, false, 0, 0};
    uint64_t arrived = 0;
    double t0 = now_s();
    ks_event ev = {.kind = 0, .owner = 0, .tag = ARRIVAL};
    ks_sim_schedule(&s, draw(&arr, MEAN_ARRIVAL_NS), &ev);
    arrived = 1;
    while (ks_sim_next(&s, &ev)) {
        int64_t now = ks_sim_now(&s);
        if (ev.tag == ARRIVAL) {
            if (arrived < customers) {
                ks_sim_after(&s, draw(&arr, MEAN_ARRIVAL_NS), &ev);
                arrived++;
            }
            if (!q.busy) {
                q.busy = true;
                ks_event d = {.kind = 0, .owner = 0, .tag = DEPARTURE};
                ks_sim_after(&s, draw(&svc, MEAN_SERVICE_NS), &d);
            } else {
                mm1_push(&q, now);
            }
        } else {
            q.served++;
            if (q.len > 0) {
                q.wait_sum += now - mm1_pop(&q);
                ks_event d = {.kind = 0, .owner = 0, .tag = DEPARTURE};
                ks_sim_after(&s, draw(&svc, MEAN_SERVICE_NS), &d);
            } else {
                q.busy = false;
            }
        }
    }
    result r = {s.dispatched, q.served, q.wait_sum, now_s() - t0};
    ks_sim_free(&s);
    free(q.ring);
    return r;
}

/* ---- bare binary heap: {time, seq, tag} by value, no cancellation ---- */
typedef struct bev {
    int64_t t;
    uint64_t seq;
    int tag;
} bev;

typedef struct bheap {
    bev *a;
    size_t n, cap;
    uint64_t seq;
} bheap;

static int bless(const bev *x, const bev *y)
{
    return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

static void bpush(bheap *h, int64_t t, int tag)
{
    if (h->n == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 1024;
        h->a = realloc(h->a, h->cap * sizeof *h->a);
    }
    bev e = {t, h->seq++, tag};
    size_t i = h->n++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!bless(&e, &h->a[p]))
            break;
        h->a[i] = h->a[p];
        i = p;
    }
    h->a[i] = e;
}

static bev bpop(bheap *h)
{
    bev top = h->a[0];
    bev last = h->a[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && bless(&h->a[c + 1], &h->a[c]))
            c++;
        if (!bless(&h->a[c], &last))
            break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (h->n > 0)
        h->a[i] = last;
    return top;
}

static result run_bare(uint64_t customers, uint64_t seed)
{
    ks_rng arr, svc;
    ks_rng_stream(&arr, seed, "bench.arrival");
    ks_rng_stream(&svc, seed, "bench.service");
    bheap h = {0};
    mm1 q = {malloc(1024 * sizeof(int64_t)), 1024, 0, 0, false, 0, 0};
    uint64_t arrived = 1, events = 0;
    double t0 = now_s();
    bpush(&h, draw(&arr, MEAN_ARRIVAL_NS), ARRIVAL);
    while (h.n > 0) {
        bev e = bpop(&h);
        events++;
        int64_t now = e.t;
        if (e.tag == ARRIVAL) {
            if (arrived < customers) {
                bpush(&h, now + draw(&arr, MEAN_ARRIVAL_NS), ARRIVAL);
                arrived++;
            }
            if (!q.busy) {
                q.busy = true;
                bpush(&h, now + draw(&svc, MEAN_SERVICE_NS), DEPARTURE);
            } else {
                mm1_push(&q, now);
            }
        } else {
            q.served++;
            if (q.len > 0) {
                q.wait_sum += now - mm1_pop(&q);
                bpush(&h, now + draw(&svc, MEAN_SERVICE_NS), DEPARTURE);
            } else {
                q.busy = false;
            }
        }
    }
    result r = {events, q.served, q.wait_sum, now_s() - t0};
    free(h.a);
    free(q.ring);
    return r;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Resident memory of this process, in bytes (VmRSS), or 0. */
static uint64_t rss_bytes(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    uint64_t kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %" SCNu64, &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb * 1024u;
}

/* Bytes of resident memory per pending event with n events pending. */
static double pending_bytes(uint32_t n)
{
    ks_rng rng;
    ks_rng_stream(&rng, 42, "pending");
    ks_sim_limits lim = {.max_pending = KS_SIM_PENDING_MAX};
    ks_sim s;
    ks_sim_init(&s, &lim);
    uint64_t before = rss_bytes();
    ks_event ev = {.kind = ARRIVAL};
    for (uint32_t i = 0; i < n; i++)
        if (ks_sim_schedule(&s, (ks_time)ks_rng_next(&rng), &ev) == KS_HANDLE_NONE)
            break;
    uint64_t after = rss_bytes();
    uint32_t live = s.live;
    ks_sim_free(&s);
    return live ? (double)(after - before) / live : 0.0;
}

int main(int argc, char **argv)
{
    uint64_t customers = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000u;
    int repeats = argc > 2 ? atoi(argv[2]) : 5;
    if (customers == 0 || repeats < 1 || repeats > 100) {
        fprintf(stderr, "usage: bench_engine [CUSTOMERS>0] [REPEATS 1..100]\n");
        return 2;
    }
    double ks_t[100], bare_t[100];
    result rk = {0}, rb = {0};
    /* Alternate the two so that frequency scaling and cache warmth treat
     * both alike; report the median of the repeats. */
    for (int i = 0; i < repeats; i++) {
        rk = run_ksim(customers, 42);
        rb = run_bare(customers, 42);
        ks_t[i] = rk.seconds;
        bare_t[i] = rb.seconds;
    }
    if (rk.wait_sum_ns != rb.wait_sum_ns || rk.events != rb.events) {
        fprintf(stderr, "bench_engine: the two loops disagree (events %" PRIu64 " vs %" PRIu64
                        ", wait %" PRId64 " vs %" PRId64 ")\n",
                rk.events, rb.events, rk.wait_sum_ns, rb.wait_sum_ns);
        return 1;
    }
    qsort(ks_t, (size_t)repeats, sizeof ks_t[0], cmp_double);
    qsort(bare_t, (size_t)repeats, sizeof bare_t[0], cmp_double);
    double tk = ks_t[repeats / 2], tb = bare_t[repeats / 2];
    double ek = (double)rk.events / tk, eb = (double)rb.events / tb;
    printf("M/M/1, rho 0.9, %" PRIu64 " customers, %" PRIu64 " events, median of %d runs\n",
           rk.customers, rk.events, repeats);
    printf("  mean wait in queue        %.1f ns (theory %.1f ns)\n",
           (double)rk.wait_sum_ns / (double)rk.customers,
           MEAN_SERVICE_NS * 0.9 / (1.0 - 0.9));
    printf("  ksim engine   %8.2f M events/s  %6.1f ns/event  %6.2f M customers/s\n", ek / 1e6,
           1e9 / ek, (double)rk.customers / tk / 1e6);
    printf("  bare heap     %8.2f M events/s  %6.1f ns/event  %6.2f M customers/s\n", eb / 1e6,
           1e9 / eb, (double)rb.customers / tb / 1e6);
    printf("  ratio ksim / bare: %.2f (target >= 0.90)\n", ek / eb);
    uint32_t pending = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 10000000u;
    if (pending > 0)
        printf("  %" PRIu32 " events pending: %.1f bytes each (target <= 48)\n", pending,
               pending_bytes(pending));
    return 0;
}
