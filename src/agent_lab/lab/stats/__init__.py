"""What a run's figures say: metrics with intervals, comparisons, findings."""
