"""Which tree-sitter grammar reads a path, and the queries that find definitions in each grammar."""

from __future__ import annotations

EXTENSIONS: dict[str, str] = {
    ".py": "python", ".pyi": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go", ".java": "java", ".rs": "rust", ".rb": "ruby", ".rake": "ruby",
    ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp",
}

_JS_COMMON = """
(function_declaration name: (identifier) @name) @function
(generator_function_declaration name: (identifier) @name) @function
(class_declaration name: (_) @name) @class
(method_definition name: (_) @name) @method
(variable_declarator name: (identifier) @name) @variable
"""
_TS_EXTRA = """
(abstract_class_declaration name: (_) @name) @class
(interface_declaration name: (_) @name) @type
(type_alias_declaration name: (_) @name) @type
(enum_declaration name: (_) @name) @type
"""
_C_COMMON = """
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  @function
(declaration declarator: (function_declarator declarator: (identifier) @name)) @function
(struct_specifier name: (type_identifier) @name body: (_)) @type
(union_specifier name: (type_identifier) @name body: (_)) @type
(enum_specifier name: (type_identifier) @name body: (_)) @type
(type_definition declarator: (type_identifier) @name) @type
(preproc_def name: (identifier) @name) @constant
(preproc_function_def name: (identifier) @name) @function
"""

# Each pattern captures the symbol's @name and, under the name of its kind, the whole definition.
DEFINITION_QUERIES: dict[str, str] = {
    "python": """
(function_definition name: (identifier) @name) @function
(class_definition name: (identifier) @name) @class
(assignment left: (identifier) @name) @variable
""",
    "javascript": _JS_COMMON,
    "typescript": _JS_COMMON + _TS_EXTRA,
    "tsx": _JS_COMMON + _TS_EXTRA,
    "go": """
(function_declaration name: (identifier) @name) @function
(method_declaration name: (field_identifier) @name) @method
(type_spec name: (type_identifier) @name) @type
(const_spec name: (identifier) @name) @constant
(var_spec name: (identifier) @name) @variable
""",
    "java": """
(class_declaration name: (identifier) @name) @class
(interface_declaration name: (identifier) @name) @type
(enum_declaration name: (identifier) @name) @type
(record_declaration name: (identifier) @name) @class
(annotation_type_declaration name: (identifier) @name) @type
(method_declaration name: (identifier) @name) @method
(constructor_declaration name: (identifier) @name) @method
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @variable
""",
    "rust": """
(function_item name: (identifier) @name) @function
(function_signature_item name: (identifier) @name) @function
(struct_item name: (type_identifier) @name) @type
(enum_item name: (type_identifier) @name) @type
(union_item name: (type_identifier) @name) @type
(trait_item name: (type_identifier) @name) @type
(type_item name: (type_identifier) @name) @type
(impl_item type: (type_identifier) @name) @impl
(const_item name: (identifier) @name) @constant
(static_item name: (identifier) @name) @constant
(mod_item name: (identifier) @name) @module
(macro_definition name: (identifier) @name) @function
""",
    "ruby": """
(method name: (_) @name) @method
(singleton_method name: (_) @name) @method
(class name: (constant) @name) @class
(class name: (scope_resolution name: (constant) @name)) @class
(module name: (constant) @name) @module
(assignment left: (constant) @name) @constant
""",
    "c": _C_COMMON,
    "cpp": _C_COMMON + """
(function_definition declarator: (function_declarator declarator: (qualified_identifier name: (_) @name))) @function
(function_definition declarator: (function_declarator declarator: (field_identifier) @name)) @method
(field_declaration declarator: (function_declarator declarator: (field_identifier) @name)) @method
(class_specifier name: (type_identifier) @name body: (_)) @class
(namespace_definition name: (namespace_identifier) @name) @module
""",
}

# Node kinds that name something; the ones a grammar lacks are dropped when its query is compiled.
IDENTIFIER_KINDS = ("identifier", "type_identifier", "field_identifier", "property_identifier", "constant",
                    "namespace_identifier", "shorthand_property_identifier", "package_identifier")

# Kinds whose body may hold local variables that are not worth indexing as definitions.
SCOPE_KINDS = frozenset({"function", "method"})


def language_for(path: str) -> str | None:
    """The grammar for a path by its extension, or None for the plain-text fallback."""
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return EXTENSIONS.get(name[dot:].lower()) if dot > 0 else None
