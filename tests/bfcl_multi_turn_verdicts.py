"""Run inside an environment where bfcl-eval is installed: reads a JSON list of
``{"entry", "output", "answer", "category"}`` on stdin — ``entry`` a BFCL multi-turn entry (id,
initial_config, involved_classes), ``output`` the model's calls per turn and step as BFCL's call text —
and prints BFCL's own verdicts (``multi_turn_checker``'s ``valid``, after its eval runner's turn-count
check) as a JSON list. Used by tests/test_evals/test_bfcl_multi_turn.py."""

import json
import sys

from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils
from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker

verdicts = []
for number, item in enumerate(json.load(sys.stdin)):
    output, answer = item["output"], item["answer"]
    if len(output) != len(answer):  # the eval runner's force-terminated check
        verdicts.append(False)
        continue
    result = multi_turn_checker(output, answer, item["entry"], item["category"], f"agreement_{number}")
    verdicts.append(bool(result["valid"]))
    # the checker keeps each run's instances in its module's globals, by model name and entry: drop them
    for name in [n for n in vars(multi_turn_utils) if n.startswith(f"agreement_{number}_")]:
        del vars(multi_turn_utils)[name]
json.dump(verdicts, sys.stdout)
