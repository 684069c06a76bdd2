"""winlimit's benchmark, as a package: `python -m winbench` (make bench) and
`python -m winbench.instr` (make bench-instr)."""
