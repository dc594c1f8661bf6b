#include "sim/app/ValidationPlot.hpp"
#include "sim/app/ReplacedFile.hpp"

#include "sim/units/Quantity.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <map>

namespace gpuscale::app {

std::string write_validation_plot(const std::string& png, const std::string& title, const std::vector<PlotPoint>& points)
{
  if (std::system("command -v gnuplot > /dev/null 2>&1") != 0)
    return "gnuplot not found (Debian package gnuplot-nox): no plot";
  std::map<std::string, std::vector<const PlotPoint*>> by_benchmark;
  double low = 1e30, high = 0;
  for (const auto& p : points) {
    by_benchmark[p.benchmark].push_back(&p);
    for (double v : {units::to_minutes(p.actual_s), units::to_minutes(p.predicted_s)}) {
      low = std::min(low, v);
      high = std::max(high, v);
    }
  }
  const std::string data = png + ".dat";
  const std::string script = png + ".gp";
  write_replacing(data, [&](std::ostream& out) {
    for (const auto& [benchmark, list] : by_benchmark) {
      out << "# " << benchmark << "\n";
      for (const auto* p : list)
        out << fmt::format("{:.6g} {:.6g}\n", units::to_minutes(p->actual_s), units::to_minutes(p->predicted_s));
      out << "\n\n";
    }
  });
  write_replacing(script, [&](std::ostream& gp) {
    gp << "set terminal pngcairo noenhanced size 900,800 font 'DejaVu Sans,11'\n";
    gp << "set output '" << png << "'\n";
    gp << "set title '" << title << "'\n";
    gp << "set logscale xy\nset grid\nset key left top\nset size square\n";
    gp << fmt::format("set xrange [{0:.3g}:{1:.3g}]\nset yrange [{0:.3g}:{1:.3g}]\n", low / 1.5, high * 1.5);
    gp << "set xlabel 'MLPerf score (minutes)'\nset ylabel 'gpuscale prediction, leave-one-system-out (minutes)'\n";
    gp << "plot x with lines lc rgb 'black' title 'y = x', 1.1*x with lines dt 2 lc rgb 'gray' title '+-10 %', "
          "0.9*x with lines dt 2 lc rgb 'gray' notitle";
    int index = 0;
    for (const auto& [benchmark, list] : by_benchmark) {
      gp << fmt::format(", '{}' index {} using 1:2 with points pt {} ps 1.3 title '{}'", data, index, 5 + 2 * index,
                        benchmark);
      ++index;
    }
    gp << "\n";
  });
  if (std::system(("gnuplot '" + script + "' 2>&1").c_str()) != 0)
    return "gnuplot failed on " + script;
  return "";
}

} // namespace gpuscale::app
