set terminal png size 640,420 font ',9' noenhanced
set output '/work/main/loadtest/results/wrk-20261123-204318-throughput.png'
set datafile separator ','
set multiplot layout 1,1
set xlabel 'threads per child (= wrk connections)'; set ylabel 'requests per second'
set logscale x 2; set xrange [0.7:89.6]; set xtics (1,2,4,8,16,32,64); set yrange [0:*]; set key top left
set title 'static'
plot "< awk -F, '$1==\"static\" && $2==\"stock\"' /work/main/loadtest/results/wrk-20261123-204318-summary.csv" using 3:5:6:7 with yerrorlines lt 1 title 'stock', "< awk -F, '$1==\"static\" && $2==\"reap\"' /work/main/loadtest/results/wrk-20261123-204318-summary.csv" using 3:5:6:7 with yerrorlines lt 2 title 'reap'
unset multiplot
