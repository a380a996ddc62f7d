#!/usr/bin/env python3
"""Reads mcp-audit's --junit and --sarif files with real consumers and
prints what they saw as one JSON object, for tests/suite/ci_reports.rs.

usage: ci_read.py JUNIT.xml SARIF.json SCHEMA.json

JUnit is read with junitparser (PyPI), SARIF validated with jsonschema
(PyPI) against the SARIF 2.1.0 schema kept in tests/data/schemas/.
"""
import json
import sys

import jsonschema
import junitparser


def main():
    junit, sarif, schema = sys.argv[1:4]
    xml = junitparser.JUnitXml.fromfile(junit)
    suites = []
    for suite in xml:
        cases = []
        for case in suite:
            res = [type(r).__name__ for r in case.result]
            cases.append({
                "name": case.name,
                "result": res,
                "message": case.result[0].message if case.result else None,
                "out": case.system_out,
            })
        suites.append({"name": suite.name, "tests": suite.tests,
                       "failures": suite.failures, "cases": cases})
    doc = json.load(open(sarif, encoding="utf-8"))
    jsonschema.validate(doc, json.load(open(schema, encoding="utf-8")))
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    results = []
    for r in run["results"]:
        loc = r["locations"][0]
        phys = loc["physicalLocation"]
        results.append({
            "rule": r["ruleId"],
            "rule_matches_index": rules[r["ruleIndex"]]["id"] == r["ruleId"],
            "level": r["level"],
            "uri": phys["artifactLocation"]["uri"],
            "line": phys.get("region", {}).get("startLine"),
            "logical": [l.get("fullyQualifiedName", l["name"])
                        for l in loc.get("logicalLocations", [])],
            "suppressions": [x["status"] for x in r.get("suppressions", [])],
        })
    print(json.dumps({
        "junit": {"tests": xml.tests, "failures": xml.failures, "suites": suites},
        "sarif": {"valid": True, "rules": len(rules),
                  "rule_levels": {r["id"]: r["defaultConfiguration"]["level"] for r in rules},
                  "results": results},
    }))


if __name__ == "__main__":
    main()
