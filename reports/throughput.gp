# throughput.gp - `ksim report` template: records and megabytes
# acknowledged per second of virtual time, one line per run, per metrics
# bucket; faults as dashed red vertical lines. The PLOT and PLOT2
# placeholders are the plot lists ksim generates (records/s, MB/s).
@COMMON@
set xlabel "virtual time (s)"
do for [fmt in formats] {
    eval term(fmt)
    set output chart.".".fmt.out_suffix
    set multiplot layout 2,1 title "Throughput (acknowledged records per metrics bucket)"
    set ylabel "records/s"
    plot @PLOT@
    set ylabel "MB/s"
    plot @PLOT2@
    unset multiplot
    set output
}
