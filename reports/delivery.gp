# delivery.gp - `ksim report` template: the delivery checker's counts
# (summary.json's "delivery": records lost, duplicated, reordered, failed
# but present; failed and absent, indeterminate and the transactional
# anomalies when a run has one) as bars side by side under each count's
# name, one colour per run, each labelled with its number when not 0.
# YMAX is the largest count (at least 1), YSTEP its axis' integer step;
# PLOT sets the count names as x ticks and plots.
@COMMON@
set title "Delivery anomalies (records)"
set ylabel "records"
set yrange [0:@YMAX@ * 1.15]
set ytics @YSTEP@
set format y "%.0f"
set xtics scale 0 font ",9"
set key outside top center horizontal
set bmargin 5
do for [fmt in formats] {
    eval term(fmt)
    set output chart.".".fmt.out_suffix
@PLOT@
    set output
}
