# latency.gp - `ksim report` template: latency percentiles (send() to
# acknowledgement) of the records completed in each metrics bucket, p99
# solid and p50 dashed, one colour per run; each run's faults as bands of
# its colour. A bucket that completed nothing breaks the line. The PLOT
# placeholder: one panel per scale group, each a `plot` command.
@COMMON@
set xlabel "virtual time (s)"
set xrange [0:xmax]
# fixed margins, so that the panels line up whatever their legends hold
set lmargin at screen 0.08
set rmargin at screen 0.66
do for [fmt in formats] {
    eval term(fmt)
    set output chart.".".fmt.out_suffix
    set multiplot layout panels,1 title "Latency percentiles per metrics bucket (p99 solid, p50 dashed)"
@PLOT@
    unset multiplot
    set output
}
