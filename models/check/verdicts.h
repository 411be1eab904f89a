/*
 * verdicts.h - the delivery checker's verdicts, and the counts beside
 * them, in one list: for each, its key in summary.json's "delivery"
 * object, a label for charts and tables, the phrase `ksim run` prints,
 * and where it is shown.
 *
 * Owns: the names of the verdicts and of the counts beside them, their
 * order, and which of them are transactional. The checker (checker.c;
 * checker_internal.h lists its files) counts them and writes them under
 * these keys in this order; `ksim run` (tools/cmd_run.c), `ksim report`
 * (tools/report.c) and `ksim explain` (tools/explain/result.c) show them
 * from this list. Never: judges a record (checker.h says what each
 * verdict means).
 */
#ifndef KS_CHECK_VERDICTS_H
#define KS_CHECK_VERDICTS_H

#include "sim/str.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* What a count is:
 *   ANOMALY  a verdict on records: "ok" is false when its count is not 0,
 *            and its key names it in an anomaly's "kinds"
 *   MEASURE  a count beside the verdict before it, not an anomaly
 *   DERIVED  not in the summary: whoever shows it computes it from the
 *            summary (ks_verdict_count) */
typedef enum ks_verdict_class { KS_VC_ANOMALY, KS_VC_MEASURE, KS_VC_DERIVED } ks_verdict_class;

/* When a count is shown: never, always, when the summary has it (the
 * transactional counts are there only when consumers are checked), or
 * when it is not 0 (for a bar of the delivery chart: in some run). */
typedef enum ks_verdict_show { KS_VS_NEVER, KS_VS_ALWAYS, KS_VS_CHECKED, KS_VS_NONZERO } ks_verdict_show;

/* X(ENUM, "key", "label", "phrase", class, txn, bar, console)
 *   key      in summary.json's "delivery" object and in "kinds"
 *   label    a short name for charts and tables
 *   phrase   after its count in `ksim run`'s delivery line ("3 reordered");
 *            a MEASURE's goes in parentheses after the count before it
 *            ("3 duplicated (+3 copies)")
 *   txn      transactional: judged, and in the summary, only when
 *            consumers read (ks_checker_watch_reads)
 *   bar      when `ksim report` draws it as a bar of the delivery chart
 *   console  when `ksim run` prints it in its delivery line
 * extra_copies: the surplus copies of duplicated records.
 * failed_and_absent: records told they failed and in no log (what
 * at-most-once loses): records.failed less failed_but_present. */
#define KS_VERDICTS(X)                                                                           \
    X(LOST, "lost", "lost", "lost", ANOMALY, false, ALWAYS, ALWAYS)                              \
    X(DUPLICATE, "duplicate", "duplicate", "duplicated", ANOMALY, false, ALWAYS, ALWAYS)         \
    X(EXTRA_COPIES, "extra_copies", "extra copies", "copies", MEASURE, false, NEVER, ALWAYS)     \
    X(NONMONOTONIC_SEND, "nonmonotonic_send", "reordered", "reordered", ANOMALY, false, ALWAYS,  \
      ALWAYS)                                                                                    \
    X(FAILED_BUT_PRESENT, "failed_but_present", "failed but present", "failed but present",     \
      ANOMALY, false, ALWAYS, ALWAYS)                                                            \
    X(FAILED_AND_ABSENT, "failed_and_absent", "failed and absent", "failed and absent",         \
      DERIVED, false, NONZERO, NEVER)                                                            \
    X(INDETERMINATE, "indeterminate", "indeterminate", "indeterminate", ANOMALY, false, NONZERO, \
      ALWAYS)                                                                                    \
    X(ABORTED_READ, "aborted_read", "aborted read", "aborted reads", ANOMALY, true, CHECKED,     \
      CHECKED)                                                                                   \
    X(ZOMBIE_WRITE_VISIBLE, "zombie_write_visible", "zombie write visible",                      \
      "zombie writes visible", ANOMALY, true, CHECKED, CHECKED)                                  \
    X(TORN_TRANSACTION, "torn_transaction", "torn transaction", "in torn transactions", ANOMALY, \
      true, CHECKED, CHECKED)                                                                    \
    X(PRECOMMITTED_READ, "precommitted_read", "precommitted read", "precommitted reads",         \
      ANOMALY, true, CHECKED, CHECKED)                                                           \
    X(PROCESSED_TWICE, "processed_twice", "processed twice", "processed twice", ANOMALY, true,   \
      CHECKED, NONZERO)

typedef enum ks_verdict {
#define X(e, key, label, phrase, cls, txn, bar, console) KS_VERDICT_##e,
    KS_VERDICTS(X)
#undef X
    KS_VERDICT__COUNT
} ks_verdict;

typedef struct ks_verdict_info {
    const char *key, *label, *phrase;
    ks_verdict_class cls;
    bool txn;
    ks_verdict_show bar, console;
} ks_verdict_info;

const ks_verdict_info *ks_verdict_info_of(ks_verdict v);
const char *ks_verdict_key(ks_verdict v);

/* Verdict v's count in a summary's "delivery" object: its integer (0 when
 * absent), or for a DERIVED one what it is derived from. */
int64_t ks_verdict_count(const json_t *delivery, ks_verdict v);

/* The counts of a summary's "delivery" object as `ksim run` prints them,
 * appended to out: "0 lost, 1 duplicated (+1 copies), 0 reordered, ...",
 * each count whose console rule holds, the transactional ones only when
 * `txn`. */
void ks_verdicts_phrases(ks_sbuf *out, const json_t *delivery, bool txn);

#endif
