/*
 * chart.c - scale groups, count ticks and the percentile ladder of
 * `ksim report`'s charts (see chart.h).
 */
#include "tools/chart.h"

size_t ks_chart_scale_groups(const double *max, size_t n, double ratio, size_t *group)
{
    size_t groups = 0;
    for (size_t i = 0; i < n; i++)
        group[i] = KS_CHART_NO_GROUP;
    for (;;) {
        /* the largest run not yet in a group leads the next one */
        size_t lead = KS_CHART_NO_GROUP;
        for (size_t i = 0; i < n; i++)
            if (max[i] > 0 && group[i] == KS_CHART_NO_GROUP &&
                (lead == KS_CHART_NO_GROUP || max[i] > max[lead]))
                lead = i;
        if (lead == KS_CHART_NO_GROUP)
            break;
        for (size_t i = 0; i < n; i++)
            if (max[i] > 0 && group[i] == KS_CHART_NO_GROUP && max[i] * ratio >= max[lead])
                group[i] = groups;
        groups++;
    }
    size_t zeros = groups ? groups - 1 : 0;
    for (size_t i = 0; i < n; i++)
        if (max[i] == 0) {
            group[i] = zeros;
            groups = groups ? groups : 1;
        }
    return groups;
}

int64_t ks_chart_count_step(int64_t max)
{
    static const int64_t mant[] = {1, 2, 5};
    for (int64_t scale = 1;; scale *= 10)
        for (size_t m = 0; m < 3; m++)
            if (max / (mant[m] * scale) < 10 || scale > INT64_MAX / 100)
                return mant[m] * scale;
}

uint64_t ks_chart_ladder(size_t k, uint64_t *num, uint64_t *den)
{
    /* x * 100 of each point of a decade */
    static const uint64_t mant[10] = {100, 125, 160, 200, 250, 316, 400, 500, 630, 800};
    size_t decade = k / 10;
    if (decade > 15)
        return 0;
    uint64_t x100 = mant[k % 10];
    for (size_t d = 0; d < decade; d++)
        x100 *= 10;
    /* q = 1 - 1/x = (x100 - 100) / x100, reduced by 100 when it divides
     * both (from x = 100 on), so that den stays near x */
    uint64_t div = decade >= 2 ? 100 : 1;
    *num = (x100 - 100) / div;
    *den = x100 / div;
    return x100;
}
