/*
 * test_sim.c - the event engine: (time, seq) ordering, ties, cancellation,
 * limits and their verdicts, growth under load, two engines side by side.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim/rng.h"
#include "sim/sim.h"

static ks_event timer(uint64_t arg)
{
    ks_event ev = {.kind = 3, .owner = 1, .tag = 2, .arg = arg};
    return ev;
}

static void test_orders_by_time(void **state)
{
    (void)state;
    ks_sim s;
    ks_sim_init(&s, NULL);
    int64_t times[] = {50, 10, 40, 20, 30, 0, 60};
    for (uint64_t i = 0; i < 7; i++) {
        ks_event ev = timer(i);
        assert_true(ks_sim_schedule(&s, times[i], &ev) != KS_HANDLE_NONE);
    }
    assert_int_equal(ks_sim_pending(&s), 7);
    int64_t last = -1;
    ks_event ev;
    int n = 0;
    while (ks_sim_next(&s, &ev)) {
        assert_true(ks_sim_now(&s) >= last);
        assert_int_equal(ks_sim_now(&s), times[ev.arg]);
        last = ks_sim_now(&s);
        n++;
    }
    assert_int_equal(n, 7);
    assert_int_equal(s.verdict, KS_SIM_COMPLETE);
    assert_string_equal(ks_sim_verdict_name(s.verdict), "complete");
    ks_sim_free(&s);
}

/* Equal times come out in scheduling order, including events scheduled
 * for "now" by a handler running at that same instant. */
static void test_ties_in_scheduling_order(void **state)
{
    (void)state;
    ks_sim s;
    ks_sim_init(&s, NULL);
    for (uint64_t i = 0; i < 1000; i++) {
        ks_event ev = timer(i);
        ks_sim_schedule(&s, 100, &ev);
    }
    ks_event ev;
    uint64_t expect = 0;
    bool added = false;
    while (ks_sim_next(&s, &ev)) {
        assert_int_equal(ev.arg, expect);
        expect++;
        if (!added) {
            /* Scheduled at the same instant, after 999 others: runs last. */
            ks_event late = timer(1000);
            ks_sim_after(&s, 0, &late);
            added = true;
        }
    }
    assert_int_equal(expect, 1001);
    ks_sim_free(&s);
}

static void test_cancel(void **state)
{
    (void)state;
    ks_sim s;
    ks_sim_init(&s, NULL);
    ks_handle h[10];
    for (uint64_t i = 0; i < 10; i++) {
        ks_event ev = timer(i);
        h[i] = ks_sim_schedule(&s, (int64_t)(i * 10), &ev);
    }
    assert_true(ks_sim_cancel(&s, h[3]));
    assert_false(ks_sim_cancel(&s, h[3])); /* twice: no */
    assert_true(ks_sim_cancel(&s, h[0]));  /* the head */
    assert_true(ks_sim_cancel(&s, h[9]));  /* the tail */
    assert_false(ks_sim_cancel(&s, KS_HANDLE_NONE));
    assert_int_equal(ks_sim_pending(&s), 7);
    ks_event ev;
    uint64_t seen = 0;
    while (ks_sim_next(&s, &ev)) {
        assert_true(ev.arg != 3 && ev.arg != 0 && ev.arg != 9);
        seen |= UINT64_C(1) << ev.arg;
    }
    assert_int_equal(seen, 0x1F6); /* 1,2,4,5,6,7,8 */
    assert_int_equal(s.cancelled, 3);
    assert_int_equal(s.dispatched, 7);
    ks_sim_free(&s);
}

