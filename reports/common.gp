# common.gp - settings every ksim report chart shares; `ksim report` copies
# this text in place of the COMMON placeholder in each chart's template.
#
# The script that includes it defines `chart` (the output name without its
# extension), `formats` ("png", "svg" or "png svg"), `panels` (how many
# the chart has), `height` (the image's, in pixels) and `xmax` (where the
# time charts' x axis ends, in seconds). `out_suffix` is
# appended to each output name: ksim sets it to ".tmp" and renames the
# finished images; run by hand (gnuplot NAME.gp in the report directory)
# the images are written under their own names.
if (!exists("out_suffix")) out_suffix = ""

# Both terminals: fixed size, plain text (noenhanced: '_' in a scenario
# name stays '_'), no time stamps, so equal data gives equal images.
if (!exists("height")) height = 540
term(fmt) = (fmt eq "png") \
    ? sprintf("set terminal pngcairo size 960,%d noenhanced font 'sans,10'", height) \
    : sprintf("set terminal svg size 960,%d noenhanced font 'sans,10' background '#ffffff'", height)

# A bucket that completed no record has NaN latencies: lines break there.
set grid lc rgb "#dddddd"
set key outside right top
set border 3
set tics nomirror

# One colour per run (up to 8, then they repeat); a run's faults are
# bands of its colour.
set linetype 1 lc rgb "#1f77b4" lw 1.5
set linetype 2 lc rgb "#ff7f0e" lw 1.5
set linetype 3 lc rgb "#2ca02c" lw 1.5
set linetype 4 lc rgb "#9467bd" lw 1.5
set linetype 5 lc rgb "#8c564b" lw 1.5
set linetype 6 lc rgb "#e377c2" lw 1.5
set linetype 7 lc rgb "#7f7f7f" lw 1.5
set linetype 8 lc rgb "#17becf" lw 1.5
set linetype cycle 8

# Fault bands run from y2 = 0 to y2 = 1 (the plot's full height) over
# each fault's window, on the time charts.
set y2range [0:1]
unset y2tics
