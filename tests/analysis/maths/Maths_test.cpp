// The analysis maths against known answers: Student t quantiles, least squares, scaling-law fits,
// Pareto fronts, TOPSIS, k-means, isotonic regression.

#include "analysis/maths/IsotonicRegression.hpp"
#include "analysis/maths/KMeans.hpp"
#include "analysis/maths/LinearRegression.hpp"
#include "analysis/frontier/Pareto.hpp"
#include "analysis/frontier/ScalingFit.hpp"
#include "analysis/maths/StudentT.hpp"
#include "analysis/frontier/Topsis.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

using namespace gpuscale::analysis;

TEST_CASE("analysis::student_t_quantile matches printed t tables", "[analysis][maths]")
{
  // Critical values to 9 digits (printed t tables, e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2, round them
  // to 12.706, 4.303, 2.228, 2.042, 2.015).
  CHECK(student_t_quantile(0.975, 1) == Approx(12.7062047).epsilon(1e-8));
  CHECK(student_t_quantile(0.975, 2) == Approx(4.30265273).epsilon(1e-8));
  CHECK(student_t_quantile(0.975, 10) == Approx(2.22813885).epsilon(1e-8));
  CHECK(student_t_quantile(0.975, 30) == Approx(2.04227246).epsilon(1e-8));
  CHECK(student_t_quantile(0.95, 5) == Approx(2.01504837).epsilon(1e-8));
  CHECK(student_t_quantile(0.5, 7) == Approx(0.0).margin(1e-10));
  CHECK(student_t_quantile(0.025, 10) == Approx(-2.22813885).epsilon(1e-8));
}

TEST_CASE("analysis::fit_linear gives the closed-form slope, intercept and standard errors", "[analysis][maths]")
{
  // Simple regression: b = Sxy/Sxx, a = ybar - b xbar, se(b) = sqrt(s²/Sxx), se(a) = sqrt(s² (1/n + xbar²/Sxx)).
  const std::vector<double> x{1, 2, 3, 4, 5, 6};
  const std::vector<double> y{2.1, 3.9, 6.2, 7.8, 10.1, 12.2};
  std::vector<std::vector<double>> rows;
  for (double v : x)
    rows.push_back({1.0, v});
  const LinearFit fit = fit_linear(rows, y);
  const double n = 6, xbar = 3.5;
  double ybar = 0, sxx = 0, sxy = 0;
  for (double v : y)
    ybar += v / n;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - xbar) * (x[i] - xbar);
    sxy += (x[i] - xbar) * (y[i] - ybar);
  }
  const double b = sxy / sxx, a = ybar - b * xbar;
  double rss = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    rss += std::pow(y[i] - a - b * x[i], 2);
  const double s2 = rss / (n - 2);
  CHECK(fit.coefficients[1] == Approx(b).epsilon(1e-12));
  CHECK(fit.coefficients[0] == Approx(a).epsilon(1e-12));
  CHECK(fit.standard_errors[1] == Approx(std::sqrt(s2 / sxx)).epsilon(1e-10));
  CHECK(fit.standard_errors[0] == Approx(std::sqrt(s2 * (1 / n + xbar * xbar / sxx))).epsilon(1e-10));
  CHECK(fit.degrees_of_freedom == 4);
  CHECK(fit.half_width(1, 0.95) == Approx(2.776445 * std::sqrt(s2 / sxx)).epsilon(1e-5)); // t(0.975, 4)
  CHECK_THROWS_AS(fit_linear({{1.0, 2.0}, {1.0, 2.0}}, {1.0, 2.0}), std::invalid_argument);
}

TEST_CASE("analysis::fit_amdahl and fit_usl recover the serial fraction of exact Amdahl data", "[analysis][maths]")
{
  // T(N) = T1 (s + (1 - s)/N) with T1 = 100 s, s = 0.05.
  std::vector<double> gpus, times;
  for (double n = 1; n <= 1024; n *= 2) {
    gpus.push_back(n);
    times.push_back(100 * (0.05 + 0.95 / n));
  }
  const auto amdahl = fit_amdahl(gpus, times);
  REQUIRE(amdahl);
  CHECK(amdahl->contention.value == Approx(0.05).epsilon(1e-9));
  CHECK(amdahl->single_gpu_time_s.value == Approx(100).epsilon(1e-9));
  CHECK(amdahl->r_squared == Approx(1.0).epsilon(1e-12));
  const auto usl = fit_usl(gpus, times);
  REQUIRE(usl);
  CHECK(usl->contention.value == Approx(0.05).epsilon(1e-7));
  CHECK(usl->coherency.value == Approx(0.0).margin(1e-10));
  CHECK(usl->time_s(64) == Approx(100 * (0.05 + 0.95 / 64)).epsilon(1e-7));
}

