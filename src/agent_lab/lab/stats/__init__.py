"""What a run's figures say: scoring, metrics with intervals, comparisons, findings."""
