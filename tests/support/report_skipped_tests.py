#!/usr/bin/python3
"""Prints how many tests CTest skipped, each with its name and the reason it printed (the line after
"SKIPPED: "), from the JUnit file `ctest --output-junit` wrote. `./run test` calls it after ctest so
that a test which could not run here is never mistaken for one that passed.
Usage: report_skipped_tests.py JUNIT_XML"""

import sys
import xml.etree.ElementTree as ElementTree


def skip_reason(output):
    """The text after "SKIPPED: ", with the indented lines Catch wraps a long message onto."""
    lines = (output or "").splitlines()
    for i, line in enumerate(lines):
        at = line.find("SKIPPED: ")
        if at >= 0:
            parts = [line[at + len("SKIPPED: "):].strip()]
            for following in lines[i + 1:]:
                if not following.startswith("  ") or not following.strip():
                    break
                parts.append(following.strip())
            return " ".join(parts)
    return "no reason printed"


def main(path):
    skipped = []
    for case in ElementTree.parse(path).getroot().iter("testcase"):
        if case.find("skipped") is not None:
            skipped.append((case.get("name"), skip_reason(case.findtext("system-out"))))
    if not skipped:
        print("run: no test skipped")
        return
    print("run: %d test%s skipped:" % (len(skipped), "" if len(skipped) == 1 else "s"))
    for name, reason in skipped:
        print("  %s\n      %s" % (name, reason))


if __name__ == "__main__":
    main(sys.argv[1])
