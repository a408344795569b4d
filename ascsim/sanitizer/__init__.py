"""ascsim's sanitizer: msSanitizer's memcheck, racecheck, synccheck and initcheck plus multi-core
checks, on the simulator's instruction records.

    run = ascsim.launch(kernel, cores, *arrays, tiling=t, sanitize="check", outputs=(2,))
    for f in run.findings:          # Finding objects (finding.py)
        print(f.kind, f.check, f.py, f.cpp)

Online checks run inside the instructions (ascsim/faults.py routes them): with
`sanitize="check"` a fault becomes a finding and the kernel goes on where that is safe (an
access outside its memory is clipped and the missing bytes read as the dummy pattern; an
instruction with invalid parameters is skipped; a second FreeTensor is ignored; a double-set
flag stays set); a fault nothing can follow (a DeQue or WaitFlag that would hang) stops that
core only. After the cores, the offline analyses read the records (offline.py, passes.py).
`sanitize="strict"` raises a SimulationError at the first ERROR instead: online at once,
offline the earliest after the run. Warnings never raise.

What is checked, and how exactly:

- memcheck (online): UB operands misaligned or larger than the tensor (so outside its TQue/TBuf
  buffer), UB or GM accesses outside the memory (GM: the caller's array), parameter ranges
  (repeatTime, masks, dstBlkStride, DataCopy/DataCopyPad fields and paddings), a DataCopy or
  Compare count whose tail the hardware drops, partial src/dst overlap within a repeat and a dst
  repeat feeding a later src repeat (the documented Add/Sub/Mul/Max/Min src1 exception
  allowed), queue state (each named: "DeQue on an empty queue", "double FreeTensor",
  "FreeTensor while enqueued", "UB capacity" for InitBuffer past the UB, more than 4 tensors of
  one TQue outstanding - AllocTensor.md's limit read per queue: the shipped SCE holds five VECIN
  queues allocated at once, as the public kernel does).
  Offline: use of a queue buffer after FreeTensor (or before AllocTensor), tensors still
  EnQue'd or still allocated when a core ends (WARNING, at the EnQue / AllocTensor; npuchk's
  leak check, which also sees the leak a kernel with fewer tiles than its queue depth never
  runs into), and the library's
  temp write (Select on A2) landing in a user buffer placed over [tmp_ub_offset, ub_bytes).
  A user buffer over the reserved area that no library call writes is harmless on A2 and not
  reported (the shipped SCE's heavy-case tiling does that, like the public one).
- racecheck (offline): vector clocks per pipe over the records in execution order (a pipe
  stalled on a WaitFlag runs its backlog when the flag is set), shadow state per byte range
  (a segment map, cost per instruction). RAW/WAR/WAW between pipes need a SetFlag/WaitFlag
  path (queue events included); within a pipe a PipeBarrier (or a flag round trip). With
  `@kernel_sync("auto")` (the default) the compiler's V->V barriers and S<->pipe syncs count as
  present; MTE2->MTE2 and MTE3->MTE3 overlapping writes need a barrier in both modes.
- synccheck: online - double SetFlag, event ids outside 0-7, ids 6/7 written by hand, events an
  AI Vector core cannot use or that join a pipe to itself (V_V), PipeBarrier<PIPE_S>, deadlocks
  (a wait nothing satisfies, with its pipe and event); offline - SetFlags still set at kernel
  end (WARNING; queue-owned flags excluded), back-to-back identical SetFlags or WaitFlags on a
  pipe (WARNING, msSanitizer's "redundant").
- initcheck (offline): every UB byte carries uninitialised bits from kernel start, a fresh
  AllocTensor and DataCopyPad's pad/dummy bytes until written; vector instructions propagate
  them element by element (Compare into bit i, Select from mask bit i and its sources, And/Or/
  Not bit by bit, copies byte by byte; Select's sources are taken conservatively, whichever the
  mask picks). A finding is made only when such bytes reach GM (naming the instruction that
  first read them) or a GetValue (WARNING); reading output bytes the core has not written is
  an ERROR (`outputs=` tells which GM arguments are outputs; the aclnn layer passes them).
- multicore (offline): two cores writing the same GM bytes (ERROR: the result depends on core
  timing), a core reading what another writes (WARNING), output bytes no core writes (ERROR,
  with the ranges).

Byte ranges are exact (the segment map splits at any byte); a high-dimension vector form counts
every DataBlock its mask enables as touched in full, a strided copy each of its blocks.
"""

from __future__ import annotations

from ..faults import CoreAborted, Session
from ..findings import ERROR, KINDS, WARNING, Finding, FindingAccess
from ..syncmode import SYNC_MODES, kernel_sync, sync_mode_of
from .offline import analyse_run
from .report import format_report, summary_line

__all__ = ["Finding", "FindingAccess", "ERROR", "WARNING", "KINDS", "Session", "CoreAborted",
           "kernel_sync", "sync_mode_of", "SYNC_MODES", "analyse_run", "format_report",
           "summary_line"]
