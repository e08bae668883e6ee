set terminal png size 1280,840 font ',9' noenhanced
set output 'loadtest/results/wrk-20261122-221153-throughput.png'
set datafile separator ','
set multiplot layout 2,2
set xlabel 'threads per child (= wrk connections)'; set ylabel 'requests per second'
set logscale x 2; set xrange [0.7:89.6]; set xtics (1,2,4,8,16,32,64); set yrange [0:*]; set key top left
set title 'small'
plot "< awk -F, '$1==\"small\" && $2==\"stock\"' loadtest/results/wrk-20261122-221153-summary.csv" using 3:5:6:7 with yerrorlines lt 1 title 'stock', "< awk -F, '$1==\"small\" && $2==\"reap\"' loadtest/results/wrk-20261122-221153-summary.csv" using 3:5:6:7 with yerrorlines lt 2 title 'reap', "< awk -F, '$1==\"small\" && $2==\"reap-off\"' loadtest/results/wrk-20261122-221153-summary.csv" using 3:5:6:7 with yerrorlines lt 3 title 'reap-off', "< awk -F, '$1==\"small\" && $2==\"reap-malloc\"' loadtest/results/wrk-20261122-221153-summary.csv" using 3:5:6:7 with yerrorlines lt 4 title 'reap-malloc'
set title 'medium'
plot "< awk -F, '$1==\"medium\" && $2==\"stock\"' loadtest/results/wrk-20261122-221153-summary.csv" using 3:5:6:7 with yerrorlines lt 1 title 'stock', "< awk -F, '$1==\"medium\" && $2==\"reap\"' loadtest/results/wrk-20261122-221153-summary.csv" using 3:5:6:7 with yerrorlines lt 2 title 'reap', "< awk -F, '$1==\"medium\" && $2==\"reap-off\"' loadtest/results/wrk-20261122-221153-summary.csv" using 3:5:6:7 with yerrorlines lt 3 title 'reap-off', "< awk -F, '$1==\"medium\" && $2==\"reap-malloc\"' loadtest/results/wrk-20261122-221153-summary.csv" using 3:5:6:7 with yerrorlines lt 4 title 'reap-malloc'
set title 'mix'
plot "< awk -F, '$1==\"mix\" && $2==\"stock\"' loadtest/results/wrk-20261122-221153-summary.csv" using 3:5:6:7 with yerrorlines lt 1 title 'stock', "< awk -F, '$1==\"mix\" && $2==\"reap\"' loadtest/results/wrk-20261122-221153-summary.csv" using 3:5:6:7 with yerrorlines lt 2 title 'reap', "< awk -F, '$1==\"mix\" && $2==\"reap-off\"' loadtest/results/wrk-20261122-221153-summary.csv" using 3:5:6:7 with yerrorlines lt 3 title 'reap-off', "< awk -F, '$1==\"mix\" && $2==\"reap-malloc\"' loadtest/results/wrk-20261122-221153-summary.csv" using 3:5:6:7 with yerrorlines lt 4 title 'reap-malloc'
unset multiplot
