"""The schema a grammar-constrained server is given: the core it must write, nothing a grammar unrolls."""

from __future__ import annotations

import copy
import json

import jsonschema
import pytest

from reviewbot.inference.grammar_form import grammar_schema
from reviewbot.inference.structured import RESPONSE_FORMATS
from reviewbot.review.findings.schema import (
    REVIEW_NONEMPTY,
    REVIEW_OPTIONAL,
    REVIEW_SCHEMA,
    FileNote,
    Finding,
    IssueVerdict,
    OutputInvalid,
    ReviewOutput,
    parse_review_output,
)

GRAMMAR_FORM = RESPONSE_FORMATS[2]
# The shortest answer a small model can give under the grammar: the core, no walkthrough, issues or nulls.
CORE_ANSWER = {"summary": "Subtracts instead of adding.", "findings": [
    {"path": "calc.py", "line": 3, "severity": "major", "category": "bug", "title": "Wrong sign",
     "body": "`a - b` where the sum is meant.", "confidence": 0.9}]}


def test_the_json_object_form_carries_the_trimmed_schema_and_the_strict_forms_the_full_one() -> None:
    strict, plain, grammar, bare = RESPONSE_FORMATS
    assert strict["json_schema"]["schema"] is REVIEW_SCHEMA and plain["json_schema"]["schema"] is REVIEW_SCHEMA
    assert grammar == {"type": "json_object",
                       "schema": grammar_schema(REVIEW_SCHEMA, REVIEW_OPTIONAL, REVIEW_NONEMPTY)}
    assert bare == {"type": "json_object"}


def test_an_answer_with_only_the_core_fits_the_grammar_and_passes_the_full_validation() -> None:
    jsonschema.validate(CORE_ANSWER, GRAMMAR_FORM["schema"])
    with pytest.raises(jsonschema.ValidationError):  # strict mode would have forced every key
        jsonschema.validate(CORE_ANSWER, REVIEW_SCHEMA)
    review = parse_review_output(json.dumps(CORE_ANSWER))
    assert review.walkthrough == [] and review.issues == []
    assert review.findings[0].suggestion is None and review.findings[0].side == "RIGHT"


def test_the_grammar_still_forces_the_core_of_every_object() -> None:
    schema = GRAMMAR_FORM["schema"]
    finding = schema["properties"]["findings"]["items"]
    assert schema["required"] == ["summary", "findings"]
    assert finding["required"] == ["path", "line", "severity", "category", "title", "body", "confidence"]
    assert schema["properties"]["walkthrough"]["items"]["required"] == ["path", "summary"]
    assert schema["properties"]["issues"]["items"]["required"] == ["issue", "addressed"]
    # Still the shape: optional fields may be written, with the full schema's types and enums.
    assert finding["properties"]["side"] == {"type": "string", "enum": ["RIGHT", "LEFT"]}
    assert finding["additionalProperties"] is False
    broken = copy.deepcopy(CORE_ANSWER)
    del broken["findings"][0]["title"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def test_the_grammar_forbids_the_empty_strings_the_validation_refuses() -> None:
    """A small model once wrote `"title": ""` under the grammar and failed the review after its repair turn."""
    assert set(REVIEW_NONEMPTY) == {"path", "title"}
    for name in ("path", "title"):
        empty = copy.deepcopy(CORE_ANSWER)
        empty["findings"][0][name] = ""
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(empty, GRAMMAR_FORM["schema"])
        with pytest.raises(OutputInvalid):
            parse_review_output(json.dumps(empty))
    finding = GRAMMAR_FORM["schema"]["properties"]["findings"]["items"]["properties"]
    assert finding["body"] == {"type": "string"}  # no bound the validation does not set


def test_no_optional_name_is_required_anywhere_else() -> None:
    """REVIEW_OPTIONAL is applied by name: a name optional in one object and required in another would let the
    grammar skip a field the validation then insists on."""
    for model in (ReviewOutput, FileNote, Finding, IssueVerdict):
        required = {name for name, spec in model.model_fields.items() if spec.is_required()}
        assert not required & REVIEW_OPTIONAL, model.__name__


def test_bounds_patterns_and_free_form_properties_are_dropped_the_input_untouched() -> None:
    schema = {"type": "object", "additionalProperties": {"type": "string"}, "description": "d",
              "properties": {"format": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 300},
                             "n": {"type": "integer", "minimum": 1, "maximum": 9},
                             "tags": {"type": "array", "items": {"type": "string", "format": "uri"},
                                      "minItems": 1, "maxItems": 5},
                             "kind": {"anyOf": [{"const": "a"}, {"$ref": "#/$defs/k"}]}},
              "$defs": {"k": {"type": "string", "minLength": 2}},
              "required": ["format", "n", "tags"]}
    before = copy.deepcopy(schema)
    assert grammar_schema(schema, optional={"tags"}) == {
        "type": "object",
        # A property may be named like a keyword: it is data and stays.
        "properties": {"format": {"type": "string"}, "n": {"type": "integer"},
                       "tags": {"type": "array", "items": {"type": "string"}},
                       "kind": {"anyOf": [{"const": "a"}, {"$ref": "#/$defs/k"}]}},
        "$defs": {"k": {"type": "string"}},
        "required": ["format", "n"]}
    assert schema == before
