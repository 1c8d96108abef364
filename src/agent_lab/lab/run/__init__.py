"""Running a workload: policies, the runner, its configuration, and each trial's record."""
