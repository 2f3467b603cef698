"""A deterministic, realistic multi-package repository for the context-engine benchmarks (≥ 3 MB of source).

Python packages that import and call each other (with tests, constants, classes), a TypeScript front end, a Go
service, plus what real repositories carry and reviews must skip: a lockfile, a vendored tree, docs, guidance.
Everything comes from one seeded random generator, so every run builds the same bytes.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

NOUNS = ["invoice", "order", "customer", "payment", "ledger", "account", "report", "shipment", "refund", "coupon",
         "tax", "price", "cart", "stock", "vendor", "audit", "session", "token", "profile", "quota", "schedule",
         "route", "metric", "alert", "batch", "export", "import", "queue", "cache", "policy"]
VERBS = ["load", "save", "compute", "validate", "merge", "split", "render", "normalize", "apply", "resolve",
         "fetch", "build", "check", "format", "parse", "reconcile", "summarize", "estimate", "sync", "archive"]
PACKAGES = 36
MODULES = 30


@dataclass(frozen=True)
class Module:
    package: str
    name: str
    functions: tuple[str, ...]
    constants: tuple[str, ...]
    klass: str

    @property
    def path(self) -> str:
        return f"{self.package}/{self.name}.py"

    @property
    def dotted(self) -> str:
        return f"{self.package}.{self.name}".replace("/", ".")


def _modules(rng: random.Random) -> list[Module]:
    out = []
    for p in range(PACKAGES):
        package = f"services/{NOUNS[p % len(NOUNS)]}_{p}"
        for m in range(MODULES):
            noun = NOUNS[(p * 7 + m) % len(NOUNS)]
            name = f"{noun}_{VERBS[m % len(VERBS)]}_{m}"
            fns = tuple(f"{rng.choice(VERBS)}_{noun}_{p}_{m}_{k}" for k in range(7))
            consts = tuple(f"{noun.upper()}_{w}_{p}_{m}" for w in ("LIMIT", "TIMEOUT"))
            out.append(Module(package, name, fns, consts, f"{noun.title()}Service{p}x{m}"))
    return out


def _python(rng: random.Random, mod: Module, deps: list[Module]) -> str:
    lines = [f'"""{mod.name.replace("_", " ").capitalize()}: part of {mod.package}."""', "",
             "from __future__ import annotations", "", "import logging", ""]
    for dep in deps:
        lines.append(f"from {dep.dotted} import {dep.functions[0]}, {dep.constants[0]}")
    lines += ["", "log = logging.getLogger(__name__)", ""]
    lines += [f"{c} = {rng.randint(2, 900)}" for c in mod.constants] + ["", ""]
    for i, fn in enumerate(mod.functions):
        dep = deps[i % len(deps)]
        lines += [f"def {fn}(records, limit={mod.constants[0]}, *, strict=False):",
                  f'    """{fn.split("_")[0].capitalize()} the records, at most `limit` of them."""',
                  "    result = []",
                  "    for index, record in enumerate(records):",
                  "        if index >= limit:",
                  "            break",
                  f"        value = {dep.functions[0]}([record], {dep.constants[0]})",
                  "        if strict and not value:",
                  f"            raise ValueError('empty value in {fn}')",
                  "        result.append(value)",
                  f"    log.debug('{fn} handled %d records', len(result))",
                  "    return result", "", ""]
    lines += [f"class {mod.klass}:", f'    """Stateful access to {mod.name}."""', "",
              "    def __init__(self, store, timeout=30):", "        self.store = store",
              "        self.timeout = timeout", "        self.calls = 0", ""]
    for method in ("load", "save", "validate"):
        lines += [f"    def {method}(self, key):", "        self.calls += 1",
                  f"        return {mod.functions[1]}(self.store.get(key, []), {mod.constants[1]})", ""]
    return "\n".join(lines) + "\n"


def _test(mod: Module) -> str:
    return "\n".join([f"from {mod.dotted} import {mod.functions[0]}, {mod.klass}", "", "",
                      f"def test_{mod.functions[0]}_keeps_order():",
                      f"    assert {mod.functions[0]}([], 3) == []", "", "",
                      f"def test_{mod.name}_service_counts_calls():",
                      f"    service = {mod.klass}({{}})", "    service.load('k')", "    assert service.calls == 1",
                      ""])


def _typescript(rng: random.Random, i: int) -> str:
    name = f"{NOUNS[i % len(NOUNS)]}View{i}"
    body = [f"import {{ format{(i + 1) % 80} }} from './view{(i + 1) % 80}';", "",
            f"export interface {name}Props {{ id: string; total: number; items: string[] }}", "",
            f"export const {name.upper()}_PAGE_SIZE = {rng.randint(10, 90)};", ""]
    for k in range(6):
        body += [f"export function format{i}_{k}(props: {name}Props): string {{",
                 "  const parts = props.items.slice(0, 10).map((item) => item.trim());",
                 f"  return `${{props.id}}:${{parts.join(',')}}:${{format{(i + 1) % 80}(props.total)}}`;", "}", ""]
    body += [f"export function format{i}(total: number): string {{", "  return total.toFixed(2);", "}", ""]
    return "\n".join(body)


def _go(rng: random.Random, i: int) -> str:
    noun = NOUNS[i % len(NOUNS)]
    body = ["package svc", "", "import \"fmt\"", "", f"const {noun.title()}Retries{i} = {rng.randint(1, 9)}", "",
            f"type {noun.title()}Handler{i} struct {{", "\tname  string", "\tcount int", "}", ""]
    for k in range(6):
        body += [f"func (h *{noun.title()}Handler{i}) Handle{k}(input []string) (string, error) {{",
                 "\th.count++", "\tif len(input) == 0 {",
                 f"\t\treturn \"\", fmt.Errorf(\"empty input for {noun} {k}\")", "\t}",
                 f"\treturn fmt.Sprintf(\"%s-%d\", input[0], {noun.title()}Retries{i}), nil", "}", ""]
    return "\n".join(body)


def generate(seed: int = 5) -> dict[str, str]:
    """path -> text of the whole repository at its base commit."""
    rng = random.Random(seed)
    modules = _modules(rng)
    files: dict[str, str] = {}
    for index, mod in enumerate(modules):
        deps = [modules[(index + step) % len(modules)] for step in (1, 7, 31, 97)]
        files[mod.path] = _python(rng, mod, deps)
        files[f"tests/{mod.package.split('/')[-1]}/test_{mod.name}.py"] = _test(mod)
    for i in range(80):
        files[f"web/src/view{i}.ts"] = _typescript(rng, i)
    for i in range(60):
        files[f"svc/handler{i}.go"] = _go(rng, i)
    files["CONTRIBUTING.md"] = "# Contributing\n\nAll money is integer cents. Every public function is tested.\n"
    files["package-lock.json"] = json.dumps({"lockfileVersion": 3, "packages": {
        f"node_modules/pkg{i}": {"version": f"1.{i}.0"} for i in range(2_000)}}, indent=2)
    for i in range(40):
        files[f"vendor/github.com/acme/lib/file{i}.go"] = _go(rng, 1000 + i)
    return files


def source_bytes(files: dict[str, str]) -> int:
    return sum(len(t.encode()) for p, t in files.items() if p.endswith((".py", ".ts", ".go"))
               and not p.startswith("vendor/"))
