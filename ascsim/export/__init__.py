"""Outputs of a `Timeline`: Chrome-trace JSON (chrome_trace.py), msprof-style
PipeUtilization.csv (pipe_utilization.py), matplotlib pictures (plots.py) and a terminal
summary (summary.py). Each takes a Timeline (`ascsim.timing.profile_run(run)`)."""

from .chrome_trace import trace_dict, validate_trace, write_chrome_trace
from .pipe_utilization import pipe_utilization_rows, write_pipe_utilization
from .plots import plot_gantt, plot_occupancy
from .summary import summary_text

__all__ = ["write_chrome_trace", "trace_dict", "validate_trace", "write_pipe_utilization",
           "pipe_utilization_rows", "plot_gantt", "plot_occupancy", "summary_text"]