/* A handle stays harmless after its event ran and its slot was reused. */
static void test_stale_handle(void **state)
{
    (void)state;
    ks_sim s;
    ks_sim_init(&s, NULL);
    ks_event ev = timer(1);
    ks_handle old = ks_sim_schedule(&s, 5, &ev);
    assert_true(ks_sim_next(&s, &ev));
    ks_event ev2 = timer(2);
    ks_handle fresh = ks_sim_schedule(&s, 6, &ev2); /* reuses the slot */
    assert_false(ks_sim_cancel(&s, old));
    assert_int_equal(ks_sim_pending(&s), 1);
    assert_true(ks_sim_next(&s, &ev));
    assert_int_equal(ev.arg, 2);
    assert_false(ks_sim_cancel(&s, fresh));
    /* a forged handle naming a slot never used (nor written) is refused:
     * handles are seq << 24 | slot */
    ks_handle forged = (UINT64_C(1) << 24) | 7u;
    assert_false(ks_sim_cancel(&s, forged));
    ks_sim_free(&s);
}

static void test_limit_events(void **state)
{
    (void)state;
    ks_sim_limits lim = {.max_events = 5};
    ks_sim s;
    ks_sim_init(&s, &lim);
    for (uint64_t i = 0; i < 10; i++) {
        ks_event ev = timer(i);
        ks_sim_schedule(&s, (int64_t)i, &ev);
    }
    ks_event ev;
    int n = 0;
    while (ks_sim_next(&s, &ev))
        n++;
    assert_int_equal(n, 5);
    assert_int_equal(s.verdict, KS_SIM_MAX_EVENTS);
    assert_string_equal(ks_sim_verdict_name(s.verdict), "max-events");
    assert_false(ks_sim_next(&s, &ev)); /* stays ended */
    ks_sim_free(&s);
}

/* Exactly max_events events with none left is a complete run. */
static void test_limit_events_exact(void **state)
{
    (void)state;
    ks_sim_limits lim = {.max_events = 3};
    ks_sim s;
    ks_sim_init(&s, &lim);
    for (uint64_t i = 0; i < 3; i++) {
        ks_event ev = timer(i);
        ks_sim_schedule(&s, (int64_t)i, &ev);
    }
    ks_event ev;
    while (ks_sim_next(&s, &ev)) {
    }
    assert_int_equal(s.verdict, KS_SIM_COMPLETE);
    ks_sim_free(&s);
}

static void test_limit_time(void **state)
{
    (void)state;
    ks_sim_limits lim = {.max_time_ns = 25};
    ks_sim s;
    ks_sim_init(&s, &lim);
    for (uint64_t i = 0; i < 10; i++) {
        ks_event ev = timer(i);
        ks_sim_schedule(&s, (int64_t)(i * 10), &ev);
    }
    ks_event ev;
    int n = 0;
    while (ks_sim_next(&s, &ev))
        n++;
    assert_int_equal(n, 3); /* t = 0, 10, 20 */
    assert_int_equal(s.verdict, KS_SIM_MAX_TIME);
    assert_int_equal(ks_sim_now(&s), 25);
    ks_sim_free(&s);
}

static void test_limit_pending(void **state)
{
    (void)state;
    ks_sim_limits lim = {.max_pending = 4};
    ks_sim s;
    ks_sim_init(&s, &lim);
    ks_event ev = timer(0);
    for (int i = 0; i < 4; i++)
        assert_true(ks_sim_schedule(&s, 1, &ev) != KS_HANDLE_NONE);
    assert_true(ks_sim_schedule(&s, 1, &ev) == KS_HANDLE_NONE);
    assert_int_equal(s.verdict, KS_SIM_MAX_PENDING);
    assert_false(ks_sim_next(&s, &ev));
    ks_sim_free(&s);
}

static void test_stop(void **state)
{
    (void)state;
    ks_sim s;
    ks_sim_init(&s, NULL);
    ks_event ev = timer(0);
    ks_sim_schedule(&s, 1, &ev);
    ks_sim_schedule(&s, 2, &ev);
    assert_true(ks_sim_next(&s, &ev));
    ks_sim_stop(&s, KS_SIM_STOPPED);
    ks_sim_stop(&s, KS_SIM_MAX_TIME); /* the first verdict stands */
    assert_false(ks_sim_next(&s, &ev));
    assert_int_equal(s.verdict, KS_SIM_STOPPED);
    /* ended stays ended: nothing runs, nothing is taken, the clock stands */
    assert_int_equal(ks_sim_schedule(&s, 3, &ev), KS_HANDLE_NONE);
    assert_false(ks_sim_next(&s, &ev));
    assert_int_equal(s.dispatched, 1);
    assert_int_equal(ks_sim_now(&s), 1);
    assert_int_equal(s.verdict, KS_SIM_STOPPED);
    ks_sim_free(&s);
}

