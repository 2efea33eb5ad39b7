"""Files written whole or not at all: the one home of the atomic write
(a temporary file in the same folder, then os.replace), used by the SGF
writer, the GTP commands that save files, the tools' records and the
books.  Imports nothing of the project (the ground floor, beside
tomlconf)."""
import os
import tempfile


def _umask():
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_FILE_MODE = 0o666 & ~_umask()


def atomic_write(path, text):
    """Write text (str, or bytes as they are) to path via a temporary file
    in the same folder and os.replace, so a reader never sees half a file.
    The file gets the mode open() would give it (0644 under umask 022),
    not the temporary file's 0600.

    A symbolic link is written through: its target is replaced and the
    link stays.  A path that exists and is not a regular file (a device,
    a pipe) is written to as it is, never replaced by a file."""
    path = os.path.realpath(path) if os.path.islink(path) else path
    if os.path.exists(path) and not os.path.isfile(path):
        with (open(path, "wb") if isinstance(text, bytes) else open(path, "w", encoding="utf-8")) as fh:
            fh.write(text)
        return
    data = text if isinstance(text, bytes) else text.encode("utf-8")
    atomic_save(path, lambda fh: fh.write(data))


def atomic_save(path, save, mode=None):
    """Write ``path`` whole with ``save(fh)``, which writes the file's bytes
    to the open binary file ``fh`` (np.savez, torch.save, a figure's
    savefig, a copy): a temporary file beside it (``.tmp-...<name>.part``,
    hidden, and matched by no pattern of the real file's extension), given
    ``mode`` (default: the mode open() would give), then os.replace; a
    failed or interrupted save leaves no temporary file behind."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=f".{os.path.basename(path)}.part", dir=d)
    try:
        os.fchmod(fd, _FILE_MODE if mode is None else mode)
        with os.fdopen(fd, "wb") as fh:
            save(fh)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def atomic_copy(src, path, mode=None):
    """Copy the file ``src`` to ``path`` whole (:func:`atomic_save`)."""
    import shutil

    def copy(fh):
        with open(src, "rb") as f:
            shutil.copyfileobj(f, fh)
    atomic_save(path, copy, mode)


def atomic_savefig(fig, path, dpi=100):
    """Save a matplotlib figure to ``path`` as a whole file, in the format
    its extension names (:func:`atomic_save`)."""
    fmt = os.path.splitext(path)[1].lstrip(".") or "png"
    atomic_save(path, lambda fh: fig.savefig(fh, dpi=dpi, format=fmt))
