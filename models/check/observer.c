/*
 * observer.c - the delivery checker as the run's observer: the table of
 * models/obs.h's observation points, each handing its observation to the
 * ks_checker_* function of the same name.
 */
#include "models/check/checker.h"

static void on_sent(void *ctx, uint32_t producer, uint64_t batch, uint32_t partition,
                    uint32_t records, uint64_t request, uint32_t attempt)
{
    ks_checker_sent(ctx, producer, batch, partition, records, request, attempt);
}

static void on_appended(void *ctx, uint32_t producer, uint64_t batch, uint64_t request,
                        int64_t base_offset)
{
    ks_checker_appended(ctx, producer, batch, request, base_offset);
}

static void on_not_appended(void *ctx, uint32_t producer, uint64_t batch, uint64_t request,
                            const char *why)
{
    ks_checker_not_appended(ctx, producer, batch, request, why);
}

static void on_request_fate(void *ctx, uint32_t producer, uint64_t request,
                            ks_request_fate fate, int32_t fault)
{
    ks_checker_request_fate(ctx, producer, request, fate, fault);
}

static void on_told(void *ctx, uint32_t producer, uint64_t batch, uint32_t partition,
                    ks_told told, const char *error, int64_t offset, const uint64_t *ids,
                    uint32_t n)
{
    ks_checker_told(ctx, producer, batch, partition, told, error, offset, ids, n);
}

static void on_untold(void *ctx, uint32_t producer, uint64_t records)
{
    ks_checker_untold(ctx, producer, records);
}

static void on_split(void *ctx, uint32_t producer, uint64_t batch, uint64_t into,
                     uint32_t partition, uint32_t records)
{
    ks_checker_split(ctx, producer, batch, into, partition, records);
}

static void on_aborted(void *ctx, const uint64_t *ids, uint32_t n)
{
    ks_checker_aborted(ctx, ids, n);
}

static void on_read(void *ctx, uint32_t consumer, uint64_t record, bool read_committed,
                    bool transactional, int64_t now)
{
    ks_checker_read(ctx, consumer, record, read_committed, transactional, now);
}

static void on_forward(void *ctx, uint64_t record, uint64_t source)
{
    ks_checker_forward(ctx, record, source);
}

static void on_txn_committed(void *ctx, uint32_t producer, uint64_t txn, int64_t decided_ns,
                             const uint64_t *ids, const uint32_t *partitions, uint32_t n)
{
    ks_checker_txn_committed(ctx, producer, txn, decided_ns, ids, partitions, n);
}

static void on_zombie(void *ctx, const uint64_t *ids, uint32_t n)
{
    ks_checker_zombie(ctx, ids, n);
}

static const ks_obs_ops checker_ops = {
    .sent = on_sent,
    .appended = on_appended,
    .not_appended = on_not_appended,
    .request_fate = on_request_fate,
    .told = on_told,
    .untold = on_untold,
    .split = on_split,
    .aborted = on_aborted,
    .read = on_read,
    .forward = on_forward,
    .txn_committed = on_txn_committed,
    .zombie = on_zombie,
};

ks_obs ks_checker_observer(ks_checker *c)
{
    return (ks_obs){.ops = c ? &checker_ops : NULL, .ctx = c};
}
