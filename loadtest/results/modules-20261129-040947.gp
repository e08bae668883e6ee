set terminal png size 2520,360 font ',9' noenhanced
set output 'loadtest/results/modules-20261129-040947.png'
set multiplot layout 1,6
set title 'propfind: child peak RSS growth (KB)'
set xlabel 'work size'
set key left top
plot '< grep ^propfind loadtest/results/modules-20261129-040947.dat' using 2:3 with linespoints title 'stock', '' using 2:4 with linespoints title 'reap'
set title 'inputsed: child peak RSS growth (KB)'
set xlabel 'work size'
set key left top
plot '< grep ^inputsed loadtest/results/modules-20261129-040947.dat' using 2:3 with linespoints title 'stock', '' using 2:4 with linespoints title 'reap'
set title 'longline: child peak RSS growth (KB)'
set xlabel 'work size'
set key left top
plot '< grep ^longline loadtest/results/modules-20261129-040947.dat' using 2:3 with linespoints title 'stock', '' using 2:4 with linespoints title 'reap'
set title 'rewrite: child peak RSS growth (KB)'
set xlabel 'work size'
set key left top
plot '< grep ^rewrite loadtest/results/modules-20261129-040947.dat' using 2:3 with linespoints title 'stock', '' using 2:4 with linespoints title 'reap'
set title 'autoindex: child peak RSS growth (KB)'
set xlabel 'work size'
set key left top
plot '< grep ^autoindex loadtest/results/modules-20261129-040947.dat' using 2:3 with linespoints title 'stock', '' using 2:4 with linespoints title 'reap'
set title 'include: child peak RSS growth (KB)'
set xlabel 'work size'
set key left top
plot '< grep ^include loadtest/results/modules-20261129-040947.dat' using 2:3 with linespoints title 'stock', '' using 2:4 with linespoints title 'reap'
unset multiplot
