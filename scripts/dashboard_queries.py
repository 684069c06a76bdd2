"""The (metric, label) pairs the Grafana dashboard and the Prometheus rules query, written to
clients/spec/dashboard_queries.json, which every client's metrics test reads and checks its
real scrape against: one list, extracted from the queries themselves, never kept by hand.

    python3 scripts/dashboard_queries.py           # rewrite the spec file
    python3 scripts/dashboard_queries.py --check   # fail when it and the queries drift (make lint)

Each expression's metrics are paired with every label it names (matchers, `by`/`without`
groupings, the panel's `{{label}}` legend): a label one metric lacks fails that client's test.
Recording rules' own names (they hold a colon) are left out: they are Prometheus's, not a client's.
"""

import json
import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
DASHBOARD = ROOT / "docs" / "grafana" / "winlimit.json"
RULES = ROOT / "docs" / "prometheus" / "winlimit-rules.yml"
SPEC = ROOT / "clients" / "spec" / "dashboard_queries.json"

METRIC = re.compile(r"(?<![\w:])(winlimit_\w+)(?![\w:])")
MATCHERS = re.compile(r"\{([^{}]*)\}")
MATCHER_LABEL = re.compile(r"(\w+)\s*(?:=~|!~|!=|=)")
GROUPING = re.compile(r"\b(?:by|without)\s*\(([^)]*)\)")
LEGEND = re.compile(r"\{\{\s*(\w+)\s*\}\}")


def labels_of(expr, legend=""):
    """Every label an expression (and its legend) names."""
    labels = set(LEGEND.findall(legend))
    for matchers in MATCHERS.findall(expr):
        labels.update(MATCHER_LABEL.findall(matchers))
    for grouping in GROUPING.findall(expr):
        labels.update(name.strip() for name in grouping.split(",") if name.strip())
    return labels


def dashboard_queries():
    """(expression, legend) of every panel target and of every templating query."""
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    for panel in dashboard["panels"]:
        for target in panel.get("targets", []):
            yield target["expr"], target.get("legendFormat", "")
    for variable in dashboard["templating"]["list"]:
        if variable["type"] == "query":
            yield variable["definition"], ""


def rule_queries():
    rules = yaml.safe_load(RULES.read_text(encoding="utf-8"))
    for group in rules["groups"]:
        for rule in group["rules"]:
            yield rule["expr"], ""


def extract():
    """{metric: sorted labels} over the dashboard and the rules."""
    pairs = {}
    for expr, legend in [*dashboard_queries(), *rule_queries()]:
        # label_values(metric, label): the label is the call's second argument.
        expr = re.sub(r"label_values\((\w+),\s*(\w+)\)", r"\1{\2=''}", expr)
        labels = labels_of(expr, legend)
        for metric in METRIC.findall(expr):
            pairs.setdefault(metric, set()).update(labels)
    return {metric: sorted(labels) for metric, labels in sorted(pairs.items())}


def render():
    return json.dumps(extract(), indent=2) + "\n"


def main(argv):
    if argv[1:] == ["--check"]:
        if SPEC.read_text(encoding="utf-8") != render():
            sys.exit(f"{SPEC.relative_to(ROOT)} drifted from the dashboard or the rules: "
                     "run python3 scripts/dashboard_queries.py")
        return
    SPEC.write_text(render(), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv)
