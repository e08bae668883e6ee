set terminal png size 420,360 font ',9' noenhanced
set output 'loadtest/results/modules-20261129-045601.png'
set multiplot layout 1,1
set title 'proxy_html: child peak RSS growth (KB)'
set xlabel 'work size'
set key left top
plot '< grep ^proxy_html loadtest/results/modules-20261129-045601.dat' using 2:3 with linespoints title 'stock', '' using 2:4 with linespoints title 'reap'
unset multiplot
