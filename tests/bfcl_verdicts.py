"""Run inside an environment where bfcl-eval is installed: reads a JSON list of
``{"functions", "output", "answer", "category"}`` on stdin and prints BFCL's own verdicts
(``ast_checker``'s ``valid``) as a JSON list. Used by tests/test_evals_bfcl_agreement.py."""

import json
import sys

from bfcl_eval.constants.enums import Language
from bfcl_eval.constants.model_config import MODEL_CONFIG_MAPPING
from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker

# a function-calling model whose names BFCL rewrites "." → "_" (as workbench's tool names do)
MODEL = next(name for name, config in MODEL_CONFIG_MAPPING.items() if config.underscore_to_dot and "_" not in name)

verdicts = []
for item in json.load(sys.stdin):
    result = ast_checker(item["functions"], item["output"], item["answer"], Language.PYTHON, item["category"],
                         MODEL.replace("/", "_"))
    verdicts.append(bool(result["valid"]))
json.dump(verdicts, sys.stdout)
