"""Progress of a long command on a terminal (`reviewer report`, `reviewer import-logits`)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class StepProgress:
    """A command's steps as a bar on stderr (tqdm), on a terminal only: stdout stays the
    command's output (`report --json` pure JSON) and a piped or logged stderr gets nothing.
    The bar is redrawn every half second while a step runs, so a long step still shows its
    time passing and a terminal is never silent for long (issue 34). Called as
    `progress(what, done, total)`: the step starting, the steps done, their number (0: not
    known yet)."""

    TICK_S = 0.5

    def __init__(self, name: str) -> None:
        self.name = name
        self.bar = None
        self.stop = threading.Event()
        self.ticker: threading.Thread | None = None

    def __call__(self, what: str, done: int, total: int) -> None:
        from tqdm import tqdm

        if self.bar is None:
            self.bar = tqdm(total=total or None, desc=self.name, unit="step", disable=None, dynamic_ncols=True,
                            file=sys.stderr, leave=False)
            if not self.bar.disable:
                self.ticker = threading.Thread(target=self._tick, name="report-progress", daemon=True)
                self.ticker.start()
        if total and self.bar.total != total:
            self.bar.total = total
        self.bar.set_postfix_str(what, refresh=False)
        self.bar.update(done - self.bar.n)
        self.bar.refresh()

    def _tick(self) -> None:
        while not self.stop.wait(self.TICK_S):
            self.bar.refresh()

    def close(self) -> None:
        self.stop.set()
        if self.ticker is not None:
            self.ticker.join()
        if self.bar is not None:
            self.bar.close()

    def say(self, text: str) -> None:
        """A line on stderr while the bar may be drawn (above it, not through it)."""
        if self.bar is not None and not self.bar.disable:
            self.bar.write(text, file=sys.stderr)
        else:
            print(text, file=sys.stderr, flush=True)


@contextmanager
def working(name: str, what: str = "working") -> Iterator[StepProgress]:
    """`name`'s bar on a terminal while the block runs (its time passing, redrawn every half
    second), cleared before the command prints its result: for commands whose work takes
    seconds at 50,000 images (export, leaderboard, init, a batch of votes)."""
    progress = StepProgress(name)
    progress(what, 0, 0)
    try:
        yield progress
    finally:
        progress.close()
