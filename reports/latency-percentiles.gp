# latency-percentiles.gp - `ksim report` template: record latencies
# (send() to acknowledgement, from the trace's ack lines, --trace-level
# record) by percentile, as HdrHistogram draws them: x is 1/(1 - q) on a
# log axis, so that p90, p99, p99.9 ... are equally far apart; one line
# per run. The PLOT placeholder sets the ranges (a log y axis when the
# runs' maxima are more than 10 times apart) and plots.
@COMMON@
set xlabel "percentile"
set ylabel "latency (ms)"
set title "Latency by percentile"
set logscale x
set xtics ("min" 1, "p50" 2, "p90" 10, "p99" 100, "p99.9" 1000, "p99.99" 10000, \
           "p99.999" 100000, "p99.9999" 1000000)
do for [fmt in formats] {
    eval term(fmt)
    set output chart.".".fmt.out_suffix
@PLOT@
    set output
}