/* Stopped while the next event is a cancelled one, and with an event
 * limit: the verdict is the stop's, not a limit's or "complete". */
static void test_stop_before_cancelled_and_limit(void **state)
{
    (void)state;
    ks_sim_limits lim = {.max_events = 1};
    ks_sim s;
    ks_sim_init(&s, &lim);
    ks_event ev = timer(0);
    ks_sim_schedule(&s, 1, &ev);
    ks_handle h = ks_sim_schedule(&s, 2, &ev);
    ks_sim_schedule(&s, 3, &ev);
    assert_true(ks_sim_next(&s, &ev));
    assert_true(ks_sim_cancel(&s, h));
    ks_sim_stop(&s, KS_SIM_STOPPED);
    assert_false(ks_sim_next(&s, &ev));
    assert_int_equal(s.verdict, KS_SIM_STOPPED);
    assert_int_equal(s.dispatched, 1);
    ks_sim_free(&s);
}

/* Random schedules and cancellations against a simple reference: a sorted
 * scan of (time, seq) over everything still live. */
static void test_random_against_reference(void **state)
{
    (void)state;
    enum { N = 3000 };
    static int64_t t[N];
    static bool live[N];
    static ks_handle h[N];
    ks_rng r;
    ks_rng_stream(&r, 99, "test.sim.random");
    ks_sim s;
    ks_sim_init(&s, NULL);
    size_t made = 0, done = 0;
    int64_t now = 0;
    while (done < N) {
        uint32_t action = ks_rng_bounded(&r, 10);
        if (made < N && action < 6) {
            t[made] = now + (int64_t)ks_rng_bounded(&r, 50);
            ks_event ev = timer(made);
            h[made] = ks_sim_schedule(&s, t[made], &ev);
            live[made] = true;
            made++;
        } else if (made > 0 && action < 7) {
            size_t victim = ks_rng_bounded(&r, (uint32_t)made);
            bool was = live[victim];
            assert_int_equal(ks_sim_cancel(&s, h[victim]), was);
            if (was) {
                live[victim] = false;
                done++;
            }
        } else {
            /* reference: the live event with smallest (t, index) */
            size_t best = N;
            for (size_t i = 0; i < made; i++)
                if (live[i] && (best == N || t[i] < t[best]))
                    best = i;
            ks_event ev;
            if (best == N) {
                if (made == N)
                    break;
                continue;
            }
            assert_true(ks_sim_next(&s, &ev));
            assert_int_equal(ev.arg, best);
            assert_int_equal(ks_sim_now(&s), t[best]);
            now = t[best];
            live[best] = false;
            done++;
        }
    }
    assert_int_equal(ks_sim_pending(&s), 0);
    ks_sim_free(&s);
}

/* A small world for ks_sim_chain: SOURCES arrival streams (kind 1, each
 * scheduling its successor) and timers (kind 2) that arrivals schedule
 * and sometimes cancel; every handled event is logged. With chain set,
 * an arrival's successor runs at once whenever ks_sim_chain allows. */
enum { SOURCES = 2, LOG_MAX = 4000, TIMERS = 64 };

typedef struct chain_log {
    int64_t at[LOG_MAX];
    uint64_t what[LOG_MAX];
    uint32_t n;
    uint32_t chained;
} chain_log;

static void log_event(chain_log *l, int64_t at, uint64_t what)
{
    if (l->n < LOG_MAX) {
        l->at[l->n] = at;
        l->what[l->n] = what;
    }
    l->n++;
}