TEST_CASE("analysis::fit_usl recovers contention and coherency of exact USL data", "[analysis][maths]")
{
  std::vector<double> gpus, times;
  for (double n = 1; n <= 512; n *= 2) {
    gpus.push_back(n);
    times.push_back(40 * (1 + 0.02 * (n - 1) + 1e-4 * n * (n - 1)) / n);
  }
  const auto usl = fit_usl(gpus, times);
  REQUIRE(usl);
  CHECK(usl->single_gpu_time_s.value == Approx(40).epsilon(1e-8));
  CHECK(usl->contention.value == Approx(0.02).epsilon(1e-7));
  CHECK(usl->coherency.value == Approx(1e-4).epsilon(1e-7));
  CHECK_FALSE(fit_usl({1, 2}, {1.0, 0.5})); // two GPU counts cannot fix three parameters
}

TEST_CASE("analysis::fit_power_law recovers the exponent, its 95% interval covers the truth on noisy data",
          "[analysis][maths]")
{
  std::vector<double> gpus, exact, noisy;
  const double wiggle[] = {1.03, 0.98, 1.01, 0.97, 1.04, 0.99, 1.02, 0.96};
  for (int i = 0; i < 8; ++i) {
    const double n = std::pow(2.0, i);
    gpus.push_back(n);
    exact.push_back(3 * std::pow(n, -0.8));
    noisy.push_back(exact.back() * wiggle[i]);
  }
  const auto fit = fit_power_law(gpus, exact);
  REQUIRE(fit);
  CHECK(fit->exponent.value == Approx(-0.8).epsilon(1e-12));
  CHECK(fit->coefficient.value == Approx(3).epsilon(1e-12));
  CHECK(fit->exponent.half_width_95 == Approx(0).margin(1e-12));
  const auto rough = fit_power_law(gpus, noisy);
  REQUIRE(rough);
  CHECK(rough->exponent.half_width_95 > 0);
  CHECK(std::fabs(rough->exponent.value + 0.8) < rough->exponent.half_width_95);
}

TEST_CASE("analysis::pareto_front keeps exactly the non-dominated points of a hand-made set", "[analysis][maths]")
{
  // Minimise both. Points (x, y): 0 (1,5), 1 (2,4), 2 (3,3), 3 (4,2), 4 (5,5), 5 (4,3), 6 (5,1), 7 (2,4).
  // 4 is dominated by 3, 5 by 3; 7 equals 1, so both stay.
  const std::vector<double> x{1, 2, 3, 4, 5, 4, 5, 2};
  const std::vector<double> y{5, 4, 3, 2, 5, 3, 1, 4}; // h = (2, 4) duplicates b
  const auto front = pareto_front(x, y);
  CHECK(front == std::vector<std::size_t>{0, 1, 7, 2, 3, 6});
  CHECK(pareto_front({1, NAN, 2}, {2, 0, 1}) == std::vector<std::size_t>{0, 2});
  CHECK(pareto_front({}, {}).empty());
}

TEST_CASE("analysis::topsis_closeness reproduces Hwang and Yoon's fighter-aircraft example", "[analysis][maths]")
{
  // Hwang & Yoon (1981): 4 aircraft, 6 attributes (max speed, ferry range, max payload, acquisition
  // cost, reliability, manoeuvrability); cost is the only cost-type attribute. Expected closeness from
  // an independent NumPy computation of the same steps; the ranking A1 > A3 > A4 > A2 is the book's.
  const std::vector<std::vector<double>> matrix{{2.0, 1500, 20000, 5.5, 5, 9},
                                                {2.5, 2700, 18000, 6.5, 3, 5},
                                                {1.8, 2000, 21000, 4.5, 7, 7},
                                                {2.2, 1800, 20000, 5.0, 5, 5}};
  const std::vector<Criterion> criteria{{"speed", 0.2, true},  {"range", 0.1, true},       {"payload", 0.1, true},
                                        {"cost", 0.1, false},  {"reliability", 0.2, true}, {"manoeuvrability", 0.3, true}};
  const auto c = topsis_closeness(matrix, criteria);
  REQUIRE(c.size() == 4);
  CHECK(c[0] == Approx(0.64327700).margin(1e-7));
  CHECK(c[1] == Approx(0.26838357).margin(1e-7));
  CHECK(c[2] == Approx(0.61354229).margin(1e-7));
  CHECK(c[3] == Approx(0.31229107).margin(1e-7));
  CHECK((c[0] > c[2] && c[2] > c[3] && c[3] > c[1]));
  CHECK_THROWS_AS(topsis_closeness(matrix, {{"only", -1, true}}), std::invalid_argument);
}

