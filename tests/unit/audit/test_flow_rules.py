"""Flows the listing follows beyond a plain call, each split over chunks and shown whole by one flow request: a class
instantiated with input (its `__init__`, and its methods the instance serves later), a function held in an
attribute, a backend class chosen at run time, a class-based view's URL arguments, and a C flow from a Python
extension's arguments to a `memcpy` in the library a header exports; deterministic and bounded."""

from __future__ import annotations

from pathlib import Path

from reviewbot.audit.boundcalls import MAX_IMPLEMENTATIONS
from reviewbot.audit.factstore import SqliteFacts
from reviewbot.audit.flowpaths import find_flows
from reviewbot.audit.planner import AuditPlan, plan_audit
from reviewbot.audit.pyfactcache import PythonFacts
from reviewbot.review.context.snapshot import MemorySnapshot

PAD = "def pad_{n}_{m}(value):\n    return value * {m} + {n}\n\n\n"
C_PAD = "static int pad_{n}_{m}(int value) {{\n    return value * {m} + {n};\n}}\n\n"


def padding(n: int, units: int = 60, template: str = PAD) -> str:
    """Enough code that each file is a chunk of its own at 1,500 tokens per chunk."""
    return "".join(template.format(n=n, m=m) for m in range(units))


def plan(files: dict[str, str]) -> AuditPlan:
    return plan_audit(MemorySnapshot(files), chunk_tokens=1_500)


def holding(files: dict[str, str], *lines: str) -> list[int]:
    """The requests (chunks' and flow requests') whose text holds every line, and that only flow requests do."""
    audit = plan(files)
    assert all(sum("pad_" in files[p] for p in c.paths) <= 1 for c in audit.chunks)  # each large file apart
    texts = [audit.messages(c, files.get)[1]["content"] for c in audit.chunks]
    found = [i for i, t in enumerate(texts) if all(line in t for line in lines)]
    assert all(not audit.chunks[i].paths for i in found)
    return found


SINK = ("def fetch(key):\n    cursor = connection.cursor()\n"
        "    cursor.execute(\"SELECT * FROM t WHERE k = '%s'\" % key)\n")


def test_a_class_instantiated_with_input_reaches_the_sink_its_init_calls_in_a_third_file() -> None:
    files = {
        "web/views.py": "from store.tokens import TokenStore\n\n\n" + padding(1)
        + "def check(request):\n    key = request.COOKIES['key']\n    return TokenStore(key)\n",
        "store/tokens.py": "from db.sql import fetch\n\n\n" + padding(2)
        + "class TokenStore:\n    def __init__(self, key):\n        self.row = fetch(key.strip())\n",
        "db/sql.py": padding(3) + SINK,
    }
    assert len(holding(files, "key = request.COOKIES['key']", "def __init__(self, key):",
                       "cursor.execute(\"SELECT * FROM t WHERE k = '%s'\" % key)")) == 1


def test_a_backend_chosen_at_run_time_and_a_method_it_serves_later_are_followed() -> None:
    """`self.Store = engine.Store` after `engine = import_module(setting)`: each `Store` class the tree defines; the
    input it was built from reaches its methods (called later, by whoever holds the instance)."""
    files = {
        "mw/middleware.py": "from importlib import import_module\n\n\n" + padding(1)
        + "class Middleware:\n    def __init__(self, engine_name):\n        engine = import_module(engine_name)\n"
        "        self.Store = engine.Store\n\n    def process(self, request):\n"
        "        key = request.COOKIES.get('k')\n        request.store = self.Store(key)\n",
        "backends/db.py": "from db.sql import fetch\n\n\n" + padding(2)
        + "class Store:\n    def __init__(self, key):\n        self.key = key\n\n"
        "    def load(self):\n        return fetch(self.key)\n",
        "backends/cache.py": padding(4) + "class Store:\n    def __init__(self, key):\n        self.key = key\n",
        "db/sql.py": padding(3) + SINK,
    }
    assert len(holding(files, "key = request.COOKIES.get('k')", "def load(self):",
                       "cursor.execute(\"SELECT * FROM t WHERE k = '%s'\" % key)")) == 1
    # a name bound at run time that too many classes define is no one's: nothing is followed through it
    crowded = {**files, **{f"backends/more{n}.py": f"class Store:\n    pass\n{padding(10 + n)}"
                           for n in range(MAX_IMPLEMENTATIONS)}}
    assert holding(crowded, "key = request.COOKIES.get('k')", "def load(self):") == []


def test_a_function_held_in_an_attribute_is_followed_from_a_class_based_view_s_url_arguments() -> None:
    files = {
        "docs/views.py": "from templates import loading\n\n\n" + padding(1)
        + "class TemplateView:\n    def __init__(self):\n        self.reader = loading.read_source\n\n"
        "    def get_context_data(self, **kwargs):\n        name = self.kwargs['template']\n"
        "        return {'source': self.reader(name)}\n",
        "templates/loading.py": padding(2)
        + "def read_source(name):\n    with open('/srv/templates/' + name) as f:\n        return f.read()\n",
    }
    assert len(holding(files, "name = self.kwargs['template']", "with open('/srv/templates/' + name) as f:")) == 1


C_BINDING = ("#include \"decode.h\"\n\n" + padding(1, template=C_PAD)
             + "static PyObject* decompress(PyObject* self, PyObject* args) {\n    Py_buffer input;\n"
             "    if (!PyArg_ParseTuple(args, \"y*\", &input)) return NULL;\n"
             "    lib_decode(input.buf, input.len);\n    return NULL;\n}\n")
