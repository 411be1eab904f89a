/*
 * producer_conf.h - the types of the scenario's "producers" section
 * (docs/scenario.md): a producer, its partitioner choice, costs,
 * compression and transactions (X-macro lists; the name tables are in
 * producer_section.h).
 *
 * Owns: those types, and nothing else; header-only, it pairs with no .c.
 * It takes the partitioner list from models/producer/partitioner.h.
 * models/producer/producer_section.h loads them, ks_scenario
 * (models/scenario_types.h) holds them, models/producer/ reads them.
 */
#ifndef KS_PRODUCER_CONF_H
#define KS_PRODUCER_CONF_H

#include "models/kafka/config.h"
#include "models/producer/partitioner.h"
#include "models/producer/workload_conf.h"
#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>

/* Keyless partitioner choice: "default" (the version's own) or one of
 * the partitioners, listed once in models/producer/partitioner.h. */
#define KS_PARTITIONER_CHOICES(X) \
    X(DEFAULT, "default")         \
    KS_PARTITIONERS(X)

typedef enum ks_partitioner_choice {
#define X(e, name) KS_PCHOICE_##e,
    KS_PARTITIONER_CHOICES(X)
#undef X
    KS_PCHOICE__COUNT
} ks_partitioner_choice;

/* Producer CPU costs (docs/scenario.md, "cost model"). */
typedef struct ks_producer_cost {
    ks_time record_ns;   /* the application thread, per send() */
    ks_time batch_ns;    /* the sender thread, per batch drained */
    ks_time request_ns;  /* the sender thread, per request built */
    ks_time idempotent_batch_ns; /* the sender thread, per batch given a
                                    sequence (idempotence's bookkeeping) */
} ks_producer_cost;

/* What compression.type does to this producer's data. Defaults depend on
 * the codec (docs/scenario.md, "Compression"); a scenario may set its
 * own. The size of a batch's compressed records is the codec's framing
 * plus raw x r(raw), r falling from 1 towards `ratio` as the batch grows
 * (models/producer/codec.h). */
typedef struct ks_compression_conf {
    double ratio;              /* asymptotic compressed / uncompressed ratio */
    uint32_t warmup_bytes;     /* raw bytes at which r is halfway from 1 to ratio */
    uint32_t frame_bytes;      /* the codec's stream header and trailer */
    uint32_t block_bytes;      /* framing per block of block_size raw bytes */
    uint32_t block_size;       /* raw bytes per block (0: one block) */
    int64_t compress_ps;       /* producer CPU per uncompressed byte, ps */
    int64_t decompress_ps;     /* broker CPU per uncompressed byte, ps */
} ks_compression_conf;

/* How a transactional producer's application groups its records
 * (docs/scenario.md, "transactions"). */
#define KS_TXN_ENDS(X)       \
    X(COMMIT, "commit")      \
    X(ABORT, "abort")        \
    X(NONE, "none")

typedef enum ks_txn_end {
#define X(e, name) KS_TXN_END_##e,
    KS_TXN_ENDS(X)
#undef X
    KS_TXN_END__COUNT
} ks_txn_end;

/* Which transaction protocol: the classic one, or KIP-890's (transaction
 * version 2: an epoch bump at every commit or abort, partitions added by
 * the first produce); "default" picks by kafka.version (4.0+: kip890). */
#define KS_TXN_PROTOCOLS(X)     \
    X(DEFAULT, "default")       \
    X(CLASSIC, "classic")       \
    X(KIP890, "kip890")

typedef enum ks_txn_protocol {
#define X(e, name) KS_TXNP_##e,
    KS_TXN_PROTOCOLS(X)
#undef X
    KS_TXNP__COUNT
} ks_txn_protocol;

typedef struct ks_txn_conf {
    bool enabled;              /* transactional.id is set */
    uint32_t records;          /* send() calls per transaction */
    ks_txn_end *ends;          /* how successive transactions end, cycled */
    uint32_t end_count;
    ks_time end_delay_ns;      /* from a transaction's last send() to its commit/abort */
    ks_txn_protocol protocol;
} ks_txn_conf;

typedef struct ks_producer_conf {
    char *id;
    uint32_t topic;                      /* index into topics */
    ks_partitioner_choice partitioner;   /* for keyless records */
    ks_cfg_value config[KS_PCFG__COUNT];
    ks_workload_conf workload;
    ks_producer_cost cost;
    ks_compression_conf compression;
    ks_txn_conf txn;
} ks_producer_conf;

#endif
