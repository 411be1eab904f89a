/*
 * records.h - a record as a Fetch answer carries it to a consumer.
 *
 * Owns: the shape of a fetched record (ks_fetched), which the leader's
 * log fills (models/broker/plog.h), the Fetch response carries
 * (models/net/request.h) and the consumer buffers; and the run's "no
 * record id".
 */
#ifndef KS_RECORDS_H
#define KS_RECORDS_H

#include <stdbool.h>
#include <stdint.h>

/* A record id the log does not know (a late copy of a batch its producer
 * had already let go). */
#define KS_PLOG_NO_RECORD UINT64_MAX

/* One record a fetch hands to the application. */
typedef struct ks_fetched {
    int64_t offset;
    uint64_t record;         /* its id (0 when ids are not kept) */
    uint32_t producer;       /* its producer's index in the scenario */
    int64_t producer_id;
    bool transactional;
    uint32_t bytes;          /* its share of its batch's bytes */
} ks_fetched;

#endif