C_HEADER = "size_t lib_decode(const unsigned char* data, size_t size);\n"
C_LIBRARY = ("#include \"decode.h\"\n#include \"copy.h\"\n\n" + padding(2, template=C_PAD)
             + "size_t lib_decode(const unsigned char* data, size_t size) {\n"
             "    return copy_block(data + 1, size - 1);\n}\n")
C_COPY = ("#include <string.h>\n\n" + padding(3, template=C_PAD)
          + "size_t copy_block(const unsigned char* data, size_t size) {\n    unsigned char block[16];\n"
          "    memcpy(block, data, size);\n    return size;\n}\n")


def c_tree() -> dict[str, str]:
    return {"python/_ext.c": C_BINDING, "include/decode.h": C_HEADER, "lib/decode.c": C_LIBRARY,
            "include/copy.h": "size_t copy_block(const unsigned char* data, size_t size);\n", "lib/copy.c": C_COPY}


def test_a_c_flow_across_directories_split_over_chunks_gets_one_request_holding_every_piece() -> None:
    assert len(holding(c_tree(), "if (!PyArg_ParseTuple(args, \"y*\", &input)) return NULL;",
                       "size_t lib_decode(const unsigned char* data, size_t size) {",
                       "memcpy(block, data, size);")) == 1
    flows = find_flows(c_tree(), plan(c_tree()).definitions, ["python/_ext.c"])
    # the definitions, not the headers' prototypes
    assert [[(p.path, p.name) for p in f.pieces] for f in flows] == [
        [("python/_ext.c", "decompress"), ("lib/decode.c", "lib_decode"), ("lib/copy.c", "copy_block")]]


def test_a_header_s_exported_function_taking_a_buffer_and_its_size_reads_input() -> None:
    files = {"include/api.h": "int api_copy(const char* data, size_t len);\n",
             "src/api.c": "#include \"api.h\"\nint api_copy(const char* data, size_t len) {\n"
             "    return copy_block(data, len);\n}\n",
             "src/copy.c": "int copy_block(const char* data, size_t len) {\n    char out[8];\n"
             "    memcpy(out, data, len);\n    return 0;\n}\n"}
    flows = find_flows(files, plan(files).definitions, ["src/api.c"])
    assert [[p.name for p in f.pieces] for f in flows] == [["api_copy", "copy_block"]]


def test_the_same_tree_plans_the_same_requests_and_c_facts_are_parsed_once(tmp_path: Path) -> None:
    files = c_tree()
    first, second = plan(files), plan(dict(reversed(list(files.items()))))
    assert first.chunks == second.chunks
    audit = plan(files)
    once = PythonFacts(SqliteFacts(tmp_path))
    flows = find_flows(files, audit.definitions, audit.files, once)
    assert flows and once.parsed > 0
    again = PythonFacts(SqliteFacts(tmp_path))  # another process: only the file on disk is shared
    assert find_flows(files, audit.definitions, audit.files, again) == flows and again.parsed == 0


def test_the_flows_from_one_function_share_its_request_while_they_fit() -> None:
    files = {
        "web/views.py": "from svc.helpers import lookup\n\n\n" + padding(1)
        + "def both(request):\n    key = request.GET['key']\n    return lookup(key)\n",
        "svc/helpers.py": "from db.sql import fetch\nfrom tools.shell import run\n\n\n" + padding(2)
        + "def lookup(key):\n    fetch(key)\n    return run(key)\n",
        "db/sql.py": padding(3) + SINK,
        "tools/shell.py": padding(4) + "def run(key):\n    return subprocess.check_output('ls ' + key, shell=True)\n",
    }
    assert len([c for c in plan(files).chunks if not c.paths]) == 1  # two flows, one request
    assert len(holding(files, "key = request.GET['key']", "def lookup(key):",
                       "cursor.execute(\"SELECT * FROM t WHERE k = '%s'\" % key)",
                       "return subprocess.check_output('ls ' + key, shell=True)")) == 1


def together(files: dict[str, str], *lines: str) -> int:
    """How many requests (chunks' with their context, or flow requests) show every line."""
    audit = plan(files)
    return sum(all(line in audit.messages(c, files.get)[1]["content"] for line in lines) for c in audit.chunks)


def test_the_request_accessors_of_other_frameworks_start_flows() -> None:
    """Tornado's `self.get_query_argument`, Flask's `request.args` (a name too common to mean input alone, so only
    as the request's attribute): the input and the sink it reaches through a function-local import meet in a request;
    `args` alone (everyone's `*args`) is no input, and they do not."""
    sink = "return Template('<h1>%s</h1>' % title).substitute(code=code)"
    render = "def render_page(code, title):\n    from string import Template\n    " + sink + "\n"
    tornado = {
        "web/handler.py": padding(1) + "class Handler:\n    def write_error(self, code):\n"
        "        title = self.get_query_argument('title', '')\n        from pages.render import render_page\n"
        "        self.finish(render_page(code, title))\n",
        "pages/render.py": padding(2) + render,
        "other/more.py": padding(3),
    }
    assert together(tornado, "title = self.get_query_argument('title', '')", sink) >= 1
    flask = {**tornado, "web/handler.py": "from flask import request\n\n\n" + padding(1)
             + "def page(code):\n    title = request.args.get('title', '')\n"
             "    from pages.render import render_page\n    return render_page(code, title)\n"}
    assert together(flask, "title = request.args.get('title', '')", sink) >= 1
    plain = {**flask, "web/handler.py": flask["web/handler.py"].replace("request.args.get('title', '')", "args[0]")}
    assert together(plain, "title = args[0]", sink) == 0
