"""The lab: workloads, policies, the runner, the results store, metrics and the report."""
