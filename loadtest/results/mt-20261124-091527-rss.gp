set terminal png size 1400,330 font ',9'
set output '/work/main/loadtest/results/mt-20261124-091527-rss.png'
set datafile separator ','
set multiplot layout 1,3
set xlabel 'threads'; set ylabel 'peak RSS, MB'; set key top left; set logscale x 2
set xrange [0.8:10]; set xtics (1,2,4,8); set yrange [0:*]
set title 'larson'
plot "< awk -F, '$1==\"larson\" && $2==\"tcmalloc\"' /work/main/loadtest/results/mt-20261124-091527.csv" using 3:($6/1024) with linespoints title 'tcmalloc', "< awk -F, '$1==\"larson\" && $2==\"mimalloc\"' /work/main/loadtest/results/mt-20261124-091527.csv" using 3:($6/1024) with linespoints title 'mimalloc', "< awk -F, '$1==\"larson\" && $2==\"reap\"' /work/main/loadtest/results/mt-20261124-091527.csv" using 3:($6/1024) with linespoints title 'reap'
set title 'mstress'
plot "< awk -F, '$1==\"mstress\" && $2==\"tcmalloc\"' /work/main/loadtest/results/mt-20261124-091527.csv" using 3:($6/1024) with linespoints title 'tcmalloc', "< awk -F, '$1==\"mstress\" && $2==\"mimalloc\"' /work/main/loadtest/results/mt-20261124-091527.csv" using 3:($6/1024) with linespoints title 'mimalloc', "< awk -F, '$1==\"mstress\" && $2==\"reap\"' /work/main/loadtest/results/mt-20261124-091527.csv" using 3:($6/1024) with linespoints title 'reap'
unset multiplot
