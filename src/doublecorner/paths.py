"""Where doublecorner keeps files for the user: saved games, endgame tables."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

APP_DIR = "doublecorner"
SAVED_GAMES_DIR = "games"


def user_data_dir(environ: Mapping[str, str] | None = None, *,
                  platform: str = sys.platform, home: Path | None = None) -> Path:
    """The user's data folder for doublecorner (not created here).

    ``$XDG_DATA_HOME/doublecorner`` (``~/.local/share`` when that is unset or
    relative, as the XDG spec says) on Linux and the BSDs;
    ``~/Library/Application Support/doublecorner`` on macOS;
    ``%LOCALAPPDATA%\\doublecorner`` on Windows.

    >>> user_data_dir({"XDG_DATA_HOME": "/data"}, platform="linux").as_posix()
    '/data/doublecorner'
    >>> user_data_dir({}, platform="linux", home=Path("/home/ann")).as_posix()
    '/home/ann/.local/share/doublecorner'
    """
    environ = os.environ if environ is None else environ
    home = Path.home() if home is None else home
    if platform == "win32":
        base = Path(environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
    elif platform == "darwin":
        base = home / "Library" / "Application Support"
    else:
        xdg = environ.get("XDG_DATA_HOME", "")
        base = Path(xdg) if os.path.isabs(xdg) else home / ".local" / "share"
    return base / APP_DIR


def saved_games_dir(environ: Mapping[str, str] | None = None, *,
                    platform: str = sys.platform, home: Path | None = None) -> Path:
    """Where ``play`` keeps a game left with Ctrl-C: ``games`` in :func:`user_data_dir`.

    >>> saved_games_dir({"XDG_DATA_HOME": "/data"}, platform="linux").as_posix()
    '/data/doublecorner/games'
    """
    return user_data_dir(environ, platform=platform, home=home) / SAVED_GAMES_DIR