static void run_chain_world(bool chain, const ks_sim_limits *lim, chain_log *l, ks_sim *s)
{
    ks_rng r;
    ks_rng_stream(&r, 5, "test.sim.chain");
    ks_handle timers[TIMERS] = {0};
    ks_sim_init(s, lim);
    for (uint64_t i = 0; i < SOURCES; i++) {
        ks_event ev = {.kind = 1, .arg = i};
        ks_sim_schedule(s, (ks_time)ks_rng_bounded(&r, 20), &ev);
    }
    ks_event ev;
    while (ks_sim_next(s, &ev)) {
        for (;;) {
            log_event(l, ks_sim_now(s), ev.kind * 100u + ev.arg);
            if (ev.kind != 1)
                break;
            /* an arrival: a timer or two, a cancellation, its successor */
            uint32_t k = ks_rng_bounded(&r, TIMERS);
            ks_event t = {.kind = 2, .arg = k};
            if (ks_rng_bounded(&r, 3) == 0)
                ks_sim_cancel(s, timers[k]);
            else
                timers[k] = ks_sim_after(s, 2 + (ks_time)ks_rng_bounded(&r, 40), &t);
            ks_time at = ks_sim_now(s) + (ks_time)ks_rng_bounded(&r, 4);
            if (l->n > 3000 || !(chain && ks_sim_chain(s, at, 1))) {
                if (l->n <= 3000)
                    ks_sim_schedule(s, at, &ev);
                break;
            }
            l->chained++;
        }
    }
}

/* Chaining changes nothing a run computes: the same events at the same
 * times in the same order, the same counts and verdict, with and without
 * limits that cut the run short. */
static void test_chain_same_run(void **state)
{
    (void)state;
    ks_sim_limits limits[] = {{0}, {.max_events = 1234}, {.max_time_ns = 333}, {.max_pending = 30}};
    for (size_t k = 0; k < sizeof limits / sizeof limits[0]; k++) {
        static chain_log a, b;
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        ks_sim sa, sb;
        run_chain_world(false, &limits[k], &a, &sa);
        run_chain_world(true, &limits[k], &b, &sb);
        assert_true(b.chained > 5); /* the path under test was taken */
        assert_int_equal(a.chained, 0);
        assert_int_equal(a.n, b.n);
        for (uint32_t i = 0; i < a.n && i < LOG_MAX; i++) {
            assert_int_equal(a.at[i], b.at[i]);
            assert_int_equal(a.what[i], b.what[i]);
        }
        assert_int_equal(sa.verdict, sb.verdict);
        assert_int_equal(sa.dispatched, sb.dispatched);
        assert_int_equal(sa.cancelled, sb.cancelled);
        assert_int_equal(sa.next_seq, sb.next_seq);
        assert_int_equal(ks_sim_now(&sa), ks_sim_now(&sb));
        for (uint32_t kind = 0; kind < KS_EVENT_KINDS_MAX; kind++)
            assert_int_equal(sa.dispatched_by_kind[kind], sb.dispatched_by_kind[kind]);
        ks_sim_free(&sa);
        ks_sim_free(&sb);
    }
}

/* ks_sim_chain refuses what would not run next: a tie with a pending
 * event, an earlier one, a time past the limit, a run that has ended. */
