/*
 * faults.h - fault injection at run time: which request, response or
 * append a scenario's faults strike, and when a broker or producer is
 * paused.
 *
 * Owns: per fault, how many times it struck and (for the probabilistic
 * ones) its random stream, named by the fault itself ("fault.<name>", or
 * derived from its content: fault_section.h), so adding or removing a
 * fault never shifts another's draws, and no model's draws move because
 * of a fault. Every
 * strike is a "fault" trace record; windows (link.down, pause.*) are
 * traced when they open and close.
 *
 * Never: changes model state itself, or tells a sender its message was
 * lost. The wire asks about each message, and acts on the answer (a lost
 * message is a silence: models/net/wire.h); the world acts on windows
 * through the nodes' operations.
 */
#ifndef KS_FAULTS_H
#define KS_FAULTS_H

#include "models/kafka/errors.h"
#include "sim/rng.h"
#include "models/scenario.h"
#include "models/events.h"
#include "sim/sim.h"

#include <stdint.h>

struct ks_world;

#define KS_NO_FAULT (-1)

typedef struct ks_faults {
    uint32_t n;
    const ks_fault_conf *conf;
    uint32_t *hits;          /* per fault */
    uint32_t *partition;     /* per fault: the world's partition index, or UINT32_MAX */
    ks_rng *rng;             /* per fault (used by *.loss only) */
} ks_faults;

bool ks_faults_init(ks_faults *f, struct ks_world *w);
void ks_faults_free(ks_faults *f);
/* Schedules the opening and closing of every window (daemon events). */
void ks_faults_start(struct ks_world *w);
/* A window opens or closes (KS_EV_FAULT). */
void ks_faults_on_window(struct ks_world *w, uint32_t fault, bool open);

/* Request `req` leaves its producer at `at`: returns the fault that loses
 * it (KS_NO_FAULT if none) and adds any delay to *delay_ns. */
int32_t ks_faults_request(struct ks_world *w, uint32_t req, ks_time at, ks_time *delay_ns);
/* The response to `req` leaves its broker at `at`: likewise. */
int32_t ks_faults_response(struct ks_world *w, uint32_t req, ks_time at, ks_time *delay_ns);
/* The leader is about to append request `req`: the fault that makes it
 * answer its batches of the struck partition (or all, when the fault
 * names none) with an error, or KS_NO_FAULT. *err and *partition
 * (UINT32_MAX: every batch) say how. */
int32_t ks_faults_append(struct ks_world *w, uint32_t req, ks_time at, ks_kerr *err,
                         uint32_t *partition);
/* When the pause of a broker / producer that holds at `at` ends, or 0 if
 * none holds. */
ks_time ks_faults_broker_paused(const struct ks_world *w, uint32_t broker, ks_time at);
ks_time ks_faults_producer_paused(const struct ks_world *w, uint32_t producer, ks_time at);

#endif
