#!/usr/bin/env python3
"""Interleaved timing: every round runs each command once, in a shuffled
order, so that a load that comes and goes (a kernel build, fuzzing) falls
on all of them alike. Prints each command's median wall time and the
median over rounds of its ratio to the first command's time in the same
round.

    pairs.py ROUNDS LABEL=COMMAND [LABEL=COMMAND ...]

Commands are split on blanks (no shell: a shell's start-up would be timed
too) and run with the caller's environment, output to /dev/null. Leading
NAME=VALUE words set NAME for that command alone, as in a shell.
"""
import re
import os
import random
import statistics
import sys
import time


def split(cmd):
    words = cmd.split()
    env = dict(os.environ)
    while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    return words, env


def run(cmd):
    argv, env = cmd
    devnull = os.open(os.devnull, os.O_RDWR)
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, env,
                         file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 0),
                                       (os.POSIX_SPAWN_DUP2, devnull, 1),
                                       (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status = os.waitpid(pid, 0)
    t1 = time.perf_counter_ns()
    os.close(devnull)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"pairs.py: {' '.join(argv)} exited with {code}")
    return (t1 - t0) / 1e6


def main():
    rounds = int(sys.argv[1])
    specs = [s.split("=", 1) for s in sys.argv[2:]]
    cmds = [(label, split(cmd)) for label, cmd in specs]
    times = {label: [] for label, _ in cmds}
    ratios = {label: [] for label, _ in cmds}
    rng = random.Random(1)
    for _ in range(3):  # warm-up: page cache, the dynamic loader's cache
        for label, argv in cmds:
            run(argv)
    for _ in range(rounds):
        order = list(range(len(cmds)))
        rng.shuffle(order)
        this = {}
        for i in order:
            label, argv = cmds[i]
            this[label] = run(argv)
        base = this[cmds[0][0]]
        for label, _ in cmds:
            times[label].append(this[label])
            ratios[label].append(this[label] / base)
    print(f"{'command':<36} {'median ms':>10} {'x first':>8}")
    for label, _ in cmds:
        print(f"{label:<36} {statistics.median(times[label]):>10.2f} "
              f"{statistics.median(ratios[label]):>8.2f}")


main()
