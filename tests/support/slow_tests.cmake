# The tests labelled `slow` (tests/CMakeLists.txt says why): each takes 5 s or more in a Release build,
# as `ctest --test-dir build -j2 --output-junit FILE` times them.
set(GPUSCALE_SLOW_TESTS
  "app: the committed calibration stays within its leave-one-system-out error on the MLPerf results"
  "robustness: every bad input in tests/data/invalid gets its located messages, exit 2, nothing written"
  "app: calibrate-network recovers known link fractions from nccl-tests logs and its file runs in scenarios"
  "robustness: a sweep too large for the machine is refused, asked about on a terminal, or run with --yes"
  "app: every sweep row equals the row of the same scenario run alone"
  "app: mlperf import and predict on hand-built systems"
  "robustness: concurrent writers lose no row and unwritable outputs or a full disk are refused with exit 2"
  "app: Slurm job array of sweep shards then a merge job equals the local sweep"
  "app::sweep killed with SIGKILL half-way resumes to the table of an uninterrupted sweep"
  "results::append_runs leaves the old or the new complete file when its writer is SIGKILLed at random points"
  "app::sweep killed before its first append keeps the journal's rows, and resume runs only the rest"
  "docs: the Poplar and memory tables in docs/HETEROGENEITY.md are what gpuscale plan computes now"
  "engine no collective on a shipped platform sends faster than its GPUs' links run at line rate"
  "the MLPerf logs' training rates agree with the rates read by hand and with each run's own average"
  "config::read_mlperf_repository agrees with scores_calibration.csv on every row"
  "config::read_mlperf_repository takes as valid exactly the runs runs_calibration.csv marks success"
  "app::sweep stops on SIGINT after its running simulations, and --resume completes it"
  "every convergence table's run-start overhead covers the MLPerf logs' start of training"
  "app: the kernel-timing script plans every launched kernel once and workload kernels reads its output"
  "app: a user catalog (--catalog) replaces and adds entries for run, predict and check"
  "robustness: the same inputs give identical results rows through the command line"
  "robustness: no command writes over its inputs or into a folder it reads, and nothing is left behind"
  "robustness: refusals come before the work, options are never silently ignored, signals exit 128 + N"
  "app: plan's emitted scenarios run to the printed iteration time, its layout search and predict's batch choice"
  "engine ZeRO stages on the real traces: at the same overlap_comm, ZeRO-3 is never faster than ZeRO-2 and ZeRO-2 never faster than ZeRO-1")
if(DEFINED CMAKE_PROJECT_NAME)
  # Configure time (tests/CMakeLists.txt): the tests add_test defines.
  foreach(name IN LISTS GPUSCALE_SLOW_TESTS)
    if(TEST "${name}")
      set_tests_properties("${name}" PROPERTIES LABELS slow)
    endif()
  endforeach()
else()
  # CTest time (TEST_INCLUDE_FILES): the Catch2 test cases, discovered after the build; a name no test
  # has is ignored there.
  set_tests_properties(${GPUSCALE_SLOW_TESTS} PROPERTIES LABELS slow)
endif()
