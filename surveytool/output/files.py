"""Writing output files: whole or not at all."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path

from surveytool.errors import OutputError
from surveytool.output.staletemp import temporary_prefix
from surveytool.regular_files import Unusable, read_regular

# Every command that writes new files names them with -o: build a folder (-o/--out), the others a file (-o/--output).
_ELSEWHERE = "write elsewhere with -o"


def write_atomically(path: Path, text: str | bytes | Iterable[str]) -> None:
    """Write ``text`` (its bytes, or its pieces one after the other) to ``path`` so that a reader never sees half a file."""
    with StagedFiles() as staged:
        staged.write(path, text)
        staged.commit()


def write_output(path: Path, text: str | bytes | Iterable[str]) -> None:
    """Write the file the user named with ``-o``: a device or pipe there, or a link to one (``/dev/null``,
    ``/dev/stdout``, a FIFO), is written into, as the shell's ``>`` does; any other path atomically. A rename
    over a device puts a regular file in its place, which as root broke /dev/null for every program."""
    if not writes_into_device(path):
        write_atomically(path, text)
        return
    pieces = [text] if isinstance(text, str | bytes) else text
    try:
        # Through a link: /dev/stdout leads to a pipe no path names. Appended: a stream the shell opened with >>.
        with open(path, "ab") as stream:
            for piece in pieces:
                stream.write(piece.encode("utf-8") if isinstance(piece, str) else piece)
    except OSError as error:
        raise _cannot_write(path, error) from None


def writes_into_device(path: Path) -> bool:
    """Whether ``path`` is, or links to, a character device or a pipe, or names a stream of the process
    (``/dev/stdout`` or ``/proc/self/fd/1``, or a link to one, whatever file the shell sent the stream to)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return True
    named = [str(path), os.readlink(path)] if path.is_symlink() else [str(path)]
    return any(os.path.abspath(name).startswith(("/dev/", "/proc/")) for name in named)


def refuse_writing_over(targets: Iterable[Path], inputs: Iterable[Path], hint: str) -> None:
    """Stop before an output would replace a file the run reads (``bib refs.bib -o refs.bib``, a build into the
    folder of one's own references.bib): the user's file would become the tool's rewrite of it, comments and all
    gone. Links and relative spellings of one file count as that file."""
    inputs = tuple(inputs)
    for target in targets:
        for source in inputs:
            if _same_file(target, source):
                raise OutputError(
                    f"is also read by this run (as {source}); writing it would replace your file",
                    path=str(target),
                    hint=hint,
                )


def _same_file(target: Path, source: Path) -> bool:
    """Whether writing ``target`` would replace ``source``: one path once links and ".." are followed (also
    through a folder the write would create, "new/../refs.bib"), or hard links to one file."""
    if os.path.realpath(target) == os.path.realpath(source):
        return True
    try:
        return os.path.samefile(target, source)
    except OSError:  # a target that does not exist yet is no other name of an existing file
        return False


def fill_reserved(temporary: str, text: str | bytes | Iterable[str], path: Path) -> None:
    """Fill the file ``StagedFiles.reserve`` made for ``path`` with a text, its pieces, or its UTF-8 (any process may)."""
    try:
        if isinstance(text, bytes):
            with open(temporary, "wb") as binary:
                binary.write(text)
            return
        with open(temporary, "w", encoding="utf-8", newline="\n") as stream:
            if isinstance(text, str):
                stream.write(text)
            else:
                stream.writelines(text)
    except OSError as error:
        raise _cannot_write(path, error) from None


