/*
 * app.h - the application of consume-transform-produce: what it does
 * with the records its consumer reads, and with their offsets.
 *
 * Owns: the application's policy: each record processed is written again
 * (transformed) by its producer, the one forward.to names (and after a
 * restart the one the crash fault names); with commit "transaction" the
 * positions of a poll go into that producer's transaction
 * (sendOffsetsToTransaction), and the application ends the transaction
 * itself; when the transaction has ended, the consumer hears whether it
 * committed (it polls on) or aborted (it seeks back). The application
 * holds its consumer and its producers and calls each through its own
 * interface; neither calls the other.
 *
 * Never: reads a log, a broker or a node it does not own.
 */
#ifndef KS_APP_H
#define KS_APP_H

#include "models/consumer/consumer.h"
#include "models/ctx.h"
#include "models/producer/producer.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct ks_app {
    ks_consumer *consumer;
    ks_producer **producers;  /* per producer index: one it may write with, or NULL */
    uint32_t nproducers;
} ks_app;

/* The application of consumer c, which writes with the producers of
 * `all` (n of them) that its forward.to and the crash faults of c name.
 * Links c and those producers to it. False when out of memory. */
bool ks_app_init(ks_app *a, const ks_scenario *sc, ks_consumer *c, ks_producer *all, uint32_t n);
void ks_app_free(ks_app *a);
/* Does consumer i of the scenario hand what it reads to an application? */
bool ks_app_needed(const ks_scenario *sc, uint32_t i);

#endif
