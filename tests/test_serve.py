"""The ``nplk-lab`` command (nplk_lab/serve/command.py) without starting a server: its arguments,
the Streamlit command it builds, the HAProxy configuration it writes, the one-process
fallback without HAProxy, the cache budget it hands the workers, and the package list
in pyproject.toml (everything the app imports or reads ships in the wheel).

The proxy itself is driven in tests/test_browser_classroom.py, the wheel in
tests/test_wheel.py."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from nplk_lab.serve import command, stores

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------------------
# arguments
# ---------------------------------------------------------------------------

def test_classroom_arguments_and_worker_options_after_the_double_dash():
    mode, ns, extra = command.parse(["classroom", "--workers", "3", "--port", "9000",
                                   "--session-ttl", "45", "--", "--theme.base", "dark"])
    assert mode == "classroom"
    assert (ns.workers, ns.port, ns.session_ttl, ns.first_worker_port) == (3, 9000, 45, None)
    assert ns.address == "0.0.0.0" and ns.cache_mb == command.DEFAULT_CACHE_MB
    assert extra == ["--theme.base", "dark"]


def test_without_a_subcommand_every_argument_goes_to_streamlit():
    assert command.parse(["--server.port", "8600"]) == ("run", None, ["--server.port", "8600"])
    assert command.parse([]) == ("run", None, [])


@pytest.mark.parametrize("bad", [["--workers", "0"], ["--workers", "two"],
                                 ["--port", "70000"], ["--session-ttl", "-5"]])
def test_bad_classroom_arguments_are_refused_with_a_message(bad, capsys):
    with pytest.raises(SystemExit) as exc:
        command.parse(["classroom", *bad])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "nplk-lab classroom" in err and ("at least 1" in err or "not a" in err), err


def test_help_names_both_modes(capsys):
    assert command.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "nplk-lab classroom" in out and "streamlit run app.py" in out


def test_user_options_are_split_from_other_arguments():
    given, rest = command.user_options(["--server.port=8600", "--theme.base", "dark",
                                      "--", "script-arg", "--server.address"])
    assert given == {"server.port": "8600", "theme.base": "dark"}
    assert rest == ["--", "script-arg", "--server.address"]


# ---------------------------------------------------------------------------
# the Streamlit command
# ---------------------------------------------------------------------------

def test_the_app_folder_holds_app_py_pages_and_the_settings():
    folder = command.app_dir()
    assert (folder / "app.py").is_file() and (folder / "pages").is_dir()
    with open(folder / ".streamlit" / "config.toml", "rb") as f:
        table = tomllib.load(f)
    opts = command.shipped_options(folder)
    assert opts == {f"{s}.{k}": v for s, kv in table.items() for k, v in kv.items()}
    assert opts["server.maxUploadSize"] == table["server"]["maxUploadSize"]


def test_streamlit_command_runs_the_app_with_the_shipped_settings_and_user_overrides():
    folder = command.app_dir()
    opts = command.merged(command.shipped_options(folder), {"server.port": "8600"})
    cmd = command.streamlit_command(opts, ["--", "x"])
    # the lab's server: the installed pages with the lab's routes
    assert cmd[:5] == [sys.executable, "-m", "streamlit", "run", str(command.SERVER_SCRIPT)]
    assert command.SERVER_SCRIPT.is_file()
    flags = dict(zip(cmd[5:-2:2], cmd[6:-2:2], strict=True))
    assert flags["--server.port"] == "8600"
    assert flags["--client.showErrorDetails"] == "none"
    assert flags["--server.headless"] == "true"  # TOML true -> Streamlit's flag value
    assert cmd.count("--server.port") == 1 and cmd[-2:] == ["--", "x"]


def test_serving_options_turn_watching_off_and_shorten_disconnected_sessions():
    opts = command.serving_options(30)
    assert opts["server.fileWatcherType"] == "none"
    assert opts["server.runOnSave"] is False
    assert opts["server.disconnectedSessionTTL"] == 30


def test_every_option_the_command_sets_is_one_streamlit_knows():
    """Catches a renamed Streamlit option (it would abort every worker's start)."""
    from streamlit import config

    names = set(config._config_options_template)
    ours = set(command.serving_options(30)) | set(command.shipped_options(command.app_dir()))
    assert ours <= names, ours - names


# ---------------------------------------------------------------------------
# the proxy's configuration
# ---------------------------------------------------------------------------

def test_haproxy_config_pins_browsers_by_cookie_and_keeps_websockets_open():
    cfg = command.haproxy_config("0.0.0.0", 8600, [8601, 8602, 8603])
    assert "bind 0.0.0.0:8600" in cfg
    assert re.search(rf"cookie {command.WORKER_COOKIE} insert indirect nocache", cfg)
    servers = re.findall(r"server (w\d) 127\.0\.0\.1:(\d+) cookie (w\d)$", cfg, re.M)
    assert servers == [("w1", "8601", "w1"), ("w2", "8602", "w2"), ("w3", "8603", "w3")]
    assert re.search(r"timeout tunnel (\d+)h", cfg)  # websockets outlive HTTP timeouts
    assert f"uri {command.HEALTH}" in cfg
    # every server is health-checked, and a refused connection goes to another worker
    assert re.search(r"^\s*default-server check .*fall 2 rise 1", cfg, re.M)
    assert re.search(r"^\s*option redispatch 1$", cfg, re.M)
    assert "bind [::]:8600" in command.haproxy_config("::", 8600, [8601])


def test_print_config_writes_the_proxy_config_for_these_ports(capsys):
    assert command.main(["classroom", "--workers", "2", "--port", "9000",
                       "--first-worker-port", "9100", "--print-config"]) == 0
    # the light page's own process on the port after the workers'
    assert capsys.readouterr().out == command.haproxy_config("0.0.0.0", 9000, [9100, 9101],
                                                             hall_ports=[9102])
    assert command.main(["classroom", "--workers", "2", "--port", "9000",
                         "--first-worker-port", "9100", "--hall-processes", "0",
                         "--print-config"]) == 0
    assert capsys.readouterr().out == command.haproxy_config("0.0.0.0", 9000, [9100, 9101])
    with pytest.raises(SystemExit, match="leave out the proxy's port"):
        command.main(["classroom", "--workers", "2", "--port", "9102",
                      "--first-worker-port", "9100", "--print-config"])
    with pytest.raises(SystemExit, match="leave out the proxy's port"):
        command.main(["classroom", "--workers", "3", "--port", "9001",
                    "--first-worker-port", "9000", "--print-config"])


def test_haproxy_accepts_the_config(tmp_path):
    proxy = command.find_proxy()
    if proxy is None:
        pytest.skip("HAProxy is not installed (apt-get install haproxy)")
    cfg = tmp_path / "haproxy.cfg"
    cfg.write_text(command.haproxy_config("127.0.0.1", 8600, [8601, 8602]))
    out = subprocess.run([proxy, "-c", "-f", str(cfg)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "[WARNING]" not in out.stdout + out.stderr, out.stdout + out.stderr


# ---------------------------------------------------------------------------
# without HAProxy: one process, and how to install the proxy
# ---------------------------------------------------------------------------

class _Exec(Exception):
    pass


def test_without_haproxy_it_says_how_to_install_it_and_serves_one_process(
        monkeypatch, capsys):
    calls = []

    def fake_execve(path, args, env):
        calls.append((path, args, env))
        raise _Exec

    monkeypatch.setattr(command, "find_proxy", lambda explicit=None: None)
    monkeypatch.setattr(command.os, "execve", fake_execve)
    monkeypatch.setattr(command, "first_pictures", lambda *a, **k: None)  # own test
    with pytest.raises(_Exec):
        command.main(["classroom", "--workers", "3", "--port", "8611", "--cache-mb", "99",
                    "--", "--theme.base", "dark"])
    captured = capsys.readouterr()
    assert "HAProxy is not installed" in captured.err
    assert command.INSTALL_HINT in captured.err and "3 workers" in captured.err
    (path, args, env), = calls
    flags = dict(zip(args[5::2], args[6::2], strict=True))
    assert flags["--server.port"] == "8611" and flags["--server.address"] == "0.0.0.0"
    assert flags["--server.fileWatcherType"] == "none"
    assert flags["--server.disconnectedSessionTTL"] == str(command.DEFAULT_SESSION_TTL_S)
    assert flags["--theme.base"] == "dark"
    assert env["NPLK_LAB_CACHE_MB"] == "99"
    assert "one process" in captured.out


# ---------------------------------------------------------------------------
# the cache budget the workers get
# ---------------------------------------------------------------------------

def test_cache_budget_splits_the_total_between_the_stores(monkeypatch):
    monkeypatch.delenv("NPLK_LAB_CACHE_MB", raising=False)
    default = {n: stores.cache_bytes(n) for n in stores._SHARES}
    assert default["fits"] == 300 * 2 ** 20 and default["data"] == 100 * 2 ** 20
    monkeypatch.setenv("NPLK_LAB_CACHE_MB", "140")
    small = {n: stores.cache_bytes(n) for n in stores._SHARES}
    assert sum(small.values()) == pytest.approx(140 * 2 ** 20, abs=len(small))
    assert small["fits"] == 3 * small["data"]
    for bad in ("lots", "0", "-3", "nan"):
        monkeypatch.setenv("NPLK_LAB_CACHE_MB", bad)
        assert stores.cache_bytes("fits") == default["fits"]


# ---------------------------------------------------------------------------
# the distribution lists everything the app needs
# ---------------------------------------------------------------------------

def _setuptools_table() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)


def test_pyproject_ships_every_package_module_page_and_the_settings():
    meta = _setuptools_table()
    st = meta["tool"]["setuptools"]
    packages, modules = set(st["packages"]), set(st.get("py-modules", []))
    on_disk = {".".join(p.parent.relative_to(ROOT).parts)
               for p in ROOT.glob("nplk_*/**/__init__.py")}
    assert {"nplk_core", "nplk_lab", "nplk_lab.ui.components"} <= on_disk
    assert on_disk <= packages, f"packages not in pyproject.toml: {on_disk - packages}"
    top = {p.stem for p in ROOT.glob("*.py")} - {"app"}
    assert top <= modules, f"top-level modules not in pyproject.toml: {top - modules}"
    dirs = st["package-dir"]
    assert (ROOT / dirs[command.APP_PACKAGE] / "app.py").is_file()
    assert (ROOT / dirs[command.APP_PACKAGE + ".pages"]).resolve() == ROOT / "pages"
    assert ".streamlit/config.toml" in st["package-data"][command.APP_PACKAGE]
    assert meta["project"]["scripts"]["nplk-lab"] == "nplk_lab.serve.command:main"


def test_the_command_module_imports_only_the_standard_library():
    tree = ast.parse((ROOT / "nplk_lab" / "serve" / "command.py").read_text())
    names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)
             for a in n.names}
    names |= {n.module.split(".")[0] for n in ast.walk(tree)
              if isinstance(n, ast.ImportFrom) and n.module and not n.level}
    assert names <= set(sys.stdlib_module_names) | {"__future__"}, names
