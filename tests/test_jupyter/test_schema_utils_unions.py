"""Defects mypy found when it was first run on the package (each test fails on the code before its fix)."""

from workbench.jupyter._schema_utils import value_checker, variants_of


def test_union_variants_keep_the_wrappers_type():
    # `_schema_utils` bound one name twice: the keywords a variant is given from its wrapper were cut by
    # the later set (which counts "type" as an annotation), so each variant lost the wrapper's "type"
    schema = {
        "type": "object",
        "oneOf": [
            {"properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"properties": {"b": {"type": "integer"}}, "required": ["b"]},
        ],
    }
    assert [variant.get("type") for variant in variants_of(schema)] == ["object", "object"]


def test_plain_type_check_still_skips_jsonschema_for_annotated_schemas():
    check = value_checker({"type": "string", "readOnly": True, "$comment": "c"}, {})
    assert check("ok") == [] and check(3) != []