class StagedFiles:
    """Files written under temporary names beside their targets, then moved into place together.

    Nothing reaches a target before ``commit()``; leaving the ``with`` block
    without it (an error, a refusal) removes every temporary file.
    """

    def __init__(self) -> None:
        self._pending: list[tuple[str, Path, Path]] = []  # (temporary file, where it goes, the name the user gave)

    def reserve(self, path: Path) -> str:
        """A new empty temporary file for ``path``, to be filled with ``fill_reserved``."""
        target = _through_link(path)
        _refuse_read_only(target, path, f"make it writable (chmod u+w), or {_ELSEWHERE}")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=temporary_prefix(target.name), suffix=".tmp")
            try:
                os.fchmod(handle, _mode_for(target))  # mkstemp makes it 0600: not what a user's new file gets
            finally:
                os.close(handle)
        except OSError as error:
            raise _cannot_write(path, error) from None
        self._pending.append((temporary, target, path))
        return temporary

    def write(self, path: Path, text: str | bytes | Iterable[str]) -> None:
        fill_reserved(self.reserve(path), text, path)

    def commit(self) -> None:
        while self._pending:
            temporary, target, path = self._pending.pop(0)
            try:
                if _hard_linked(target):  # a rename would leave its other names with the old text
                    _write_over(target, path, Path(temporary).read_bytes(), Path(temporary))
                else:
                    os.replace(temporary, target)
            except OSError as error:
                with suppress(OSError):
                    os.remove(temporary)
                raise _cannot_write(path, error) from None

    def __enter__(self) -> StagedFiles:
        return self

    def __exit__(self, *exc_info: object) -> None:
        for temporary, _, _ in self._pending:
            with suppress(OSError):  # already gone
                os.remove(temporary)
        self._pending.clear()


def write_in_place(path: Path, data: bytes) -> None:
    """Replace the file ``path`` (the target, when it is a symlink) with ``data``, keeping its mode and owner.

    The new bytes go to a temporary file in the target's folder, then a rename puts them in place:
    a reader sees the old file or the new one, and a symlink stays a symlink to the updated target.
    A file with other hard links is written over instead, once the temporary file holds the new bytes:
    a rename would leave its other names with the old text, two files where the user had one.
    """
    target = Path(os.path.realpath(path))
    _refuse_read_only(target, path, "make it writable (chmod u+w) for surveytool to update it")
    try:
        before = target.stat()
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=temporary_prefix(target.name), suffix=".tmp")
    except OSError as error:
        raise _cannot_write(path, error, in_place=True) from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
            os.fchmod(stream.fileno(), stat.S_IMODE(before.st_mode))
            if (before.st_uid, before.st_gid) != (os.geteuid(), os.getegid()):
                with suppress(OSError):  # only the owner's group, or root, may give it back
                    os.fchown(stream.fileno(), before.st_uid, before.st_gid)
        if before.st_nlink > 1:
            _write_over(target, path, data, Path(temporary))
        else:
            os.replace(temporary, target)
    except OSError as error:
        with suppress(OSError):
            os.remove(temporary)
        raise _cannot_write(path, error, in_place=True) from None


def _write_over(target: Path, path: Path, data: bytes, temporary: Path) -> None:
    """Write ``data`` over ``target`` in its place (hard links keep sharing it); ``temporary`` holds it already.

    The space is taken first, so a full disk stops the write before a byte changes. Should the write fail
    after that, the temporary file is kept and named: it is then the only whole copy of the new text.
    """
    with open(target, "r+b") as stream:
        if hasattr(os, "posix_fallocate") and len(data) > os.fstat(stream.fileno()).st_size:
            try:
                os.posix_fallocate(stream.fileno(), 0, len(data))
            except OSError as error:
                if error.errno in (errno.ENOSPC, errno.EDQUOT):
                    raise  # nothing written yet
                # a file system that cannot reserve space: written all the same
        try:
            stream.write(data)
            stream.truncate()
            stream.flush()
            os.fsync(stream.fileno())
        except OSError as error:
            raise OutputError(
                f"cannot be written ({error.strerror}); the new text is kept in {temporary}",
                path=str(path),
                hint="copy that file over this one once the problem is solved",
            ) from None
    os.remove(temporary)


def _hard_linked(target: Path) -> bool:
    try:
        return os.stat(target, follow_symlinks=False).st_nlink > 1
    except OSError:  # a new file
        return False


