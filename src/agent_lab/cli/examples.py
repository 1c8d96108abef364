"""The examples ``agent-lab --help`` ends with, and so do demo, run and sweep."""

from __future__ import annotations

__all__ = ["EXAMPLES"]

EXAMPLES = """examples:
  agent-lab demo                             # ~100 cases, 3 policies, the local model
  agent-lab demo --full --provider simulated # every case, a simulated model
  agent-lab run demo --plugins agent_lab.demo:plugins --provider openai --model gpt-4o-mini
  agent-lab run cases.jsonl --plugins my_pkg.plugins:plugins --policy deterministic-first \\
      --repeats 3
  agent-lab run demo --plugins agent_lab.demo:plugins --resume
  agent-lab report agent-lab.sqlite --html report.html
  agent-lab compare agent-lab.sqlite --baseline llm-always
  agent-lab export agent-lab.sqlite --format parquet --out exported/
  agent-lab events --plugins agent_lab.demo:plugins
  agent-lab providers
  agent-lab import sgd sgd/dev --out sgd-dev  # events + workloads from a public benchmark
  agent-lab import bfcl bfcl --out bfcl-lab
  agent-lab precision sgd-dev/workload-payload.jsonl --plugins sgd-dev

exit codes: 0 ok, 1 a failed run, 2 bad usage (bad workload, plugins, database or options)
"""
