"""The BFCL multi-turn entries of tutorial 11 (also used to record its cassette)."""

from workbench.evals import load_bfcl

#: three entries of ``multi_turn_base`` and one of ``multi_turn_miss_func`` (its ``cd`` is held out
#: until the second turn), in BFCL's order
ENTRIES = ("multi_turn_base_11", "multi_turn_base_12", "multi_turn_base_47", "multi_turn_miss_func_12")


def load_entries() -> list:
    """The :data:`ENTRIES` as ``BFCLMultiTurnCase``s, read from BFCL's data by ``load_bfcl``."""
    cases = [case for category in ("multi_turn_base", "multi_turn_miss_func")
             for case in load_bfcl(category).cases if case.id in ENTRIES]
    missing = sorted(set(ENTRIES) - {case.id for case in cases})
    if missing:
        raise ValueError(f"tutorial11_entries: BFCL's data has no entry {', '.join(missing)} "
                         "(is bfcl-eval==2026.3.23 installed?)")
    return cases
