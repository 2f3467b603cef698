"""Where untrusted input enters a file and where a file uses a dangerous sink, pure, from the identifiers it holds (per
language); and the call graph with the edges of those flows made stronger, so chunks and context follow them."""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from reviewbot.audit.callgraph import CallGraph, with_weights
from reviewbot.review.context.languages import language_for

FLOW_BOOST = 3.0  # an edge that carries input from a source, or into a sink, outweighs a plain call
# C and C++: the C library's input (files, sockets, the environment, arguments) and a Python extension's arguments;
# the copies, formats and commands that trust a length or a string.
_C_SOURCES = frozenset({"read", "recv", "recvfrom", "recvmsg", "fread", "fgets", "getline", "getenv", "argv", "scanf",
                        "fscanf", "sscanf", "PyArg_ParseTuple", "PyArg_ParseTupleAndKeywords", "PyArg_Parse",
                        "PyBytes_AsString", "PyBytes_AS_STRING", "PyUnicode_AsUTF8", "PyUnicode_AsUTF8AndSize",
                        "PyObject_GetBuffer", "Py_buffer"})
_C_SINKS = frozenset({"memcpy", "memmove", "strcpy", "strncpy", "strcat", "strncat", "sprintf", "vsprintf", "gets",
                      "system", "popen", "execl", "execlp", "execle", "execv", "execvp", "execve", "alloca"})
# Identifiers specific enough to say "this file reads untrusted input" / "this file uses a dangerous sink".
SOURCES: Mapping[str, frozenset[str]] = {
    "python": frozenset({"GET", "POST", "COOKIES", "META", "FILES", "headers", "query_params", "environ", "getenv",
                         "argv", "get_full_path", "get_signed_cookie", "read_body", "urlsafe_base64_decode",
                         "QueryDict", "MultiValueDict", "MultiPartParser", "loads", "deserialize", "parse_qsl",
                         # the request accessors of the other web frameworks, where the name alone says input:
                         # Tornado, Flask, Starlette, aiohttp, Falcon, Pyramid
                         "get_argument", "get_arguments", "get_query_argument", "get_query_arguments",
                         "get_body_argument", "get_body_arguments", "get_secure_cookie", "get_signed_cookie_value",
                         "get_json", "path_params", "match_info", "get_param", "get_param_as_list", "matchdict",
                         "json_body"}),
    "javascript": frozenset({"req", "params", "query", "cookies", "headers", "argv", "env", "searchParams"}),
    "typescript": frozenset({"req", "params", "query", "cookies", "headers", "argv", "env", "searchParams"}),
    "go": frozenset({"FormValue", "URL", "Header", "Cookie", "Getenv", "Args", "Unmarshal", "Decode"}),
    "c": _C_SOURCES,
    "cpp": _C_SOURCES | {"cin", "getline", "istream", "ifstream"},
}
# Attributes that hold input where the names alone do not say so: a class-based view's request and URL arguments,
# and the parts of a request object whose names are too common to mean input on their own (Flask, Werkzeug, Django,
# Starlette, Pyramid, Falcon).
SOURCE_ATTRIBUTES: Mapping[str, frozenset[str]] = {"python": frozenset({
    "self.request", "self.kwargs", "request.args", "request.form", "request.values", "request.cookies",
    "request.files", "request.data", "request.json", "request.body", "request.params", "request.query",
    "request.stream", "req.media", "req.params", "req.stream"})}
SINKS: Mapping[str, frozenset[str]] = {
    "python": frozenset({"execute", "executemany", "executescript", "RawSQL", "raw", "extra", "cursor", "Popen",
                         "check_output", "check_call", "subprocess", "system", "pickle", "unpickle", "loads",
                         "yaml", "eval", "exec", "safe_join", "FileResponse", "HttpResponseRedirect", "redirect",
                         "mark_safe", "SafeString", "format_html", "Template", "render_to_string", "md5", "sha1",
                         "open", "read_bytes", "write_text", "write_bytes", "send_file"}),
    "javascript": frozenset({"exec", "execSync", "spawn", "eval", "innerHTML", "query", "redirect", "readFile",
                             "createReadStream", "sendFile", "render", "dangerouslySetInnerHTML"}),
    "typescript": frozenset({"exec", "execSync", "spawn", "eval", "innerHTML", "query", "redirect", "readFile",
                             "createReadStream", "sendFile", "render", "dangerouslySetInnerHTML"}),
    "go": frozenset({"Exec", "Query", "QueryRow", "Command", "Redirect", "ServeFile", "Open", "HTML"}),
    "c": _C_SINKS,
    "cpp": _C_SINKS | {"copy_n"},
}


@dataclass(frozen=True)
class Roles:
    """Files that read untrusted input and files that use a dangerous sink (a file may be both)."""

    sources: frozenset[str]
    sinks: frozenset[str]


def flow_roles(names: Mapping[str, AbstractSet[str]]) -> Roles:
    """Each file's role from the identifiers its text holds, for the languages listed here."""
    sources, sinks = set(), set()
    for path, held in names.items():
        language = language_for(path) or ""
        if held & SOURCES.get(language, frozenset()):
            sources.add(path)
        if held & SINKS.get(language, frozenset()):
            sinks.add(path)
    return Roles(frozenset(sources), frozenset(sinks))


def flow_graph(graph: CallGraph, roles: Roles) -> CallGraph:
    """The same edges, those from a file that reads input (to what it passes the input to) and those into a file
    that uses a sink (from its callers) weighted FLOW_BOOST times (both: squared), so a flow is cut last."""
    weight = {caller: {callee: round(w * (FLOW_BOOST if caller in roles.sources else 1.0)
                                     * (FLOW_BOOST if callee in roles.sinks else 1.0), 6)
                       for callee, w in row.items()} for caller, row in graph.weight.items()}
    return with_weights(graph, weight)
