#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Read a JUnit file as CI systems do, with junitparser (Debian's
python3-junitparser), and print what it found as one JSON object:
{"suites": [{"name", "tests", "failures", "errors", "skipped",
"properties": {name: [values]}, "cases": [{"classname", "name",
"outcome", "message", "type", "output"}]}]}.
Exit 1 when junitparser cannot read the file."""
import json
import sys

from junitparser import Error, Failure, JUnitXml, Skipped


def outcome(case):
    for result in case.result:
        if isinstance(result, Failure):
            return "failed", result.message, result.type
        if isinstance(result, Error):
            return "error", result.message, result.type
        if isinstance(result, Skipped):
            return "skipped", result.message, None
    return "passed", None, None


def main():
    try:
        xml = JUnitXml.fromfile(sys.argv[1])
    except Exception as e:  # junitparser raises lxml's or ElementTree's own
        print("junitparser cannot read %s: %s" % (sys.argv[1], e), file=sys.stderr)
        return 1
    suites = []
    for suite in xml:
        properties = {}
        for p in suite.properties():
            properties.setdefault(p.name, []).append(p.value)
        cases = []
        for case in suite:
            state, message, kind = outcome(case)
            cases.append({"classname": case.classname, "name": case.name,
                          "outcome": state, "message": message, "type": kind,
                          "output": case.system_out})
        suites.append({"name": suite.name, "tests": suite.tests,
                       "failures": suite.failures, "errors": suite.errors,
                       "skipped": suite.skipped, "properties": properties,
                       "cases": cases})
    json.dump({"suites": suites}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
