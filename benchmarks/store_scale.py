"""How a study's bookkeeping scales with the number of jobs: run, resume, tabulate.

Writes a study of N tiny jobs (dp-se on C1, K = 3, T = 1000, 2 runs; N
distinct ε), then times, each in a fresh process:

- ``run``: ``bandsim sweep`` into an empty directory (stderr to a file);
- ``resume``: the same command again (every job stored);
- ``results``: ``bandsim results DIR --csv``;
- with ``--tty``, ``run`` and ``resume`` in a pseudo-terminal (``script -qc``),
  where the progress bar is drawn.

Usage (from the repository root; the machine's load shows in the numbers)::

    .venv/bin/python benchmarks/store_scale.py --jobs 1000 10000 --tty
"""
import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BANDSIM = str(Path(sys.executable).with_name("bandsim"))


def study(path, n):
    eps = [round(0.1 + i * 0.9 / n, 9) for i in range(n)]
    path.write_text('[study]\nhorizon = 1000\nruns = 2\nseed = 1\ninstance = "C1"\narms = 3\n'
                    f'[grid]\nalgorithm = ["dp-se"]\nepsilon = {eps}\n')


def timed(args, tty=False):
    t = time.perf_counter()
    if tty:
        cmd = ["script", "-qc", shlex.join(args), os.devnull]
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True,
                       env={**os.environ, "COLUMNS": "120"})
    else:
        with tempfile.TemporaryFile() as err:
            subprocess.run(args, stdout=subprocess.DEVNULL, stderr=err, check=True)
    return round(time.perf_counter() - t, 2)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--jobs", type=int, nargs="+", default=[1000])
    p.add_argument("--tty", action="store_true", help="also time in a pseudo-terminal")
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        for n in a.jobs:
            s, out = Path(tmp) / f"s{n}.toml", Path(tmp) / f"o{n}"
            study(s, n)
            row = {"jobs": n, "run": timed([BANDSIM, "sweep", str(s), "--out", str(out)]),
                   "resume": timed([BANDSIM, "sweep", str(s), "--out", str(out)]),
                   "results": timed([BANDSIM, "results", str(out), "--csv"])}
            if a.tty and shutil.which("script"):
                shutil.rmtree(out)
                row["run_tty"] = timed([BANDSIM, "sweep", str(s), "--out", str(out)], tty=True)
                row["resume_tty"] = timed([BANDSIM, "sweep", str(s), "--out", str(out)],
                                          tty=True)
            print(row, flush=True)
            shutil.rmtree(out)


if __name__ == "__main__":
    main()
