"""docs/procedure.md, docs/panel.md and docs/journal.md's record vocabulary are generated
from the code and must match it."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.cli.diagram import BEGIN, DOCS, END, generated, mermaid
from controller.cli.main import main
from controller.table.prompts import PROMPTS, State

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("which", sorted(DOCS))
def test_docs_embed_the_generated_text(which: str) -> None:
    text = (ROOT / DOCS[which]).read_text(encoding="utf-8")
    block = text[text.index(BEGIN) + len(BEGIN) : text.index(END)]
    assert block == "\n" + generated(which), "run: dealer-station diagram --update-docs"


def test_every_state_is_in_the_diagram_and_the_panel_table() -> None:
    diagram = mermaid()
    for state in State:
        assert f" {state.value} " in diagram or f" {state.value}:" in diagram
        assert state in PROMPTS


def test_diagram_command_prints_mermaid(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diagram"]) == 0
    assert capsys.readouterr().out.startswith("```mermaid\nstateDiagram-v2")
