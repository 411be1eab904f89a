# consumers.gp - `ksim report` template: the records each consumer read
# (summary.json's "consumers"), and how many of them belong to aborted
# transactions, as clustered bars; one group per consumer of every run.
# YMAX is the largest count (at least 1), YSTEP its axis' integer step.
@COMMON@
set title "Records read by consumers"
set ylabel "records"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set yrange [0:@YMAX@ * 1.15]
set ytics @YSTEP@
set format y "%.0f"
# "c1 (read_committed)" as "c1" over "(read_committed)"; the run's label
# under them when there are several runs
cut(s) = strstrt(s, " (")
two_lines(s) = cut(s) > 0 ? s[1:cut(s) - 1]."\n".s[cut(s) + 1:] : s
set xtics font ",9" scale 0
set key outside top center horizontal
set bmargin 5
do for [fmt in formats] {
    eval term(fmt)
    set output chart.".".fmt.out_suffix
@PLOT@
    set output
}
