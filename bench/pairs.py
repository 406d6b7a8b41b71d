#!/usr/bin/env python3
"""Interleaved timing: every round runs each command once, in a shuffled
order, so that a load that comes and goes (a kernel build, fuzzing) falls
on all of them alike. Prints each command's median wall time and the
median over rounds of its ratio to the first command's time in the same
round.

    pairs.py [--each NAMES] [--vs LABEL] [--prepare SHELL-COMMAND]
             ROUNDS LABEL=COMMAND [LABEL=COMMAND ...]

With --each, a round is one pass over the names in the file NAMES (one a
line): for each name every command runs once, shuffled, with {} in it
replaced by the name, and each name is a pair (a ratio) of its own.

With --vs, a last column gives each command's median over rounds of its
ratio to the command LABEL's time in the same round (how many times
slower than LABEL it is).

With --prepare, the shell command runs before every timed command, untimed
(a fresh simulated kernel for each load, say).

Commands are split on blanks (no shell: a shell's start-up would be timed
too) and run with the caller's environment, output to /dev/null. Leading
NAME=VALUE words set NAME for that command alone, as in a shell.
"""
import re
import os
import random
import statistics
import subprocess
import sys
import time


def split(cmd):
    words = cmd.split()
    env = dict(os.environ)
    while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    return words, env


prepare = None


def run(cmd):
    argv, env = cmd
    if prepare:
        subprocess.run(prepare, shell=True, check=True)
    devnull = os.open(os.devnull, os.O_RDWR)
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, env,
                         file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 0),
                                       (os.POSIX_SPAWN_DUP2, devnull, 1),
                                       (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status = os.waitpid(pid, 0)
    t1 = time.perf_counter_ns()
    os.close(devnull)
    if os.waitstatus_to_exitcode(status) != 0:
        failed[argv[0]] = failed.get(argv[0], 0) + 1
    return (t1 - t0) / 1e6


# Non-zero exits per program: a run that failed early would look fast, so
# the table says how many there were.
failed = {}


def with_name(cmd, name):
    argv, env = cmd
    return [w.replace("{}", name) for w in argv], env


def main():
    args = sys.argv[1:]
    names = [""]
    vs = None
    global prepare
    while args[0] in ("--each", "--vs", "--prepare"):
        if args[0] == "--each":
            with open(args[1]) as f:
                names = [line.strip() for line in f if line.strip()]
        elif args[0] == "--vs":
            vs = args[1]
        else:
            prepare = args[1]
        args = args[2:]
    rounds = int(args[0])
    specs = [s.split("=", 1) for s in args[1:]]
    cmds = [(label, split(cmd)) for label, cmd in specs]
    times = {label: [] for label, _ in cmds}
    ratios = {label: [] for label, _ in cmds}
    ratios_vs = {label: [] for label, _ in cmds}
    rng = random.Random(1)
    for _ in range(3):  # warm-up: page cache, the dynamic loader's cache
        for label, cmd in cmds:
            run(with_name(cmd, names[0]))
    for _ in range(rounds):
        for name in names:
            order = list(range(len(cmds)))
            rng.shuffle(order)
            this = {}
            for i in order:
                label, cmd = cmds[i]
                this[label] = run(with_name(cmd, name))
            base = this[cmds[0][0]]
            for label, _ in cmds:
                times[label].append(this[label])
                ratios[label].append(this[label] / base)
                if vs:
                    ratios_vs[label].append(this[label] / this[vs])
    print(f"{'command':<36} {'median ms':>10} {'x first':>8}"
          + (f" {'x ' + vs:>12}" if vs else ""))
    for label, (argv, _) in cmds:
        bad = failed.get(argv[0], 0)
        print(f"{label:<36} {statistics.median(times[label]):>10.2f} "
              f"{statistics.median(ratios[label]):>8.2f}"
              + (f" {statistics.median(ratios_vs[label]):>12.2f}" if vs else "")
              + (f"  ({bad} runs of {argv[0]} exited non-zero)" if bad else ""))


main()
