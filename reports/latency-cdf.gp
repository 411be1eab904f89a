# latency-cdf.gp - `ksim report` template: the cumulative distribution of
# record latencies (send() to acknowledgement, from the trace's ack lines,
# --trace-level record), one line per run, latency on a log scale.
@COMMON@
set xlabel "latency (ms)"
set ylabel "fraction of records acknowledged"
set title "Latency CDF"
set logscale x
set yrange [0:1]
set key inside right bottom
do for [fmt in formats] {
    eval term(fmt)
    set output chart.".".fmt.out_suffix
    plot @PLOT@
    set output
}
