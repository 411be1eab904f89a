# requests.gp - `ksim report` template: produce requests sent per second
# of virtual time, per metrics bucket, one line per run; faults as dashed
# red lines.
@COMMON@
set xlabel "virtual time (s)"
set ylabel "requests/s"
set title "Produce requests per second"
do for [fmt in formats] {
    eval term(fmt)
    set output chart.".".fmt.out_suffix
    plot @PLOT@
    set output
}
