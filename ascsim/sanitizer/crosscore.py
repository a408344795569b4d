"""Happens-before across cores, for the multi-core checks of offline.py.

Cores are ordered only by their cross-core records (instructions/crosscore.py): a SyncAll
orders everything every core did before its k-th SyncAll before everything any core does after
its own k-th one; a CrossCoreWaitFlag orders what the core that set the flag did before its
CrossCoreSetFlag before what the waiting core does after the wait. Each core's records are cut
into segments at its cross-core records, and each segment gets a vector clock: `vc[a]` is the
last record of core a known to have finished before the segment starts (-1: none). Access i of
core a happens before access j of core b iff i <= vc_b(segment of j)[a]. (A set is taken to
fire once every earlier record of its core is done; the hardware only waits for the named
pipe's work, which the per-core racecheck does not check across cores.)

`order_findings` is the order-sensitivity check of DMA atomics (see there).

Records a library call makes for its own use (the counters of a soft SyncAll) are left out of
the race check: their cross-core reads and writes are the synchronisation itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import AscsimError, RaceError
from ..findings import WARNING, Finding
from ..instructions.crosscore import atomic_stores, cross_core_role, cross_wait_partner
from ..records import OP, Columns, accesses_of, position_of
from ..registry import REGISTRY

if TYPE_CHECKING:
    from ..core import CoreState
    from ..runtime import Run

__all__ = ["CoreClocks", "internal_records", "order_findings"]


class CoreClocks:
    """The vector clocks of every core's segments (see the module docstring)."""

    def __init__(self, cores: list[CoreState], candidates: list[np.ndarray] | None = None
                 ) -> None:
        """`candidates`: per core, the records that may be cross-core ones (those whose
        instruction has the cross-core cost kind), so that the rest need not be looked at;
        None: all."""
        n = len(cores)
        self.n = n
        self.cuts: list[np.ndarray] = []       # per core: its cross-core record indices
        if candidates is not None and not any(len(c) for c in candidates):
            self.any = False  # no cross-core record at all: nothing orders the cores
            self.cuts = [np.zeros(0, np.int64)] * n
            self.vc = [np.full((1, n), -1, np.int64)] * n  # (shared: never written)
            return
        roles: list[list[tuple[str, int]]] = []
        for c, core in enumerate(cores):
            cut, rl = [], []
            idx = range(len(core.records)) if candidates is None else candidates[c].tolist()
            for i in idx:
                role = cross_core_role(core.records[i])
                if role is not None:
                    cut.append(i)
                    rl.append((role, i))
            self.cuts.append(np.array(cut, np.int64))
            roles.append(rl)
        self.vc = [np.full((len(self.cuts[c]) + 1, n), -1, np.int64) for c in range(n)]
        self.any = any(len(c) for c in self.cuts)
        if not self.any:
            return
        syncs = [[i for role, i in rl if role == "sync"] for rl in roles]
        generation = [{i: g for g, i in enumerate(s)} for s in syncs]  # record -> its k
        changed = True
        while changed:  # monotone: iterate to the (least) fixpoint, in whatever order
            changed = False
            # the k-th SyncAll of every core joins the clocks all cores have at their k-th
            # one: one join per k for all cores, not one per pair of cores
            joins = [np.max([self._at(d, s[g]) for d, s in enumerate(syncs) if g < len(s)],
                            axis=0) for g in range(max(map(len, syncs)))]
            for c in range(n):
                for k, (role, i) in enumerate(roles[c]):
                    base = self.vc[c][k].copy()
                    base[c] = max(base[c], i)
                    if role == "sync":
                        base = np.maximum(base, joins[generation[c][i]])
                    elif role == "wait":
                        src = cross_wait_partner(cores[c].records[i])
                        if src is not None:
                            base = np.maximum(base, self._at(src[0], src[1]))
                    new = np.maximum(self.vc[c][k + 1], base)
                    if (new != self.vc[c][k + 1]).any():
                        self.vc[c][k + 1] = new
                        changed = True

    def _at(self, core: int, record: int) -> np.ndarray:
        """The clock at `record` of `core`, its own component = the record itself."""
        k = int(np.searchsorted(self.cuts[core], record, side="left"))
        v = self.vc[core][k].copy()
        v[core] = max(v[core], record - 1)
        return v

    def before(self, core_a: int, rec_a: int, core_b: int, rec_b: int) -> bool:
        """Does record rec_a of core_a happen before record rec_b of core_b?"""
        if not self.any:
            return False
        k = int(np.searchsorted(self.cuts[core_b], rec_b, side="right"))
        return rec_a <= self.vc[core_b][k][core_a]

    def ordered(self, core_a: int, rec_a: int, core_b: int, rec_b: int) -> bool:
        return self.before(core_a, rec_a, core_b, rec_b) or \
            self.before(core_b, rec_b, core_a, rec_a)


def internal_records(core: CoreState) -> frozenset[int]:
    x = core.xcore
    return frozenset(x.internal) if x is not None else frozenset()


def _ranges(mask: np.ndarray, limit: int = 8) -> list[tuple[int, int]]:
    idx = np.flatnonzero(mask)
    if not idx.size:
        return []
    breaks = np.flatnonzero(np.diff(idx) > 1)
    starts = np.r_[idx[0], idx[breaks + 1]]
    ends = np.r_[idx[breaks], idx[-1]] + 1
    return list(zip(starts.tolist(), ends.tolist(), strict=True))[:limit]


def order_findings(run: Run, rerun: Callable[[], list[Any]]) -> list[Finding]:
    """The order-sensitivity check of DMA atomics: when some core wrote GM with atomics, run
    the kernel again with the reversed core order (`rerun`) and report the GM bytes whose
    values changed: a float sum over cores is not associative, so the hardware, whose order
    across cores is not fixed, may give any of these results."""
    # a core that never turned the atomic mode on made no atomic store
    stores = [(c, i, core.records[i]) for c, core in enumerate(run.cores)
              if core.xcore is not None and core.xcore.atomic_used
              for i in atomic_stores(Columns(core.records)).tolist()]
    if not stores:
        return []
    try:
        other = rerun()
    except AscsimError:
        return []  # the kernel faults (check mode went on past it): nothing to compare
    out: list[Finding] = []
    for k, buf in enumerate(run.gm):
        if buf is None or other[k] is None or k >= len(other):
            continue
        differ = buf.data != other[k]
        if not differ.any():
            continue
        spans = _ranges(differ)
        mem = buf.mem_id
        near = [(c, i, r) for c, i, r in stores
                if any(a[1] == mem and a[2] < spans[0][1] and spans[0][0] < a[3]
                       for a in accesses_of(r))] or stores
        c, i, row = near[0]
        py, cpp = position_of(row)
        shown = ", ".join(f"[{s}, {e})" for s, e in spans)
        out.append(Finding(
            kind="racecheck", severity=WARNING, check="atomic order sensitivity",
            message=(f"{int(differ.sum())} byte(s) of GM {buf.name} change when the cores' "
                     f"atomic writes land in the reverse order ({shown}): the result depends "
                     "on the order cores reach their atomics, which the hardware does not "
                     "fix (float addition is not associative)"),
            core=c, serial=i, instruction=REGISTRY[row[OP]].name, pipe="MTE3", py=py,
            cpp=cpp, memory=f"GM {buf.name}", start=spans[0][0], end=spans[0][1], write=True,
            error=RaceError))
    return out
