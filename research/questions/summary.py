"""One line per collection and query group of a question_cv.py report (MRR@10):

    python research/questions/summary.py report.json
"""

import json
import sys


def main(path: str) -> None:
    report = json.load(open(path))
    print(f"chosen on all: {report['chosen_on_all']}")
    for name, held in report["held_out"].items():
        print(f"\n{name}: chosen on the others {held['chosen']}")
        print(f"  {'group':<12} {'n':>3} {'bm25':>6} {'vector':>6} {'before':>6} {'after':>6}  "
              f"{'after-before [95%]':<24} {'before-better lane':<24} {'after-better lane':<24}")
        for group, g in held["groups"].items():
            cells = [f"{d:+.3f} [{lo:+.3f},{hi:+.3f}]" for d, lo, hi in
                     (g["after_minus_before"], g["before_minus_better_lane"], g["after_minus_better_lane"])]
            print(f"  {group:<12} {g['n']:>3} {g['bm25']:>6.3f} {g['vector']:>6.3f} {g['before']:>6.3f} "
                  f"{g['after']:>6.3f}  {cells[0]:<24} {cells[1]:<24} {cells[2]:<24}")
        print("  no note matches well: " + "; ".join(f"{k} {v}" for k, v in held["no_match"].items()))


if __name__ == "__main__":
    main(sys.argv[1])
