"""Shared by the command-line test scripts: counts checks, prints each failure, and ends the script
with "N passed, M failed" and exit status 1 when any check failed."""

import sys


class Tally:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, condition, what):
        if condition:
            self.passed += 1
        else:
            self.failed += 1
            print("FAILED:", what)

    def finish(self):
        print("%d passed, %d failed" % (self.passed, self.failed))
        sys.exit(1 if self.failed else 0)
