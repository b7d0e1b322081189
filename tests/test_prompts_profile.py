"""Every prompt the panel shows fits the profile's procedure (NJ 19.7(g): no hole card)."""

from __future__ import annotations

import random

import pytest
from table_support import HOLE_CARD_PROFILES, ListJournal

from controller.rules.profiles import get_profile
from controller.simulation.dealer import random_chooser
from controller.simulation.direct import DirectRig
from controller.table.view import table_view


def _prompts(profile: str, rounds: int) -> set[str]:
    rng = random.Random(f"prompts-{profile}")
    rig = DirectRig(get_profile(profile), 6, ListJournal(), random_chooser(rng), rng)
    shown: set[str] = set()
    handle = rig.table.handle

    def seen(event: object) -> None:
        handle(event)  # type: ignore[arg-type]
        shown.add(table_view(rig.table).prompt)

    rig.table.handle = seen  # type: ignore[method-assign]
    try:
        rig.play(rounds)
    finally:
        rig.close()
    return shown


def test_nj_19_7_g_no_prompt_speaks_of_a_hole_card_and_the_dealers_card_is_announced() -> None:
    shown = _prompts("NJ", 40)
    assert not [p for p in shown if "hole card" in p]
    assert any("Dealer's Card" in p for p in shown)


@pytest.mark.parametrize("profile", HOLE_CARD_PROFILES)
def test_pa_635a_7_k_ny_5324_12_c_7_hole_card_profiles_prompt_to_turn_it(profile: str) -> None:
    shown = _prompts(profile, 40)
    assert any("turn the hole card" in p for p in shown)
    assert not [p for p in shown if "Dealer's Card" in p]