TEST_CASE("analysis::kmeans separates three blobs and silhouette picks k = 3", "[analysis][maths]")
{
  std::vector<Point> points;
  const double centres[3][2] = {{0, 0}, {10, 0}, {0, 10}};
  for (int b = 0; b < 3; ++b)
    for (int i = 0; i < 15; ++i)
      points.push_back({centres[b][0] + 0.3 * std::cos(i * 0.7), centres[b][1] + 0.3 * std::sin(i * 1.3)});
  const auto result = kmeans(points, 3, 42);
  for (int b = 0; b < 3; ++b)
    for (int i = 1; i < 15; ++i)
      CHECK(result.assignment[static_cast<std::size_t>(b * 15 + i)] == result.assignment[static_cast<std::size_t>(b * 15)]);
  CHECK(result.assignment[0] != result.assignment[15]);
  CHECK(result.assignment[0] != result.assignment[30]);
  CHECK(result.assignment[15] != result.assignment[30]);
  double best = -1;
  int best_k = 0;
  for (int k = 2; k <= 6; ++k) {
    const double s = silhouette_score(points, kmeans(points, k, 42).assignment, k);
    if (s > best) {
      best = s;
      best_k = k;
    }
  }
  CHECK(best_k == 3);
  CHECK(best > 0.9);
  // Fixed seed: the same clustering every time.
  CHECK(kmeans(points, 4, 7).assignment == kmeans(points, 4, 7).assignment);
}

TEST_CASE("analysis::fit_isotonic_median pools exactly the groups that decrease, at their joint median", "[analysis][maths]")
{
  using Groups = std::vector<std::vector<double>>;
  // Already non-decreasing: each group's own (lower) median.
  CHECK(fit_isotonic_median(Groups{{1}, {2, 3}, {2, 2, 9}, {5}}) == std::vector<double>{1, 2, 2, 5});
  // 3 then {1, 1, 1}: pooled {3, 1, 1, 1} has median 1, at or above the 0 before it; the tail stays.
  CHECK(fit_isotonic_median(Groups{{0}, {3}, {1, 1, 1}, {4}}) == std::vector<double>{0, 1, 1, 4});
  // A pooled block that falls below its predecessor pools again (backwards): {4}, {5}, {0} -> 5 and 0
  // pool to median 0 (lower middle), below 4 -> all three pool to {0, 4, 5}, median 4.
  CHECK(fit_isotonic_median(Groups{{4}, {5}, {0}, {6, 6}}) == std::vector<double>{4, 4, 4, 6});
  // The many outweigh the few: 47 observations of 3200 and 6 of 2520 pool to 3200, not a mean between.
  Groups resnet{{1632, 1632, 1632}, {3200}, {2520}};
  resnet[1].assign(47, 3200);
  resnet[2].assign(6, 2520);
  CHECK(fit_isotonic_median(resnet) == std::vector<double>{1632, 3200, 3200});
  // Properties on an irregular case: non-decreasing, and every value is an observation.
  const Groups data{{5, 7}, {1}, {4, 4, 2}, {2}, {8, 1}, {3, 3, 3}, {9}, {7}};
  const auto fit = fit_isotonic_median(data);
  REQUIRE(fit.size() == data.size());
  for (std::size_t i = 0; i < fit.size(); ++i) {
    if (i > 0)
      CHECK(fit[i] >= fit[i - 1]);
    bool observed = false;
    for (const auto& group : data)
      observed = observed || std::find(group.begin(), group.end(), fit[i]) != group.end();
    CHECK(observed);
  }
  CHECK_THROWS_AS(fit_isotonic_median(Groups{{1}, {}}), std::invalid_argument);
}
