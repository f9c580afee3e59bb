"""A ladder's inbox (``arena ladder --watch DIR``): a folder people drop bots into.

Whoever may drop a file there may also drop a symbolic link, a FIFO, a hard link or a folder
named ``refused``; so the inbox is handled as hostile ground:

* ``accepted/`` and ``refused/`` are real folders: made by arena, opened with
  ``O_NOFOLLOW | O_DIRECTORY`` and written only through those descriptors (``openat``,
  ``renameat``), so no name swapped in for a link can lead a write elsewhere. A drop that
  took one of their names (a link called ``refused``, say) is itself set aside first;
* every drop is looked at with ``lstat`` before anything opens it, and whatever is not a
  regular file with one name or a folder is refused, unopened (``arena.sandbox.files``); the
  submission itself copies it without following links;
* a drop is moved (renamed, which never follows a link) into ``accepted/`` or
  ``refused/`` under a name not yet taken there - nothing there is ever replaced - with, for
  a refusal, ``NAME.reason.txt`` beside it: arena's one line, never anything the drop holds;
* a drop that fails in any way is refused and the watcher goes on; one that cannot even be
  moved is left where it is and skipped, with a line saying so, on every look.

**Keys.** A drop ``NAME`` may come with ``NAME.key``, a file holding the key of the bot's name
(see ``arena.leagues.store``): read, then deleted, never moved or copied. A folder may hold its key
as ``arena.key`` instead (it is not stored with the bot). The first version of a new name
dropped without a key gets one made, written to ``accepted/NAME.key`` readable only by the
drop's owner (the runner, as root, gives the file to the drop's user).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..errors import ArenaError
from ..sandbox import files

FOLDERS = ("accepted", "refused")
KEY_SUFFIX = ".key"
MAX_KEY = 256


class Inbox:
    """An inbox folder, its ``accepted/`` and ``refused/`` held open."""

    def __init__(self, path: Path, say=lambda line: None):
        self.path, self.say = path, say
        try:
            self.fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError as e:
            raise ArenaError(f"--watch: cannot open folder {path}: {e.strerror}") from None
        self.stuck: set[str] = set()  # drops that could not be moved: skipped
        self.folders = {name: self._own_folder(name) for name in FOLDERS}

    def close(self) -> None:
        for fd in [self.fd, *self.folders.values()]:
            os.close(fd)

    def _own_folder(self, name: str) -> int:
        """A descriptor of the real folder ``name`` in the inbox, made if need be; anything
        else in its place (a link, a file) is set aside as a drop first."""
        for _ in range(3):
            try:
                os.mkdir(name, 0o755, dir_fd=self.fd)
            except FileExistsError:
                pass
            try:
                return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
                               | os.O_CLOEXEC, dir_fd=self.fd)
            except OSError:
                aside = self._free_name(self.fd, f"{name}.set-aside")
                os.rename(name, aside, src_dir_fd=self.fd, dst_dir_fd=self.fd)
                self.say(f"{name}: not a folder arena made; set aside as {aside}")
        raise ArenaError(f"--watch: cannot make {self.path / name}")

    @staticmethod
    def _free_name(dir_fd: int, name: str) -> str:
        candidate, n = name, 0
        while True:
            try:
                os.lstat(candidate, dir_fd=dir_fd)
            except FileNotFoundError:
                return candidate
            n += 1
            candidate = f"{name}.{n}"

    def drops(self) -> list[str]:
        """The names waiting, in order: not hidden, not arena's folders, not keys (a key
        goes with its drop)."""
        names = set(os.listdir(self.fd))
        return sorted(n for n in names if not n.startswith(".") and n not in FOLDERS
                      and not (n.endswith(KEY_SUFFIX) and n[:-len(KEY_SUFFIX)] in names)
                      and n not in self.stuck and ".set-aside" not in n)

    def key_of(self, name: str) -> str | None:
        """The key dropped beside ``name`` (``NAME.key``), taken away; None if there is none.
        ArenaError for one that is not a small regular file."""
        key_name = name + KEY_SUFFIX
        try:
            os.lstat(key_name, dir_fd=self.fd)
        except FileNotFoundError:
            return None
        try:
            fd = files.open_regular(key_name, dir_fd=self.fd)
            try:
                data = os.read(fd, MAX_KEY + 1)
            finally:
                os.close(fd)
        finally:
            try:
                os.unlink(key_name, dir_fd=self.fd)
            except OSError:
                pass
        if len(data) > MAX_KEY:
            raise ArenaError(f"refused: {key_name} is not a key (longer than {MAX_KEY} bytes)")
        return data.decode(errors="replace").strip()

    def take(self, submit) -> None:
        """Submit each drop (``submit(path, key) -> store.Submitted``) and move it."""
        for name in self.drops():
            try:
                st = os.lstat(name, dir_fd=self.fd)
            except FileNotFoundError:
                continue
            made = None
            try:
                key = self.key_of(name)
                if not stat.S_ISDIR(st.st_mode):
                    files.check_entry(name, st)  # a link, a FIFO, a device: never opened
                done = submit(self.path / name, key)
                self.say(f"{name}: {done.row.name}@{done.row.version}"
                         + ("" if done.new else " (already)"))
                where, made = "accepted", done.key
            except ArenaError as e:
                self.say(f"{name}: {e}")
                where, reason = "refused", str(e)
            except Exception as e:  # noqa: BLE001 - a drop never stops the watcher
                self.say(f"{name}: refused: it could not be read ({type(e).__name__})")
                where, reason = "refused", f"refused: it could not be read ({type(e).__name__})"
            target = self._move(name, where)
            if target is None:
                continue
            if where == "refused":
                self._write(where, f"{target}.reason.txt", reason[:500] + "\n", 0o644)
            elif made is not None:
                self._write(where, f"{target}{KEY_SUFFIX}", made + "\n", 0o600, st)

    def _move(self, name: str, where: str) -> str | None:
        folder = self.folders[where]
        target = self._free_name(folder, name)
        try:
            os.rename(name, target, src_dir_fd=self.fd, dst_dir_fd=folder)
        except OSError as e:
            self.stuck.add(name)
            self.say(f"{name}: cannot be moved to {where}/ ({e.strerror}); left where it is")
            return None
        return target

    def _write(self, where: str, name: str, text: str, mode: int, owner=None) -> None:
        folder = self.folders[where]
        fd = os.open(self._free_name(folder, name), os.O_WRONLY | os.O_CREAT | os.O_EXCL
                     | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=folder)
        try:
            if owner is not None and os.geteuid() == 0:
                os.fchown(fd, owner.st_uid, owner.st_gid)
            os.write(fd, text.encode())
        finally:
            os.close(fd)