static void test_chain_refuses(void **state)
{
    (void)state;
    ks_sim_limits lim = {.max_time_ns = 100};
    ks_sim s;
    ks_sim_init(&s, &lim);
    ks_event ev = timer(0);
    ks_sim_schedule(&s, 10, &ev);
    ks_sim_schedule(&s, 20, &ev);
    assert_true(ks_sim_next(&s, &ev)); /* now 10; 20 pending */
    assert_false(ks_sim_chain(&s, 20, 3)); /* a tie: the pending one is older */
    assert_false(ks_sim_chain(&s, 25, 3));
    assert_true(ks_sim_chain(&s, 19, 3));
    assert_int_equal(ks_sim_now(&s), 19);
    assert_int_equal(s.dispatched, 2);
    assert_int_equal(s.dispatched_by_kind[3], 2);
    assert_int_equal(ks_sim_pending(&s), 1);
    assert_true(ks_sim_next(&s, &ev)); /* the one at 20 */
    assert_false(ks_sim_chain(&s, 101, 3)); /* past max.time */
    assert_true(ks_sim_chain(&s, 100, 3)); /* nothing pending: the last instant */
    ks_sim_stop(&s, KS_SIM_STOPPED);
    assert_false(ks_sim_chain(&s, 100, 3));
    assert_int_equal(s.dispatched, 4);
    ks_sim_free(&s);
}

/* Two engines are independent: interleaving them changes nothing. */
static void test_two_engines(void **state)
{
    (void)state;
    ks_sim a, b;
    ks_sim_init(&a, NULL);
    ks_sim_init(&b, NULL);
    for (uint64_t i = 0; i < 100; i++) {
        ks_event ev = timer(i);
        ks_sim_schedule(&a, (int64_t)(i % 7), &ev);
        ks_sim_schedule(&b, (int64_t)(i % 7), &ev);
    }
    ks_event ea, eb;
    while (ks_sim_next(&a, &ea)) {
        assert_true(ks_sim_next(&b, &eb));
        assert_int_equal(ea.arg, eb.arg);
        assert_int_equal(ks_sim_now(&a), ks_sim_now(&b));
    }
    assert_false(ks_sim_next(&b, &eb));
    ks_sim_free(&a);
    ks_sim_free(&b);
}

/* The engine counts events per kind without knowing what a kind is. */
static void test_kind_counts(void **state)
{
    (void)state;
    ks_sim s;
    ks_sim_init(&s, NULL);
    for (uint32_t k = 0; k < 6; k++) {
        ks_event ev = {.kind = k % 3, .owner = k};
        ks_sim_schedule(&s, (ks_time)k, &ev);
    }
    ks_event out;
    uint32_t n = 0;
    while (ks_sim_next(&s, &out)) {
        assert_int_equal(out.kind, n % 3);
        assert_int_equal(out.owner, n);
        n++;
    }
    assert_int_equal(n, 6);
    assert_int_equal(s.dispatched_by_kind[0], 2);
    assert_int_equal(s.dispatched_by_kind[1], 2);
    assert_int_equal(s.dispatched_by_kind[2], 2);
    ks_sim_free(&s);
}

/* Many pending events: growth keeps order and payloads intact. */
static void test_growth(void **state)
{
    (void)state;
    ks_sim s;
    ks_sim_init(&s, NULL);
    enum { M = 200000 };
    for (uint64_t i = 0; i < M; i++) {
        ks_event ev = timer(i);
        ks_sim_schedule(&s, (int64_t)((i * 7919u) % M), &ev);
    }
    ks_event ev;
    int64_t last = -1;
    uint64_t n = 0;
    while (ks_sim_next(&s, &ev)) {
        assert_true(ks_sim_now(&s) >= last);
        assert_int_equal((int64_t)((ev.arg * 7919u) % M), ks_sim_now(&s));
        last = ks_sim_now(&s);
        n++;
    }
    assert_int_equal(n, M);
    ks_sim_free(&s);
}

/* Daemons run like other events but keep no run alive: when only
 * daemons are pending, the run is complete and time stays where the last
 * real event left it. */
