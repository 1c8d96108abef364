"""``python -m agent_lab.demo.generate``: rewrite the shipped workload file."""

from agent_lab.demo.generate import write

if __name__ == "__main__":
    print(write())
