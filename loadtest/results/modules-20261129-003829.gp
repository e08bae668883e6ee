set terminal png size 420,360 font ',9' noenhanced
set output '/work/wt-inc2/loadtest/results/modules-20261129-003829.png'
set multiplot layout 1,1
set title 'include: child peak RSS growth (KB)'
set xlabel 'work size'
set key left top
plot '< grep ^include /work/wt-inc2/loadtest/results/modules-20261129-003829.dat' using 2:3 with linespoints title 'stock', '' using 2:4 with linespoints title 'reap'
unset multiplot
