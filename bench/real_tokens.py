"""How far the 4-characters-per-token estimate is from real BPE tokenizers, on the full audit's own requests.

The fake model bills `ceil(chars / 4)` (no Kimi tokenizer ships offline). This counts the requests the planner sends
for Django 5.2.2's `django/` (every chunk and flow request, whole) with two published tokenizers, o200k_base and
cl100k_base, from the npm package `gpt-tokenizer` (`npm install gpt-tokenizer` in the folder given as
`--node-modules`'s parent), and how many tokens the line numbers take. Not a test: it needs node and that package.

    REVIEWBOT_BENCH_CACHE=~/.cache/reviewbot-bench .venv/bin/python -m bench.real_tokens --node-modules DIR
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import tempfile
from pathlib import Path

from bench.realcode import django_repo, tree_files
from reviewbot.audit.planner import plan_audit
from reviewbot.review.context.snapshot import MemorySnapshot

# Reads the requests (a JSON list of lists of message texts), prints one JSON line per encoding.
COUNT = """
const fs = require('fs');
const requests = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const numbered = /^\\d+(-\\d+)? /gm;  // a code line's number, or an elided range's
for (const name of ['o200k_base', 'cl100k_base']) {
  const enc = require(`gpt-tokenizer/cjs/encoding/${name}`);
  const count = (text) => enc.encode(text, {disallowedSpecial: new Set()}).length;
  let tokens = 0, without = 0;
  for (const messages of requests) for (const text of messages) {
    tokens += count(text); without += count(text.replace(numbered, ''));
  }
  console.log(JSON.stringify({encoding: name, tokens, without_line_numbers: without}));
}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--node-modules", type=Path, required=True, help="the node_modules holding gpt-tokenizer")
    args = parser.parse_args()
    snapshot = MemorySnapshot(tree_files(django_repo(), "v5.2.2"))
    plan = plan_audit(snapshot, "django")
    requests = [[m["content"] for m in plan.messages(chunk, snapshot.read)] for chunk in plan.chunks]
    chars = sum(len(text) for messages in requests for text in messages)
    estimate = sum(math.ceil(len(text) / 4) for messages in requests for text in messages)
    print(json.dumps({"requests": len(requests), "chars": chars, "estimate_chars_over_4": estimate}))
    with tempfile.TemporaryDirectory() as folder:
        data, script = Path(folder) / "requests.json", Path(folder) / "count.js"
        data.write_text(json.dumps(requests), encoding="utf-8")
        script.write_text(COUNT, encoding="utf-8")
        env = {"NODE_PATH": str(args.node_modules.resolve()), "PATH": "/usr/bin:/bin:/usr/local/bin"}
        out = subprocess.run(["node", str(script), str(data)], check=True, capture_output=True, text=True, env=env)
    for line in out.stdout.splitlines():
        row = json.loads(line)
        row["chars_per_token"] = round(chars / row["tokens"], 3)
        row["vs_estimate"] = round(row["tokens"] / estimate - 1, 4)
        row["line_number_share"] = round(1 - row["without_line_numbers"] / row["tokens"], 4)
        print(json.dumps(row))


if __name__ == "__main__":
    main()
