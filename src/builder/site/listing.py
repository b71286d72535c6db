"""Every site file made so far: its size, the file of data/ it copies, and the folders it is in
(pure)."""

import posixpath
from collections.abc import Iterator


def folder_of(path: str) -> str:
    """`a/b/c.json` -> `a/b/`; a file at the root -> `/`."""
    return posixpath.dirname(path) + "/"


class Listing:
    """The site's files, recorded as they are made; each folder is named `a/b/`."""

    def __init__(self) -> None:
        self.sizes: dict[str, int] = {}  # by path
        self.copies: dict[str, str] = {}  # path -> the file of data/ it copies
        self.folders: dict[str, list[str]] = {}  # folder -> the paths of its files
        self.subfolders: dict[str, set[str]] = {}  # folder -> its subfolders; the root's is `/`

    def add(self, path: str, size: int, copy_of: str | None = None) -> bool:
        """Record a site file (copy_of: the file of data/ it copies); False when one was recorded at
        that path."""
        if path in self.sizes:
            return False
        self.sizes[path] = size
        if copy_of is not None:
            self.copies[path] = copy_of
        self.folders.setdefault(folder_of(path), []).append(path)
        parts = path.split("/")[:-1]
        for folder in ("/".join(parts[:i]) + "/" for i in range(1, len(parts) + 1)):
            self.subfolders.setdefault(folder_of(folder.rstrip("/")), set()).add(folder)
        return True

    def copy_of(self, path: str) -> str | None:
        """The file of data/ the site file at path copies; None for a page or any other file, or no
        file."""
        return self.copies.get(path)

    def files(self) -> Iterator[tuple[str, int]]:
        """(path, size) of every file recorded, in path order, as when the first is read."""
        yield from sorted(self.sizes.items())

    def unlisted(self) -> list[str]:
        """Every folder (`a/b/`) without an index.html, in path order."""
        made = {folder for found in self.subfolders.values() for folder in found}
        return sorted(folder for folder in made if folder + "index.html" not in self.sizes)

    def in_folder(self, folder: str) -> Iterator[tuple[str, str, int | None]]:
        """A folder's subfolders (size None), then its files but its index.html, each in path order:
        (path, page to link, size)."""
        for sub in sorted(self.subfolders.get(folder, ())):
            yield sub, sub + "index.html", None
        for path in sorted(self.folders.get(folder, ())):
            if path != folder + "index.html":
                yield path, path, self.sizes[path]
