# batch-size.gp - `ksim report` template: how many records the batches
# held when the sender drained them (the trace's drain lines, retries
# included), as the fraction of batches per size, one colour per run side
# by side. The PLOT placeholder sets the x range and ticks and plots.
@COMMON@
set xlabel "records per batch"
set ylabel "fraction of batches"
set title "Batch size distribution"
set yrange [0:*]
do for [fmt in formats] {
    eval term(fmt)
    set output chart.".".fmt.out_suffix
@PLOT@
    set output
}
