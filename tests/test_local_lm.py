"""The local model's file: assembled from its parts once, its hash checked, and one clear error
when a part is missing or the bytes are not the ones sleuth was measured with. Parts here are
small packages written to a temporary folder on ``sys.path``, read as the real ones are."""

from __future__ import annotations

import hashlib
import sys

import pytest

from flows import local_lm


@pytest.fixture
def parts(tmp_path, monkeypatch):
    """Three installed parts of a small "model" and the module pointed at them."""
    site = tmp_path / "site"
    chunks = [b"GGUF" + bytes(range(256)) * 40, b"middle" * 999, b"end of the model"]
    for n, chunk in enumerate(chunks, 1):
        package = site / f"fake_model_part{n}"
        (package / "data").mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "data" / f"part{n:02d}.bin").write_bytes(chunk)
    whole = b"".join(chunks)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(local_lm, "PARTS", 3)
    monkeypatch.setattr(local_lm, "PART_PACKAGE", "fake_model_part{n}")
    monkeypatch.setattr(local_lm, "PART_DIST", "fake-model-part{n}==1.0")
    monkeypatch.setattr(local_lm, "SIZE", len(whole))
    monkeypatch.setattr(local_lm, "SHA256", hashlib.sha256(whole).hexdigest())
    yield site, whole
    for n in range(1, 4):
        sys.modules.pop(f"fake_model_part{n}", None)


def test_the_parts_make_the_model_once_and_the_hash_is_remembered(parts, tmp_path):
    _, whole = parts
    folder = tmp_path / "lm"
    path = local_lm.model_file(folder)
    assert path.read_bytes() == whole
    assert not list(folder.glob("*.partial"))
    stamp = (folder / (local_lm.GGUF_NAME + ".sha256")).read_text().split()
    assert stamp[0] == local_lm.SHA256 and int(stamp[1]) == len(whole)
    mtime = path.stat().st_mtime_ns
    assert local_lm.model_file(folder) == path and path.stat().st_mtime_ns == mtime  # not rebuilt


def test_a_changed_file_is_built_again(parts, tmp_path):
    _, whole = parts
    folder = tmp_path / "lm"
    path = local_lm.model_file(folder)
    path.write_bytes(b"truncated")
    assert local_lm.model_file(folder).read_bytes() == whole


def test_a_missing_part_is_named_with_the_install_command(parts, tmp_path):
    site, _ = parts
    (site / "fake_model_part2" / "data" / "part02.bin").unlink()
    with pytest.raises(local_lm.LocalLMError) as err:
        local_lm.model_file(tmp_path / "lm")
    assert str(err.value) == (
        "the local model's part 2 of 3 is not installed (fake-model-part2==1.0): "
        "pip install -e '.[local-lm]' -c constraints.txt"
    )


def test_other_bytes_are_refused_and_nothing_is_left_behind(parts, tmp_path, monkeypatch):
    monkeypatch.setattr(local_lm, "SHA256", "0" * 64)
    folder = tmp_path / "lm"
    with pytest.raises(local_lm.LocalLMError, match=r"not the .* bytes with sha256 0000000000000000\.\.\."):
        local_lm.model_file(folder)
    assert not list(folder.iterdir())


def test_no_server_running_is_said_plainly(tmp_path, monkeypatch, capsys):
    from flows.cli import main

    monkeypatch.setenv("SLEUTH_LM_HOME", str(tmp_path / "lm"))
    assert main(["lm", "status"]) == 0
    assert capsys.readouterr().out.startswith("no local model running (start it with: sleuth lm start")
    assert main(["lm", "stop"]) == 0
    assert capsys.readouterr().out.strip() == "no local model running"
    assert main(["lm", "status", "--env"]) == 2
    assert "no local model running" in capsys.readouterr().err


def test_bad_settings_are_one_error_line(tmp_path, monkeypatch, capsys):
    from flows.cli import main

    monkeypatch.setenv("SLEUTH_LM_HOME", str(tmp_path / "lm"))
    monkeypatch.setenv("SLEUTH_LM_IDLE_MINUTES", "soon")
    assert main(["lm", "start"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "SLEUTH_LM_IDLE_MINUTES must be a number of minutes, got 'soon'" in err[0]