static void test_daemons(void **state)
{
    (void)state;
    ks_sim s;
    ks_sim_init(&s, NULL);
    ks_event tick = timer(99), real = timer(1);
    ks_sim_schedule_daemon(&s, 10, &tick);
    ks_sim_schedule(&s, 25, &real);
    ks_event ev;
    assert_true(ks_sim_next(&s, &ev)); /* the tick at 10: a real event is pending */
    assert_int_equal(ev.arg, 99);
    assert_int_equal(ev.kind, 3); /* a daemon's kind comes back as it was given */
    assert_int_equal(ev.owner, 1);
    assert_int_equal(ev.tag, 2);
    assert_int_equal(s.dispatched_by_kind[3], 1);
    ks_sim_schedule_daemon(&s, 20, &tick);
    assert_true(ks_sim_next(&s, &ev));
    assert_int_equal(ks_sim_now(&s), 20);
    ks_sim_schedule_daemon(&s, 30, &tick);
    assert_true(ks_sim_next(&s, &ev)); /* the real event at 25 */
    assert_int_equal(ev.arg, 1);
    assert_false(ks_sim_next(&s, &ev)); /* only the daemon at 30 is left */
    assert_int_equal(s.verdict, KS_SIM_COMPLETE);
    assert_int_equal(ks_sim_now(&s), 25);
    ks_sim_free(&s);
    /* a cancelled real event leaves only daemons: complete */
    ks_sim_init(&s, NULL);
    ks_sim_schedule_daemon(&s, 1, &tick);
    ks_handle h = ks_sim_schedule(&s, 5, &real);
    ks_sim_cancel(&s, h);
    assert_false(ks_sim_next(&s, &ev));
    assert_int_equal(s.verdict, KS_SIM_COMPLETE);
    ks_sim_free(&s);
}

/* A hold keeps a run of only daemons going: a client waiting for an
 * answer that may never come lets its daemon timeout run; once released,
 * the run is complete at the next dispatch. With nothing pending at all a
 * hold cannot keep the run going. */
static void test_holds(void **state)
{
    (void)state;
    ks_sim s;
    ks_sim_init(&s, NULL);
    ks_event tick = timer(99);
    ks_sim_schedule_daemon(&s, 10, &tick);
    ks_sim_schedule_daemon(&s, 30, &tick);
    ks_event ev;
    ks_sim_hold(&s);
    assert_true(ks_sim_next(&s, &ev)); /* held: the daemon at 10 runs */
    assert_true(ks_sim_dispatched_daemon(&s));
    assert_int_equal(ks_sim_now(&s), 10);
    ks_sim_release(&s);
    assert_false(ks_sim_next(&s, &ev)); /* released: complete */
    assert_int_equal(s.verdict, KS_SIM_COMPLETE);
    assert_int_equal(ks_sim_now(&s), 10);
    ks_sim_free(&s);
    ks_sim_init(&s, NULL);
    ks_sim_hold(&s);
    assert_false(ks_sim_next(&s, &ev)); /* nothing pending: complete despite the hold */
    assert_int_equal(s.verdict, KS_SIM_COMPLETE);
    ks_sim_release(&s);
    ks_sim_release(&s); /* more releases than holds are harmless */
    assert_int_equal(s.holds, 0);
    ks_event real = timer(1);
    ks_sim_free(&s);
    ks_sim_init(&s, NULL);
    ks_sim_schedule(&s, 5, &real);
    assert_true(ks_sim_next(&s, &ev));
    assert_false(ks_sim_dispatched_daemon(&s));
    ks_sim_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_holds),
        cmocka_unit_test(test_orders_by_time),
        cmocka_unit_test(test_ties_in_scheduling_order),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_stale_handle),
        cmocka_unit_test(test_limit_events),
        cmocka_unit_test(test_limit_events_exact),
        cmocka_unit_test(test_limit_time),
        cmocka_unit_test(test_limit_pending),
        cmocka_unit_test(test_stop),
        cmocka_unit_test(test_stop_before_cancelled_and_limit),
        cmocka_unit_test(test_chain_same_run),
        cmocka_unit_test(test_chain_refuses),
        cmocka_unit_test(test_random_against_reference),
        cmocka_unit_test(test_two_engines),
        cmocka_unit_test(test_kind_counts),
        cmocka_unit_test(test_growth),
        cmocka_unit_test(test_daemons),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
