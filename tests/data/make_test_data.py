"""Rebuild tests/data from the full public corpora: the trimmed copies the tests read.

    uv run python tests/data/make_test_data.py CORPORA_DIR

CORPORA_DIR holds ``json-test-suite``, ``json-schema-test-suite``, ``bfcl`` and
``sgd/dev``, as upstream publishes them. What is kept:

* JSONTestSuite: every ``test_parsing`` file (the conformance tests use all).
* JSON-Schema-Test-Suite: the draft 2020-12 and draft 7 tests and the
  remotes (the two dialects the kernel supports).
* BFCL: the first ``BFCL_QUESTIONS`` questions of each category, and their
  answers (matched by id).
* SGD dev: ``schema.json`` and the first ``SGD_DIALOGUES`` dialogues of each
  file (every dev service still appears).

Each folder keeps its upstream licence file and gains a PROVENANCE.md.
Data files other than the trimmed ones are copied byte for byte.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

BFCL_QUESTIONS = 40
SGD_DIALOGUES = 8
HERE = Path(__file__).resolve().parent


def provenance(folder: Path, text: str) -> None:
    (folder / "PROVENANCE.md").write_text(text.strip() + "\n", encoding="utf-8")


def copy_tree(source: Path, target: Path) -> None:
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target)


def json_suites(corpora: Path) -> None:
    copy_tree(corpora / "json-test-suite", HERE / "json-test-suite")
    provenance(
        HERE / "json-test-suite",
        """
# JSONTestSuite (test_parsing)

Upstream: Nicolas Seriot's JSONTestSuite, MIT (see LICENSE). Every
`test_parsing` file, unmodified.
""",
    )
    suite = HERE / "json-schema-test-suite"
    shutil.rmtree(suite, ignore_errors=True)
    (suite / "tests").mkdir(parents=True)
    for draft in ("draft2020-12", "draft7"):
        shutil.copytree(corpora / "json-schema-test-suite/tests" / draft, suite / "tests" / draft)
    shutil.copytree(corpora / "json-schema-test-suite/remotes", suite / "remotes")
    shutil.copy(corpora / "json-schema-test-suite/LICENSE", suite)
    provenance(
        suite,
        """
# JSON-Schema-Test-Suite

Upstream: the json-schema-org JSON-Schema-Test-Suite, MIT (see LICENSE). The
draft 2020-12 and draft 7 tests and every remote, unmodified.
""",
    )


def bfcl(corpora: Path) -> None:
    source, target = corpora / "bfcl", HERE / "bfcl"
    shutil.rmtree(target, ignore_errors=True)
    (target / "possible_answer").mkdir(parents=True)
    shutil.copy(source / "LICENSE", target)
    for questions in sorted(source.glob("BFCL_*.json")):
        lines = questions.read_text(encoding="utf-8").splitlines()[:BFCL_QUESTIONS]
        (target / questions.name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        answers = source / "possible_answer" / questions.name
        if answers.is_file():
            kept = {json.loads(line)["id"] for line in lines}
            matched = [
                line
                for line in answers.read_text(encoding="utf-8").splitlines()
                if line.strip() and json.loads(line)["id"] in kept
            ]
            (target / "possible_answer" / questions.name).write_text(
                "\n".join(matched) + "\n", encoding="utf-8"
            )
    provenance(
        target,
        f"""
# BFCL (Berkeley Function Calling Leaderboard)

Upstream: the Gorilla project's BFCL data (UC Berkeley), Apache-2.0 (see
LICENSE). The first {BFCL_QUESTIONS} questions of each category and their
answers, lines unmodified.
""",
    )


def sgd(corpora: Path) -> None:
    source, target = corpora / "sgd/dev", HERE / "sgd/dev"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    shutil.copy(source / "schema.json", target)
    shutil.copy(source / "LICENSE.txt", target)
    for dialogues in sorted(source.glob("dialogues_*.json")):
        kept = json.loads(dialogues.read_text(encoding="utf-8"))[:SGD_DIALOGUES]
        (target / dialogues.name).write_text(json.dumps(kept, indent=1) + "\n", encoding="utf-8")
    provenance(
        target,
        f"""
# SGD (Schema-Guided Dialogue), dev split, trimmed

Upstream: google-research-datasets/dstc8-schema-guided-dialogue, folder
`dev/`. Licence: **CC BY-SA 4.0** (LICENSE.txt); cite Rastogi et al., AAAI
2020, "Towards Scalable Multi-domain Conversational Agents: The
Schema-Guided Dialogue Dataset". These files are an adaptation (the first
{SGD_DIALOGUES} dialogues of each file, re-serialised; `schema.json`
unmodified) and are released under CC BY-SA 4.0 as well. The licence covers
this data only, not the project's code.
""",
    )


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    corpora = Path(sys.argv[1])
    json_suites(corpora)
    bfcl(corpora)
    sgd(corpora)


if __name__ == "__main__":
    main()
