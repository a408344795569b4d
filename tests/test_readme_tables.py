"""README's generated tables (`python -m ascsim.readmetables`): every registry entry and every
assumed hardware behaviour is listed, and the committed README matches the registry."""

from __future__ import annotations

from pathlib import Path

from ascsim import readmetables
from ascsim.profile import semantic_options
from ascsim.registry import REGISTRY, by_name

_REGEN = "run `python -m ascsim.readmetables` and commit README.md"


def test_committed_readme_is_current() -> None:
    text = readmetables.README.read_text()
    assert readmetables.render(text) == text, _REGEN


def test_every_instruction_and_option_has_a_row() -> None:
    text = readmetables.README.read_text()
    for ins in REGISTRY:
        assert f"| `{ins.name}` |" in text, ins.name
    for key in semantic_options():
        assert f"| `{key}` |" in text, key


def test_forms_come_from_the_cpp_declarations() -> None:
    forms = readmetables.forms_of(by_name("Adds"))
    assert forms == ["Adds<T>(dst, src, scalarValue, count)",
                     "Adds<T, isSetMask>(dst, src, scalarValue, mask, repeatTime, repeatParams)",
                     "Adds<T, isSetMask>(dst, src, scalarValue, mask[], repeatTime, "
                     "repeatParams)"]
    assert readmetables.dtypes_of(by_name("Div")) == "half, float"


def test_check_mode_finds_a_stale_readme(tmp_path: Path) -> None:
    stale = tmp_path / "README.md"
    stale.write_text("# x\n\n<!-- BEGIN ascsim-generated: instructions -->\nSTALE ROW\n"
                     "<!-- END ascsim-generated: instructions -->\n")
    assert readmetables.main(["--check", "--readme", str(stale)]) == 1
    assert readmetables.main(["--readme", str(stale)]) == 0
    assert readmetables.main(["--check", "--readme", str(stale)]) == 0
    assert "STALE ROW" not in stale.read_text() and "| `Adds` |" in stale.read_text()
