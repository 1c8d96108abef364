"""``python -m agent_lab.demo.generate``: rewrite the shipped workload file."""

from agent_lab.demo.generate import WORKLOAD, cases, render

if __name__ == "__main__":
    WORKLOAD.write_text(render(), encoding="utf-8")
    counts: dict[str, int] = {}
    for row in cases():
        counts[row["tags"][0]] = counts.get(row["tags"][0], 0) + 1
    print(f"wrote {WORKLOAD} ({sum(counts.values())} cases): {counts}")
