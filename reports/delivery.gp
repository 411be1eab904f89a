# delivery.gp - `ksim report` template: the delivery checker's counts
# (summary.json's "delivery": records lost, duplicated, reordered, failed
# but present; failed and absent, indeterminate and the transactional
# anomalies when a run has one) as clustered bars, one colour per run.
# The YMAX placeholder is the largest count (at least 1).
@COMMON@
set title "Delivery anomalies (records)"
set ylabel "records"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set yrange [0:@YMAX@ * 1.15]
set xtics rotate by -20
do for [fmt in formats] {
    eval term(fmt)
    set output chart.".".fmt.out_suffix
    plot @PLOT@
    set output
}
