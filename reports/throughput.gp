# throughput.gp - `ksim report` template: records and megabytes
# acknowledged per second of virtual time, one line per run, per metrics
# bucket; each run's faults as bands of its colour. The PLOT placeholder
# is what ksim generates: the records/s panels, then the MB/s panels, one
# of each per scale group (runs more than 10 times apart are drawn
# apart), each a `plot` command.
@COMMON@
set xlabel "virtual time (s)"
set xrange [0:xmax]
# fixed margins, so that the panels line up whatever their legends hold
set lmargin at screen 0.08
set rmargin at screen 0.66
do for [fmt in formats] {
    eval term(fmt)
    set output chart.".".fmt.out_suffix
    set multiplot layout panels,1 title "Throughput (acknowledged records per metrics bucket)"
@PLOT@
    unset multiplot
    set output
}
