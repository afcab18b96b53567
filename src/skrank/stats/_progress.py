"""Progress bars (tqdm) for resampling that can take a while, on a terminal only.

Every function that takes ``progress=`` reads it the same way, as tqdm reads ``disable``
turned around:

- ``None`` (the default): a bar on a terminal only (standard error is a TTY), and only once the
  work has lasted :data:`AUTO_DELAY` seconds, so quick calls, logs, pipes and notebooks' captured
  output stay clean;
- ``True``: a bar from the start, wherever standard error goes;
- ``False``: never.

tqdm is imported when a bar is made, not with skrank.
"""

from __future__ import annotations

import sys
from typing import Any

from .._validation import InstanceOf

__all__ = ["AUTO_DELAY", "PROGRESS", "Bar", "progress_bar"]

#: Seconds of work before an automatic (``progress=None``) bar appears.
AUTO_DELAY = 2.0

#: The constraint of every ``progress`` parameter (for ``validate_params``).
PROGRESS = [InstanceOf(bool, "a bool (True: always, False: never)"), None]


def _on_terminal() -> bool:
    """Whether standard error is a terminal (tqdm's test for ``disable=None``)."""
    isatty = getattr(sys.stderr, "isatty", None)
    return bool(isatty is not None and isatty())


class Bar:
    """A bar that does nothing (``progress=False``): same methods as the tqdm bar used."""

    def update(self, n: int = 1) -> None:
        """Count ``n`` more units of work."""

    def set_postfix_str(self, text: str) -> None:
        """Say what is being done."""

    def close(self) -> None:
        """End the bar."""

    def __enter__(self) -> Bar:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def progress_bar(total: int, progress: bool | None, desc: str, unit: str = "it") -> Any:
    """A tqdm bar on standard error as ``progress`` asks (see the module), or a silent one.

    Parameters
    ----------
    total : int
        Units of work.
    progress : bool or None
        None: on a terminal, after :data:`AUTO_DELAY` seconds; True: always; False: never.
    desc, unit : str
        What the bar counts, as tqdm shows them.

    Returns
    -------
    tqdm.tqdm or Bar
        Use it as a context manager; ``update(n)`` counts work done.

    Examples
    --------
    >>> from skrank.stats._progress import progress_bar
    >>> with progress_bar(3, False, "comparisons") as bar:
    ...     for _ in range(3):
    ...         bar.update()
    """
    if progress is False or (progress is None and not _on_terminal()):
        return Bar()  # what tqdm's disable=None gives off a terminal, without importing it
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=False,
                disable=None if progress is None else False,
                delay=AUTO_DELAY if progress is None else 0.0, dynamic_ncols=True)