def written_at(path: Path) -> Path:
    """The file that writing ``path`` replaces: the target of a link to a regular file, else ``path``."""
    return _through_link(path)


def _through_link(path: Path) -> Path:
    """Where a new ``path`` goes: a link to a regular file is written through, as the shell's ``>`` does (its
    target replaced atomically, the link kept); any other link (dangling, to a device) is replaced by a file."""
    if not path.is_symlink():
        return path
    target = Path(os.path.realpath(path))
    try:
        return target if stat.S_ISREG(target.stat().st_mode) else path
    except OSError:
        return path


def refuse_read_only(path: Path, shown: str, hint: str) -> None:
    """Stop (OutputError naming ``shown``) if ``path``, or the file a link there leads to, was made read-only."""
    _refuse_read_only(Path(os.path.realpath(path)), Path(shown), hint)


def _refuse_read_only(target: Path, path: Path, hint: str) -> None:
    """Stop before replacing a file its owner made read-only: a rename would go through, and the mark (a chapter or
    .bib protected from the tool) would be lost with the file. The mode is read, not access(): root may write."""
    try:
        mode = target.stat().st_mode
    except OSError:  # not there yet: nothing to protect
        return
    if stat.S_ISREG(mode) and not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        raise OutputError("is read-only; surveytool does not replace a file you protected", path=str(path), hint=hint)


def _mode_for(path: Path) -> int:
    """The mode a rewritten ``path`` keeps, or the one a new file gets from the umask."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """The process's umask, read without changing it where Linux allows (changing it is not thread-safe)."""
    with suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _cannot_write(path: Path, error: OSError, in_place: bool = False) -> OutputError:
    """What stopped a write, with a hint; a file updated in place (rekey, --in-place) has no other place to go."""
    if error.errno == errno.EISDIR or path.is_dir():  # -o names a folder: the file goes in it
        return OutputError(
            "is a directory, not a file", path=str(path), hint=f"give the path of a file, in {path} or elsewhere"
        )
    full = error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
    hint = (
        "free some space on its disk" + ("" if in_place else f", or {_ELSEWHERE}")
        if full
        else "check the output folder's permissions"
    )
    return OutputError(f"cannot be written ({error.strerror})", path=str(path), hint=hint)


def refuse_links_out_of(out: Path, outputs: Iterable[Path]) -> None:
    """An out folder can come from someone else: a planted link must not make a build overwrite a file elsewhere.

    ``outputs`` are what a build writes into ``out``. A link to a file inside the out folder is written through
    (the link kept), as ``bib -o`` writes through any link the user names.
    """
    folder = out.resolve()
    for path in outputs:
        target = written_at(path)
        if target != path and not target.is_relative_to(folder):
            raise OutputError(
                f"is a link to {target}, outside the out folder; a build does not write through it",
                path=str(path),
                hint="remove the link, or build into the folder it points to",
            )


#: A file kept as a backup is read whole to compare it with an older one; none of the outputs is larger.
MAX_BACKED_UP = 256 << 20


def backed_up(path: Path, data: bytes) -> str:
    """Where ``data`` (the file as its author left it) is kept: ``<name>.bak``, an older backup that differs moved
    to the first free ``<name>.bak.<n>`` (a second --force replaced it, and the edits the first one kept were lost)."""
    backup = path.with_name(path.name + ".bak")
    try:
        older = read_regular(backup, MAX_BACKED_UP, follow=True)
    except (OSError, Unusable):
        older = data  # none (or no file to keep): written over
    moved = ""
    if older != data:
        number = 1
        while (kept := backup.with_name(f"{backup.name}.{number}")).exists() or kept.is_symlink():
            number += 1
        try:
            backup.rename(kept)
        except OSError as error:
            raise OutputError(
                f"cannot be moved aside ({error.strerror})", path=str(backup), hint="move it away"
            ) from None
        moved = f" (the backup before it is now {kept})"
    write_atomically(backup, data)
    return f"{backup}{moved}"
