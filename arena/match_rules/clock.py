"""Time control: a deadline per decision plus a time bank per seat for the whole match.

As in Kaggle's environments, a seat may overrun a decision's deadline by what is left of
its bank, and the overrun is drawn from the bank; once the bank is spent, the deadline
is all there is. A decision that times out empties the bank: the seat took all it had.
Each request tells the bot its bank, so it can plan.
"""

from __future__ import annotations


class SeatClocks:
    def __init__(self, seats: int, move_deadline_s: float, time_bank_s: float) -> None:
        self.move_deadline_s = move_deadline_s
        self.has_bank = time_bank_s > 0
        self._banks = [time_bank_s] * seats

    def bank(self, seat: int) -> float:
        """What ``seat`` has left of its bank, in seconds."""
        return self._banks[seat]

    def allowance(self, seat: int) -> float:
        """How long ``seat`` may take over its next decision."""
        return self.move_deadline_s + self._banks[seat]

    def spend(self, seat: int, think_s: float, timed_out: bool) -> None:
        """Charge a decision that took ``think_s`` to the seat's bank."""
        overrun = think_s - self.move_deadline_s
        if timed_out:
            self._banks[seat] = 0.0
        elif overrun > 0:
            self._banks[seat] = max(0.0, self._banks[seat] - overrun)

    def left(self) -> list[float]:
        return list(self._banks)
