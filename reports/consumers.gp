# consumers.gp - `ksim report` template: the records each consumer read
# (summary.json's "consumers"), and how many of them belong to aborted
# transactions, as clustered bars; one group per consumer of every run.
# The YMAX placeholder is the largest count (at least 1).
@COMMON@
set title "Records read by consumers"
set ylabel "records"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set yrange [0:@YMAX@ * 1.15]
set xtics font ",8" rotate by -30 left
set key outside top center horizontal
set bmargin 9
do for [fmt in formats] {
    eval term(fmt)
    set output chart.".".fmt.out_suffix
    plot @PLOT@
    set output
}
