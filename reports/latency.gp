# latency.gp - `ksim report` template: latency percentiles (send() to
# acknowledgement) of the records completed in each metrics bucket, p99
# solid and p50 dashed, one colour per run; faults as dashed red lines.
@COMMON@
set xlabel "virtual time (s)"
set ylabel "latency (ms)"
set title "Latency percentiles per metrics bucket (p99 solid, p50 dashed)"
do for [fmt in formats] {
    eval term(fmt)
    set output chart.".".fmt.out_suffix
    plot @PLOT@
    set output
}
