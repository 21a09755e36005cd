# SPDX-License-Identifier: GPL-2.0-or-later
"""Two tools measured in the same rounds: how far apart they are, and how sure.

On a virtual machine the host moves a whole round by more than the tools
differ, so each round's ratio is taken first (both tools saw the same host);
the geometric mean of those ratios estimates the difference, and a 95%
bootstrap interval (10,000 resamples of the rounds, fixed seed) says how far
the machine's noise leaves it open. Fewer than MIN_ROUNDS rounds give no
interval: the resamples would mostly repeat the same few values.
"""
import math
import random
import statistics

MIN_ROUNDS = 8
RESAMPLES = 10000


def paired_ratio(pairs, target=None):
    """A line on (a, b) per round: the geometric mean of a/b, its interval,
    and against an upper target whether it is shown met. Rounds where either
    value is 0 or infinite (beyond a histogram) are left out."""
    logs = [math.log(a / b) for a, b in pairs if 0 < a < math.inf and 0 < b < math.inf]
    if not logs:
        return "none (no round with both values finite)"
    mean = math.exp(statistics.fmean(logs))
    if len(logs) < MIN_ROUNDS:
        return "%.3f (%d rounds: too few for an interval; ROUNDS=20)" % (mean, len(logs))
    draw = random.Random(1)
    means = sorted(statistics.fmean(draw.choices(logs, k=len(logs)))
                   for _ in range(RESAMPLES))
    low = math.exp(means[int(0.025 * RESAMPLES) - 1])
    high = math.exp(means[int(0.975 * RESAMPLES) - 1])
    text = "%.3f (95%% interval %.3f-%.3f, %d rounds" % (mean, low, high, len(logs))
    if target is None:
        return text + ")"
    verdict = ("shown" if high <= target else
               "not shown, the interval spans it" if low <= target else "missed")
    return text + "; target <= %.2f: %s)" % (target, verdict)
