/*
 * fsm.h - the tables of a state machine written as one X-macro list.
 *
 * Owns nothing: it turns a list of X(ENUM, "Name", id, predecessors),
 * where predecessors is a bit mask of the ids a state may follow, into
 * the two tables a checked transition function needs, and answers "may
 * `from` precede `to`?" and "what is state s called?" from them. The
 * models' machines use it: the producer's TransactionManager, a producer
 * batch's lifecycle, the coordinator's transactions.
 *
 *   KS_FSM_TABLES(KS_TM_STATES, KS_TM__COUNT, tm_predecessors, tm_names)
 *   ks_fsm_legal(tm_predecessors, KS_TM__COUNT, from, to)
 *   ks_fsm_name(tm_names, KS_TM__COUNT, s)
 */
#ifndef KS_FSM_H
#define KS_FSM_H

#include <stdbool.h>

#define KS_FSM_PREDECESSOR_(e, name, id, prev) [id] = (prev),
#define KS_FSM_NAME_(e, name, id, prev) [id] = name,

/* Defines `static const unsigned preds[count]` and `static const char
 * *const names[count]` from LIST. */
#define KS_FSM_TABLES(LIST, count, preds, names)                   \
    static const unsigned preds[count] = {LIST(KS_FSM_PREDECESSOR_)}; \
    static const char *const names[count] = {LIST(KS_FSM_NAME_)}

/* May a machine in state `from` move to `to`? False for ids out of range. */
static inline bool ks_fsm_legal(const unsigned *preds, unsigned count, unsigned from, unsigned to)
{
    return from < count && to < count && ((preds[to] >> from) & 1u);
}

/* The name of state s, "?" for an id out of range. */
static inline const char *ks_fsm_name(const char *const *names, unsigned count, unsigned s)
{
    return s < count ? names[s] : "?";
}

#endif
