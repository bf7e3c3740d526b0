"""Run inside an environment where bfcl-eval is installed: reads a JSON list of
``{"functions", "output", "answer", "category"}`` on stdin and prints BFCL's own verdicts as a JSON
list, judged as BFCL's runner judges them: an irrelevance item passes when its output holds no call
(``is_empty_output``: anything not in function-calling format counts as none); any other item must be
in function-calling format (``is_function_calling_format_output``) and pass ``ast_checker``. A JSON
object ``{"__tuple__": [...]}`` stands for a Python tuple. Used by tests/test_evals/test_bfcl_agreement.py."""

import json
import sys

from bfcl_eval.constants.enums import Language
from bfcl_eval.constants.model_config import MODEL_CONFIG_MAPPING
from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
from bfcl_eval.utils import is_empty_output, is_function_calling_format_output

# a function-calling model whose names BFCL rewrites "." → "_" (as workbench's tool names do)
MODEL = next(name for name, config in MODEL_CONFIG_MAPPING.items() if config.underscore_to_dot and "_" not in name)


def tuples(value):
    return tuple(value["__tuple__"]) if set(value) == {"__tuple__"} else value


def verdict(item):
    output = item["output"]
    if "irrelevance" in item["category"]:
        return is_empty_output(output)
    if not is_function_calling_format_output(output):
        return False
    result = ast_checker(
        item["functions"], output, item["answer"], Language.PYTHON, item["category"], MODEL.replace("/", "_")
    )
    return bool(result["valid"])


json.dump([verdict(item) for item in json.loads(sys.stdin.read(), object_hook=tuples)], sys.stdout)
