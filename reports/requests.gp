# requests.gp - `ksim report` template: produce requests sent per second
# of virtual time, per metrics bucket, one line per run; each run's faults
# as bands of its colour. The PLOT placeholder: one panel per scale
# group, each a `plot` command.
@COMMON@
set xlabel "virtual time (s)"
set xrange [0:xmax]
# fixed margins, so that the panels line up whatever their legends hold
set lmargin at screen 0.08
set rmargin at screen 0.66
do for [fmt in formats] {
    eval term(fmt)
    set output chart.".".fmt.out_suffix
    set multiplot layout panels,1 title "Produce requests per second"
@PLOT@
    unset multiplot
    set output
}
