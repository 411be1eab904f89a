/*
 * replicas.h - the replicas a broker holds: for each partition it leads,
 * its log's end offset, its batches when kept, and its idempotent
 * producers' state.
 *
 * Owns: one broker's replicas, and finding a partition's replica by the
 * partition's number (models/kafka/metadata.h). Without replication a
 * broker holds the replicas of the partitions it leads.
 *
 * Never: decides what is appended (produce.c does), or reads another
 * broker's replicas.
 */
#ifndef KS_REPLICAS_H
#define KS_REPLICAS_H

#include "models/broker/plog.h"
#include "models/broker/producer_state.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct ks_replica {
    uint32_t partition;      /* its number */
    bool logged;             /* its batches are kept (consumers or transactions) */
    int64_t log_end_offset;
    ks_producer_state ps;    /* idempotent producers' state at the leader */
    ks_plog *log;            /* kept here when logged (else NULL; owned) */
    uint64_t records;        /* data records appended */
    uint64_t batches;
} ks_replica;

typedef struct ks_replicas {
    ks_replica *rep;
    uint32_t n, cap;
    uint32_t *of;            /* per partition number: its replica, or UINT32_MAX */
    uint32_t partitions;
    bool logged;             /* replicas keep their batches */
    uint32_t ps_retain;      /* batches kept per producer id (producer_state.h) */
    bool ps_legacy;          /* brokers before 2.5: UNKNOWN_PRODUCER_ID */
} ks_replicas;

/* No replicas yet, of a cluster of `partitions` partition numbers. False
 * when out of memory. */
bool ks_replicas_init(ks_replicas *r, uint32_t partitions, bool logged, uint32_t ps_retain,
                      bool ps_legacy);
void ks_replicas_free(ks_replicas *r);
/* A replica of partition p, empty; true when it was there already.
 * False when out of memory. */
bool ks_replicas_add(ks_replicas *r, uint32_t p);

/* The replica of partition p, or NULL when the broker holds none. */
static inline ks_replica *ks_replicas_of(const ks_replicas *r, uint32_t p)
{
    uint32_t i = p < r->partitions ? r->of[p] : UINT32_MAX;
    return i == UINT32_MAX ? NULL : &r->rep[i];
}

#endif
