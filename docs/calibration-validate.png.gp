set terminal pngcairo noenhanced size 900,800 font 'DejaVu Sans,11'
set output 'docs/calibration-validate.png'
set title 'MLPerf Training, leave-one-system-out: median APE 5.6 %, n = 336'
set logscale xy
set grid
set key left top
set size square
set xrange [0.122:1.21e+03]
set yrange [0.122:1.21e+03]
set xlabel 'MLPerf score (minutes)'
set ylabel 'gpuscale prediction, leave-one-system-out (minutes)'
plot x with lines lc rgb 'black' title 'y = x', 1.1*x with lines dt 2 lc rgb 'gray' title '+-10 %', 0.9*x with lines dt 2 lc rgb 'gray' notitle, 'docs/calibration-validate.png.dat' index 0 using 1:2 with points pt 5 ps 1.3 title 'bert', 'docs/calibration-validate.png.dat' index 1 using 1:2 with points pt 7 ps 1.3 title 'llama2_70b_lora', 'docs/calibration-validate.png.dat' index 2 using 1:2 with points pt 9 ps 1.3 title 'resnet', 'docs/calibration-validate.png.dat' index 3 using 1:2 with points pt 11 ps 1.3 title 'retinanet', 'docs/calibration-validate.png.dat' index 4 using 1:2 with points pt 13 ps 1.3 title 'stable_diffusion'
