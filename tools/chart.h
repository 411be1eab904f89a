/*
 * chart.h - the geometry of `ksim report`'s charts, apart from gnuplot:
 * which runs share a panel (scale groups), the count axes' integer tick
 * steps, and the percentile ladder of the latency-by-percentile chart.
 * Pure functions of their arguments; report.c turns their answers into
 * gnuplot scripts.
 */
#ifndef KS_CHART_H
#define KS_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A run whose value max[i] is negative has no data on the chart:
 * group[i] is then KS_CHART_NO_GROUP. */
#define KS_CHART_NO_GROUP ((size_t)-1)

/* Puts runs whose largest values (max[i], >= 0) lie within `ratio`
 * (10: the report's rule) of each other in one scale group, so that no
 * run is flattened against the axis of a run 10 times larger. Group 0
 * holds the run with the largest value and every run within ratio of
 * it; group 1 the largest of the rest, and so on. Runs whose largest
 * value is 0 join the last group. Writes group[i] for every run; returns
 * the number of groups (0 when no run has data). */
size_t ks_chart_scale_groups(const double *max, size_t n, double ratio, size_t *group);

/* The tick step of a count axis from 0 to max: an integer (1, 2, 5,
 * 10, 20, 50, ...) giving at most 10 ticks. */
int64_t ks_chart_count_step(int64_t max);

/* Point k (from 0) of the percentile ladder: ten points a decade of
 * x = 1/(1 - q), at x = 1, 1.25, 1.6, 2, 2.5, 3.16, 4, 5, 6.3, 8, 10,
 * 12.5, ... (q = 0, 20%, 37.5%, 50%, 60%, ..., 90%, 92%, ...). Writes
 * q as num/den, exactly, with den at most 100 x (den = x from x = 100
 * on); returns x times 100, or 0 past the ladder's last point (x > 10^15). */
uint64_t ks_chart_ladder(size_t k, uint64_t *num, uint64_t *den);

#endif
